import ArgumentParser
import DepthbookCodecs
import DepthbookEffects
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

    @Option(help: "A bundled sample instead of --photo (portrait, portrait-outdoor, still-life).")
    var sample: String?

    @Option(help: "Frames in the loop, 2...120.")
    var frames: Int = 12

    @Option(help: "Frame width in pixels, 16...4096 (the height keeps the aspect ratio).")
    var width: Int = 480

    @Option(help: "How far the nearest plane moves against the focal plane, full-resolution pixels.")
    var amplitude: Double = 40

    @Option(help: "Vertical swing relative to the horizontal one, 0...1.")
    var vertical: Double = 0.3

    @Option(help: "Focal plane point x,y in 0...1 (what stays still), e.g. 0.5,0.4.")
    var focus: String = "0.5,0.5"

    @Option(help: "Hundredths of a second per frame.")
    var delay: Int = 8

    @Option(name: .shortAndLong, help: "Where to write the loop: a .gif, or a .mp4 for H.264 video.")
    var output: String

    func validate() throws {
        if (photo == nil) == (sample == nil) { throw ValidationError("give exactly one of --photo and --sample") }
        if !(2...120).contains(frames) { throw ValidationError("--frames must be 2...120") }
        if !(16...4096).contains(width) { throw ValidationError("--width must be 16...4096") }
        if !(1...6000).contains(delay) { throw ValidationError("--delay must be 1...6000 hundredths of a second") }
        if focusPoint == nil { throw ValidationError("--focus must be two numbers in 0...1, like 0.5,0.4") }
    }

    var focusPoint: (Double, Double)? {
        let parts = focus.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, (0...1).contains(parts[0]), (0...1).contains(parts[1]) else { return nil }
        return (parts[0], parts[1])
    }

    func run() throws {
        do {
            let picture: Photo
            let id: String
            if let sample {
                picture = try SampleLibrary.photo(id: sample, width: max(width, 1024))
                id = "sample:\(sample)"
            } else {
                picture = try PhotoReader.read(contentsOf: photo ?? "", depthMapPath: depthFile, polarity: depthPolarity.polarity)
                id = "file:\(photo ?? "")"
            }
            let point = focusPoint ?? (0.5, 0.5)
            let start = Date()
            let images = try WiggleLoop.frames(photo: picture, photoID: id, count: frames, width: width, parameters: [
                "amplitude": .number(amplitude),
                "vertical": .number(vertical), "point": .point(x: point.0, y: point.1),
            ])
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
