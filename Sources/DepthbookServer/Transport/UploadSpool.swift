import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An upload's body on its way in, written to a file as it arrives rather than held in memory: a client
/// trickling 63 MiB holds disk, not RAM, until its body is complete (or its time is up and lws closes it).
///
/// The file lives in the data directory's `incoming/` folder under a random name, readable only by the server,
/// and is removed once read or when its connection ends. Service thread only, except `readAndRemove`, which
/// the HTTP queue calls once the body is complete and the spool is no longer written.
final class UploadSpool {
    enum Failure: Error, CustomStringConvertible {
        case cannotCreate(String, Int32)
        case cannotWrite(Int32)

        var description: String {
            switch self {
            case .cannotCreate(let path, let code): return "cannot create \(path): \(String(cString: strerror(code)))"
            case .cannotWrite(let code): return "cannot write an upload to disk: \(String(cString: strerror(code)))"
            }
        }
    }

    let path: String
    private var descriptor: Int32
    private(set) var count = 0

    /// A new, empty spool file in `directory`.
    init(directory: String) throws {
        path = "\(directory)/\(RandomID.make()).part"
        descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.cannotCreate(path, errno) }
    }

    deinit { discard() }

    /// Appends `length` bytes; a disk that is full or failing is an error for this upload, never a crash.
    func append(_ bytes: UnsafeRawPointer, _ length: Int) throws {
        var written = 0
        while written < length {
            let n = write(descriptor, bytes + written, length - written)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure.cannotWrite(errno)
            }
            written += n
        }
        count += length
    }

    /// Closes the file for writing; the body is complete.
    func seal() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// The whole body, read back, and the file removed. Called once, after `seal`.
    static func readAndRemove(_ path: String) throws -> [UInt8] {
        defer { unlink(path) }
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure.cannotWrite(errno) }
        return [UInt8](data)
    }

    /// Closes and removes the file (a connection gone, a body refused). Safe to call more than once.
    func discard() {
        seal()
        unlink(path)
    }

    /// Makes `directory` and removes what a previous run left there (a server stopped mid-upload).
    static func prepare(directory: String) throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in (try? fm.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".part") {
            unlink("\(directory)/\(name)")
        }
    }
}
