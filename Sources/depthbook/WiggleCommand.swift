import ArgumentParser
import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookProtocol
import DepthbookEngine
import Foundation

/// `depthbook wiggle (--photo FILE | --sample ID) -o OUT.gif|OUT.mp4`: the "Wiggle Me" parallax loop of a
/// photo with depth, rendered by the engine and written as a looping animated GIF (giflib) or, when the
/// output ends in .mp4, as H.264 video (FFmpeg's libraries).
struct WiggleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wiggle",
        abstract: "Write a photo's looping parallax animation (Wiggle Me) as an animated GIF or an MP4."
    )

    @Option(help: "A photo with depth (HEIC, JPEG or PNG).")
    var photo: String?

    @Option(name: .customLong("depth"), help: "A separate depth map for --photo (JPEG or PNG).")
    var depthFile: String?

    @OptionGroup var depthPolarity: DepthPolarityFlags

    @OptionGroup var personMatte: PersonMatteFlag

    @Option(help: "A bundled sample instead of --photo (portrait, portrait-outdoor, still-life).")
    var sample: String?

    @Option(help: "Frames in the loop, \(Limits.studio.exportFrames).")
    var frames: Int = Limits.studio.defaultExportFrames

    @Option(help: "Frame width in pixels, \(Limits.studio.loopWidth) (the height keeps the aspect ratio).")
    var width: Int = Limits.studio.defaultExportWidth

    // The wiggle effect's own parameters: range, default and doc come from its table; left out, the effect's default.
    @Option(help: wiggleHelp("amplitude"))
    var amplitude: Double?

    @Option(help: wiggleHelp("vertical"))
    var vertical: Double?

    @Option(help: wiggleHelp("point", as: "x,y, e.g. 0.5,0.4"))
    var focus: String?

    @Option(help: "Hundredths of a second per frame.")
    var delay: Int = 8

    @Option(name: .shortAndLong, help: "Where to write the loop: a .gif, or a .mp4 for H.264 video.")
    var output: String

    func validate() throws {
        if (photo == nil) == (sample == nil) { throw ValidationError("give exactly one of --photo and --sample") }
        let limits = Limits.studio
        if !limits.exportFrames.contains(frames) { throw ValidationError("--frames must be \(limits.exportFrames)") }
        if !limits.loopWidth.contains(width) { throw ValidationError("--width must be \(limits.loopWidth)") }
        if !(1...6000).contains(delay) { throw ValidationError("--delay must be 1...6000 hundredths of a second") }
        if focus != nil, focusPoint == nil { throw ValidationError("--focus must be two numbers in 0...1, like 0.5,0.4") }
    }

    var focusPoint: (Double, Double)? {
        guard let focus else { return nil }
        let parts = focus.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, (0...1).contains(parts[0]), (0...1).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    /// The options given, as the wiggle effect's parameters (the ones left out take the effect's defaults).
    var parameters: [String: ParameterValue] {
        var values: [String: ParameterValue] = [:]
        if let amplitude { values["amplitude"] = .number(amplitude) }
        if let vertical { values["vertical"] = .number(vertical) }
        if let point = focusPoint { values["point"] = .point(x: point.0, y: point.1) }
        return values
    }

    func run() throws {
        do {
            let picture: Photo
            let id: String
            if let sample {
                picture = try SampleLibrary.photo(id: sample, width: max(width, 1024))
                id = "sample:\(sample)"
            } else {
                picture = personMatte.applied(to: try PhotoReader.read(contentsOf: photo ?? "", depthMapPath: depthFile,
                                                                      polarity: depthPolarity.polarity),
                                              command: "wiggle")
                id = "file:\(photo ?? "")"
            }
            let start = Date()
            let images = try WiggleLoop.frames(photo: picture, photoID: id, count: frames, width: width, parameters: parameters)
            let bytes = output.lowercased().hasSuffix(".mp4")
                ? try MP4Encoder.encode(frames: images, framesPerSecond: max(1, min(120, 100 / delay)))
                : try GIFEncoder.encode(frames: images, delayCentiseconds: delay)
            try Data(bytes).write(to: URL(fileURLWithPath: output))
            let first = images[0]
            print("wiggle: \(images.count) frames \(first.width)×\(first.height) in \(Int(Date().timeIntervalSince(start) * 1000)) ms → \(output) (\(bytes.count) bytes)")
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("depthbook wiggle: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// A wiggle option's help from the effect's own row: its doc, range and default, declared once in the effect.
private func wiggleHelp(_ name: String, as format: String? = nil) -> ArgumentHelp {
    guard let row = NotebookRenderer.catalog.first(where: { $0.id == "wiggle" })?.parameter(name) else { return ArgumentHelp() }
    var text = row.doc
    if let min = row.min, let max = row.max { text += " \(min.formatted())...\(max.formatted())\(row.unit.isEmpty ? "" : " " + row.unit)." }
    switch row.defaultValue {
    case .number(let value): text += " Default \(value.formatted())."
    case .point(let x, let y): text += " Default \(x.formatted()),\(y.formatted())."
    default: break
    }
    if let format { text += " As \(format)." }
    return ArgumentHelp(text)
}
