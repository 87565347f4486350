import Foundation

/// Finds the repository root and the shared real photos (`../shared/photos` beside the repository).
///
/// The photos may not be copied into the project, so tests and benchmarks locate them from this source
/// file's path: up to the directory holding `Package.swift`, then `../shared/photos`.
public enum SharedPhotos {
    /// The package root: the nearest ancestor of this file that holds `Package.swift`.
    public static let repositoryRoot: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `../shared/photos` relative to the repository root.
    public static let directory: URL = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/photos")

    /// Whether the tests that read the shared photos should run: when they are present, and always under
    /// `CI=true`, where a missing photo must fail those tests rather than skip them.
    public static var available: Bool { isPresent || RunEnvironment.isCI }

    /// Whether the shared photos are on this machine.
    public static var isPresent: Bool { FileManager.default.fileExists(atPath: directory.appendingPathComponent("facts.json").path) }

    /// The path of a photo by file name (`bad/...` for the broken ones).
    public static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A photo's bytes.
    public static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// File names in `bad/`.
    public static func badFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("bad").path).sorted().map { "bad/" + $0 }
    }

    /// `facts.json`: what exiftool and a HEIF box lister found in each photo, independently of Depthbook.
    public static func facts() throws -> [PhotoFactsEntry] {
        let data = try Data(contentsOf: directory.appendingPathComponent("facts.json"))
        return try JSONDecoder().decode([PhotoFactsEntry].self, from: data)
    }
}

/// One entry of `facts.json`.
public struct PhotoFactsEntry: Decodable, Sendable, CustomStringConvertible {
    public struct Auxiliary: Decodable, Sendable {
        public var kind: String
        public var urn: String?
        public var mpfIndex: Int?
        public var width: Int
        public var height: Int
        public var floatMin: Double?
        public var floatMax: Double?
        public var accuracy: String?
        public var filtered: Bool?
        public var hasIntrinsics: Bool?
    }

    public struct DepthFacts: Decodable, Sendable {
        public var AuxiliaryImageType: String?
        public var FloatMinValue: Double
        public var FloatMaxValue: Double
        public var Accuracy: String
        public var Filtered: Bool
        public var Quality: String?
        public var IntrinsicMatrixReferenceWidth: Double?
        public var IntrinsicMatrixReferenceHeight: Double?
        public var hasIntrinsics: Bool
        public var hasLensDistortion: Bool
    }

    public struct GDepthFacts: Decodable, Sendable {
        public var format: String
        public var near: Double
        public var far: Double
        public var mime: String
        public var hasOriginalImage: Bool
    }

    public var file: String
    public var mime: String
    public var orientation: Int
    public var width: Int
    public var height: Int
    public var auxiliary: [Auxiliary]?
    public var depthData: DepthFacts?
    public var gdepth: GDepthFacts?
    public var xmpRegions: [String]?

    public var description: String { file }
}
