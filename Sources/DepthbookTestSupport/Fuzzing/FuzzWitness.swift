#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Keeps each running campaign's current input where a crash or a hang can still be reported.
///
/// A trap in a parser ends the test process: nothing in Swift can catch it. So before each execution the campaign
/// copies its input into a slot here, and a handler for the fatal signals writes the slot of the crashing thread
/// to `/tmp/depthbook-fuzz/<campaign>-seed<S>-crash.bin` and says which iteration it was, then lets the signal
/// take its course (the previous handler, Swift's backtracer, still prints the stack). A watchdog thread writes
/// `…-hang.bin` for a campaign whose iteration has not moved for `hangSeconds`.
///
/// The handler runs in a signal context: it only reads memory allocated beforehand and calls `write`, `open`,
/// `close` and `sigaction`, all async-signal-safe. Slots are raw memory, never Swift arrays or strings.
enum FuzzWitness {
    /// Campaigns that can run at once (Swift Testing runs suites in parallel).
    static let capacity = 32
    /// How long one execution may take before the watchdog reports it as a hang.
    static let hangSeconds = 10
    static let directory = "/tmp/depthbook-fuzz"

    struct Slot {
        var inUse = false
        var thread: pthread_t = 0
        var lock: UnsafeMutablePointer<pthread_mutex_t>
        var input: UnsafeMutablePointer<UInt8>?
        var capacity = 0
        var length = 0
        var iteration = 0
        /// NUL-terminated, made when the slot is taken: the campaign's name with its seed, and the two file paths.
        var label: UnsafeMutablePointer<CChar>?
        var crashPath: UnsafeMutablePointer<CChar>?
        var hangPath: UnsafeMutablePointer<CChar>?
        /// The watchdog's own notes: the iteration it last saw, for how many seconds, and whether it spoke.
        var watchedIteration = -1
        var stalledSeconds = 0
        var reportedHang = false
    }

    nonisolated(unsafe) static let slots: UnsafeMutablePointer<Slot> = {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        for k in 0..<capacity {
            let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(lock, nil)
            (slots + k).initialize(to: Slot(lock: lock))
        }
        return slots
    }()

