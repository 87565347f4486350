import ArgumentParser
import DepthbookCodecs
import DepthbookEngine
import Foundation

/// `depthbook inspect FILE [--depth DEPTHFILE] [--json]`: what Depthbook finds in a photo.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print a photo's facts: upright size, depth, mattes, calibration and faces."
    )

    @Argument(help: "A HEIC, JPEG or PNG photo.")
    var file: String

    @Option(name: .customLong("depth"), help: "A separate depth map (JPEG or PNG) for the photo.")
    var depthFile: String?

    @OptionGroup var depthPolarity: DepthPolarityFlags

    @Flag(help: "Print the facts as JSON.")
    var json = false

    @Flag(inversion: .prefixedNo, help: "Run the learned person matte on a photo without a portrait matte (about a second); a photo without depth gets its depth estimated from it.")
    var personMatte = true

    func run() throws {
        let facts: PhotoFacts
        let photo: Photo
        do {
            photo = try withPersonMatte(try PhotoReader.read(contentsOf: file, depthMapPath: depthFile, polarity: depthPolarity.polarity))
            facts = PhotoFacts(photo)
        } catch {
            FileHandle.standardError.write(Data("depthbook inspect: \(file): \(error)\n".utf8))
            throw ExitCode.failure
        }
        if json {
            print(try facts.json())
        } else {
            print(InspectCommand.text(facts, photo: photo))
        }
    }

    /// `photo` with its person matte when asked for and the network loads; why not goes to standard error, and
    /// the facts are printed without it.
    func withPersonMatte(_ photo: Photo) throws -> Photo {
        guard personMatte, photo.matte(.portraitEffectsMatte) == nil else { return photo }
        do {
            return try PersonMatteSetup.open().get().withPersonMatte(photo)
        } catch {
            FileHandle.standardError.write(Data("depthbook inspect: no person matte: \(error)\n".utf8))
            return photo
        }
    }

    /// The same facts as a few readable lines.
    static func text(_ f: PhotoFacts, photo: Photo) -> String {
        var lines = ["image: \(f.width)×\(f.height), orientation \(f.orientation), \(f.colorSpace)"]
        if let d = f.depth {
            let origin = d.estimated.map { "\($0), " } ?? ""
            lines.append("depth: \(origin)\(d.kind) \(d.width)×\(d.height), \(d.min)...\(d.max), \(d.accuracy)\(d.filtered ? ", filtered" : ""), \(d.holes) holes")
            if let polarity = d.polarity {
                let way = polarity == "brighterNearer" ? "nearer" : "farther"
                lines.append("depth map: brighter is \(way)\(d.polarityDetected == true ? " (detected)" : " (as stated)")")
            }
        } else {
            lines.append("depth: none (image only)")
        }
        for m in f.mattes ?? [] { lines.append("matte: \(m.kind) \(m.width)×\(m.height)") }
        if let c = f.calibration {
            lines.append("calibration: fx \(c.fx) fy \(c.fy) cx \(c.cx) cy \(c.cy) at \(c.referenceWidth)×\(c.referenceHeight)"
                + (c.lensDistortionPercent.map { $0 == 0 ? ", lens described as distortion-free" : ", lens distortion up to \($0) %" }
                    ?? (c.lensDistortion ? ", lens distortion" : "")))
        }
        for face in f.faces ?? [] {
            lines.append("face: x \(face.x) y \(face.y) w \(face.w) h \(face.h)" + (face.detected == true ? " (detected)" : " (from the file)"))
        }
        for a in photo.auxiliary { lines.append("auxiliary: \(a.kind) \(a.width)×\(a.height)\(a.urn.map { " \($0)" } ?? "")") }
        return lines.joined(separator: "\n")
    }
}
