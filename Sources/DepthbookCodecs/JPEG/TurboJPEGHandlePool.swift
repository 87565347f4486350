import CTurboJPEG
import DepthbookEngine

/// A TurboJPEG handle owned by Swift: destroyed with its owner.
///
/// A `tjhandle` is not thread-safe, but creating one costs an allocation of libjpeg state, so handles are
/// pooled and lent to one caller at a time.
final class TurboJPEGHandle: @unchecked Sendable {
    let raw: tjhandle
    /// Compressor only: a reusable output buffer from `tjAlloc`, grown when a bigger image arrives.
    var outputBuffer: UnsafeMutablePointer<UInt8>?
    var outputCapacity: UInt = 0
    /// Set when a call reported an error or warning: the handle is then freed instead of reused.
    var needsDiscarding = false

    init(raw: tjhandle) { self.raw = raw }

    deinit {
        if let outputBuffer { tjFree(outputBuffer) }
        tjDestroy(raw)
    }

    /// The handle's last error message, copied out at once (the handle owns the string).
    var lastError: String { String(cString: tjGetErrorStr2(raw)) }
    var lastErrorIsWarning: Bool { tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue) }
}

/// Lends compress or decompress handles, keeping a few idle ones for reuse.
final class TurboJPEGHandlePool: Sendable {
    enum Kind { case compress, decompress }

    private let kind: Kind
    private let idle = Locked<[TurboJPEGHandle]>([])
    /// Enough for every core of a small server; extra handles are simply freed.
    private let maxIdle = 8

    init(kind: Kind) { self.kind = kind }

    static let compressors = TurboJPEGHandlePool(kind: .compress)
    static let decompressors = TurboJPEGHandlePool(kind: .decompress)

    /// Runs `body` with a handle nobody else is using.
    func withHandle<T>(_ body: (TurboJPEGHandle) throws -> T) throws -> T {
        let handle: TurboJPEGHandle
        if let reused = idle.withLock({ $0.popLast() }) {
            handle = reused
        } else {
            guard let raw = (kind == .compress ? tjInitCompress() : tjInitDecompress()) else {
                throw PhotoError.encodingFailed("TurboJPEG could not start")
            }
            handle = TurboJPEGHandle(raw: raw)
        }
        // A handle that reported an error keeps libjpeg state from the failed stream (seen: the next
        // decode failing with "Unsupported marker"), so only handles that succeeded go back to the pool.
        let result = try body(handle)
        if !handle.needsDiscarding {
            idle.withLock { list in
                if list.count < maxIdle { list.append(handle) }
            }
        }
        return result
    }
}