    /// The handlers that were installed before ours, by signal number.
    nonisolated(unsafe) static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    /// Scratch for formatting numbers inside the handler.
    nonisolated(unsafe) static let digits = UnsafeMutablePointer<CChar>.allocate(capacity: 32)
    static let fatalSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]
    /// Taking and giving back slots, and installing the handlers once.
    static let registry = NSLock()
    nonisolated(unsafe) static var installed = false

    /// Takes a slot for a campaign on the calling thread, whose inputs are at most `capacity` bytes.
    static func acquire(label: String, capacity: Int) -> Int? {
        registry.lock()
        defer { registry.unlock() }
        if !installed {
            installed = true
            _ = slots
            mkdir(directory, 0o755)
            installHandlers()
            startWatchdog()
        }
        guard let k = (0..<Self.capacity).first(where: { !slots[$0].inUse }) else { return nil }
        let slot = slots + k
        pthread_mutex_lock(slot.pointee.lock)
        defer { pthread_mutex_unlock(slot.pointee.lock) }
        slot.pointee.inUse = true
        slot.pointee.thread = pthread_self()
        slot.pointee.input = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, capacity))
        slot.pointee.capacity = capacity
        slot.pointee.length = 0
        slot.pointee.iteration = 0
        slot.pointee.label = strdup(label)
        slot.pointee.crashPath = strdup("\(directory)/\(label)-crash.bin")
        slot.pointee.hangPath = strdup("\(directory)/\(label)-hang.bin")
        slot.pointee.watchedIteration = -1
        slot.pointee.stalledSeconds = 0
        slot.pointee.reportedHang = false
        return k
    }

    /// Notes the input about to run (its first `capacity` bytes) and its iteration.
    static func record(_ k: Int, _ input: [UInt8], iteration: Int) {
        let slot = slots + k
        pthread_mutex_lock(slot.pointee.lock)
        let n = min(input.count, slot.pointee.capacity)
        if let buffer = slot.pointee.input {
            input.withUnsafeBufferPointer { source in
                if let base = source.baseAddress, n > 0 { buffer.update(from: base, count: n) }
            }
        }
        slot.pointee.length = n
        slot.pointee.iteration = iteration
        pthread_mutex_unlock(slot.pointee.lock)
    }

    static func release(_ k: Int) {
        registry.lock()
        defer { registry.unlock() }
        let slot = slots + k
        pthread_mutex_lock(slot.pointee.lock)
        defer { pthread_mutex_unlock(slot.pointee.lock) }
        slot.pointee.inUse = false
        slot.pointee.input?.deallocate()
        slot.pointee.input = nil
        for text in [slot.pointee.label, slot.pointee.crashPath, slot.pointee.hangPath] { free(text) }
        slot.pointee.label = nil
        slot.pointee.crashPath = nil
        slot.pointee.hangPath = nil
    }

    // MARK: Crashes

    private static func installHandlers() {
        for signal in fatalSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in FuzzWitness.crashed(signal) }
            sigemptyset(&action.sa_mask)
            // The backtracer's own handler may run on an alternate stack; ours is small and uses the current one.
            action.sa_flags = 0
            sigaction(signal, &action, previous + Int(signal))
        }
    }

    /// The signal handler: writes the crashing thread's input (every active slot's when no slot is that thread's),
    /// puts the previous handler back and returns, so the faulting instruction runs again and the previous
    /// handler (or the default action) ends the process. `abort` raises its signal again itself.
    private static func crashed(_ signal: Int32) {
        let me = pthread_self()
        var mine = false
        for k in 0..<capacity where slots[k].inUse && pthread_equal(slots[k].thread, me) != 0 { mine = true }
        for k in 0..<capacity where slots[k].inUse && (!mine || pthread_equal(slots[k].thread, me) != 0) {
            let slot = slots[k]
            say("\nfuzz campaign ")
            say(slot.label)
            say(mine ? ": signal " : ": (another thread got signal ")
            sayNumber(Int(signal))
            say(mine ? " at iteration " : ") at iteration ")
            sayNumber(slot.iteration)
            say("; its input is in ")
            say(slot.crashPath)
            say("\n")
            save(slot, to: slot.crashPath)
        }
        sigaction(signal, previous + Int(signal), nil)
    }

    private static func save(_ slot: Slot, to path: UnsafeMutablePointer<CChar>?) {
        guard let path, let input = slot.input else { return }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { return }
        var done = 0
        while done < slot.length {
            let n = write(fd, input + done, slot.length - done)
            if n <= 0 { break }
            done += n
        }
        close(fd)
    }

    private static func say(_ text: StaticString) {
        _ = write(2, text.utf8Start, text.utf8CodeUnitCount)
    }

    private static func say(_ text: UnsafeMutablePointer<CChar>?) {
        guard let text else { return }
        _ = write(2, text, strlen(text))
    }

    private static func sayNumber(_ value: Int) {
        var v = value.magnitude
        var k = 31
        repeat {
            k -= 1
            digits[k] = CChar(48 + Int(v % 10))
            v /= 10
        } while v > 0 && k > 1
        if value < 0 { k -= 1; digits[k] = 45 }
        _ = write(2, digits + k, 31 - k)
    }

    // MARK: Hangs

    private static func startWatchdog() {
        let thread = Thread {
            while true {
                sleep(1)
                for k in 0..<capacity { watch(slots + k) }
            }
        }
        thread.name = "fuzz watchdog"
        thread.start()
    }

    private static func watch(_ slot: UnsafeMutablePointer<Slot>) {
        pthread_mutex_lock(slot.pointee.lock)
        defer { pthread_mutex_unlock(slot.pointee.lock) }
        guard slot.pointee.inUse else { return }
        if slot.pointee.iteration != slot.pointee.watchedIteration {
            slot.pointee.watchedIteration = slot.pointee.iteration
            slot.pointee.stalledSeconds = 0
            return
        }
        slot.pointee.stalledSeconds += 1
        guard slot.pointee.stalledSeconds >= hangSeconds, !slot.pointee.reportedHang else { return }
        slot.pointee.reportedHang = true
        save(slot.pointee, to: slot.pointee.hangPath)
        let label = slot.pointee.label.map { String(cString: $0) } ?? "?"
        let path = slot.pointee.hangPath.map { String(cString: $0) } ?? "?"
        FileHandle.standardError.write(Data(
            "\nfuzz campaign \(label): iteration \(slot.pointee.iteration) has run for \(hangSeconds) s; its input is in \(path)\n".utf8))
    }
}
