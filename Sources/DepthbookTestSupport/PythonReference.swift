import Foundation

/// Runs a numpy/scipy reference script from `Tests/DepthbookEngineTests/References/`, exchanging raw
/// little-endian float32 files in a fresh temporary directory.
///
/// The script gets the directory as its first argument followed by `arguments`; it reads `in0.f32`,
/// `in1.f32`... and writes `out.f32`. Shapes and parameters travel as arguments.
public struct PythonReference {
    public enum Failure: Error, CustomStringConvertible {
        case scriptFailed(script: String, status: Int32, stderr: String)
        case missingOutput(String)

        public var description: String {
            switch self {
            case let .scriptFailed(script, status, stderr): return "\(script) exited \(status): \(stderr)"
            case let .missingOutput(script): return "\(script) wrote no out.f32"
            }
        }
    }

    /// The reference script's file name, e.g. "gaussian.py".
    public let script: String

    public init(_ script: String) {
        self.script = script
    }

    /// Runs the script on `inputs` and returns the floats it wrote.
    public func run(_ inputs: [[Float]], arguments: [String]) throws -> [Float] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("depthbook-ref-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (i, values) in inputs.enumerated() {
            let data = values.withUnsafeBufferPointer { Data(buffer: $0) }
            try data.write(to: dir.appendingPathComponent("in\(i).f32"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let scriptPath = PackageRoot.url.appendingPathComponent("Tests/DepthbookEngineTests/References/\(script)").path
        process.arguments = ["python3", scriptPath, dir.path] + arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure.scriptFailed(script: script, status: process.terminationStatus,
                                       stderr: String(decoding: errorData, as: UTF8.self))
        }
        guard let out = try? Data(contentsOf: dir.appendingPathComponent("out.f32")) else {
            throw Failure.missingOutput(script)
        }
        return out.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}

/// The package root, found by walking up from this source file to the directory holding Package.swift.
public enum PackageRoot {
    public static var url: URL {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }
}
