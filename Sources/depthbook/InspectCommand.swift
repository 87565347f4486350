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

    @OptionGroup var personMatte: PersonMatteFlag

    func run() throws {
        let facts: PhotoFacts
        let photo: Photo
        do {
            photo = personMatte.applied(to: try PhotoReader.read(contentsOf: file, depthMapPath: depthFile, polarity: depthPolarity.polarity),
                                        command: "inspect")
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
