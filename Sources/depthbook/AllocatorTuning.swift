#if canImport(Glibc)
import Glibc
#endif

/// Process-wide allocator settings for an image renderer, applied once when `depthbook` starts.
///
/// glibc hands every allocation above 32 MB (a 12 MP float plane is 48 MB) straight to `mmap` and gives it back
/// with `munmap` when freed, so every render of a full-size frame faulted in and zeroed its buffers afresh:
/// measured with `perf stat` on `depthbook bench --sizes full --pipelines P1 --no-stages --repeat 7`, 388 k page
/// faults and 2.85 s of CPU, against 99 k and 2.24 s once large blocks come from the heap and freed memory stays
/// there for the next frame. Peak memory is unchanged (the heap holds what one render needed at most).
///
/// Commands run on Swift concurrency's worker threads, and glibc gives each thread an arena of its own: a
/// secondary arena's heaps are at most 64 MB and are unmapped as soon as they are empty, whatever the trim
/// threshold, so the same faults came back whenever another pipeline had run before (P1 after P3 at 12 MP:
/// 170 k faults, 94 ms a render, against 74 k and 66 ms alone). One arena (`M_ARENA_MAX` 1) keeps every large
/// block in the main heap; the engine allocates a few large buffers per stage, so the lock is not contended.
///
/// `mallopt` lives in `<malloc.h>`, which Swift's Glibc module does not export, so it is looked up by name; the
/// parameter numbers are glibc's stable ABI values from that header. Without glibc this does nothing.
enum AllocatorTuning {
    /// How the process uses glibc's allocator, chosen with `DEPTHBOOK_ALLOCATOR` (read once at start, for every
    /// command, so `bench` and `serve` can be compared under each).
    enum Policy: String, CaseIterable {
        /// Large blocks kept in one heap while renders run (the page-fault figures above), and the heap's free
        /// pages given back by `serve` once renders stop (`malloc_trim` in the periodic sweep).
        case tuned
        /// As `tuned`, but never given back: what the server did before the idle trim, kept to measure it.
        case keep
        /// glibc's own defaults: `mmap` for blocks over 32 MB, an arena per thread, trimming by itself.
        case system

        /// Whether the server gives freed memory back when it falls idle.
        var releasesWhenIdle: Bool { self != .keep }
    }

    static let environmentKey = "DEPTHBOOK_ALLOCATOR"

    /// The policy named in the environment; `tuned` when unset. An unknown name stops the command with a clear
    /// error rather than quietly measuring something else.
    static func policy(from environment: [String: String]) throws -> Policy {
        guard let name = environment[environmentKey], !name.isEmpty else { return .tuned }
        guard let policy = Policy(rawValue: name) else {
            let names = Policy.allCases.map(\.rawValue).joined(separator: ", ")
            throw AllocatorPolicyError(message: "\(environmentKey)=\(name) is not one of \(names)")
        }
        return policy
    }

    /// `M_TRIM_THRESHOLD`, `M_MMAP_MAX` and `M_ARENA_MAX` in glibc's `<malloc.h>`.
    static let trimThreshold: Int32 = -1, mmapMax: Int32 = -4, arenaMax: Int32 = -8

    static func apply(_ policy: Policy) {
        guard policy != .system else { return }
        #if canImport(Glibc)
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        _ = mallopt(mmapMax, 0)
        _ = mallopt(trimThreshold, Int32.max)
        _ = mallopt(arenaMax, 1)
        #endif
    }
}

struct AllocatorPolicyError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
