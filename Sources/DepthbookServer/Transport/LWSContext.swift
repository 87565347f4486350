import CWebSockets
import DepthbookEngine
import Dispatch
import Foundation
import Synchronization

/// The one libwebsockets context and the thread that services it. It is the only owner of the context
/// pointer: the service thread clears it under the lock before destroying the context, so a wake-up from
/// another thread never reaches a context that is gone.
final class LWSContext: @unchecked Sendable {
    struct ListenError: Error, CustomStringConvertible {
        var host: String
        var port: Int
        var description: String { "cannot listen on \(host):\(port) (is the port in use, or the address not local?)" }
    }

    /// What libwebsockets calls for every event of every connection.
    typealias Callback = @convention(c) (OpaquePointer?, lws_callback_reasons, UnsafeMutableRawPointer?,
                                         UnsafeMutableRawPointer?, Int) -> Int32

    /// Request headers a request may carry: 16 KiB in all (lws's default, 4 KiB, dropped a request with a large
    /// cookie without any answer). Past this the request is answered 431 (`HTTPTransactions`).
    static let maxHeaderBytes = 16 * 1024
    /// lws's own header buffer, larger than the limit so that a request over it is still read whole and answered
    /// 431; a request past even this one is closed by lws without an answer.
    static let headerBufferBytes = 48 * 1024

    private let context = Locked<ContextHandle?>(nil)
    private let stopping = Atomic<Bool>(false)
    private let serviceDone = DispatchSemaphore(value: 0)
    // C memory that must outlive the context.
    private var protocols: UnsafeMutablePointer<lws_protocols>?
    private var cStrings: [UnsafeMutablePointer<CChar>] = []

    deinit {
        for s in cStrings { free(s) }
        protocols?.deallocate()
    }

    /// Creates the context listening on `host:port` (port 0: any free one), with `callback` for every event
    /// and `user` handed back through `lws_context_user`; returns the port actually bound.
    func start(host: String, port: Int, callback: Callback, user: UnsafeMutableRawPointer) throws -> Int {
        lws_set_log_level(Int32(LLL_ERR), nil)
        let name = strdup("depthbook-studio")!
        cStrings.append(name)
        let list = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        list[0] = lws_protocols()
        list[0].name = UnsafePointer(name)
        list[0].callback = callback
        list[0].per_session_data_size = MemoryLayout<UInt64>.size
        list[0].rx_buffer_size = 65536
        list[1] = lws_protocols()  // the terminator
        protocols = list

        var info = lws_context_creation_info()
        info.port = Int32(port)
        info.protocols = UnsafePointer(list)
        info.gid = -1
        info.uid = -1
        info.user = user
        info.max_http_header_data = UInt16(Self.headerBufferBytes)
        // No permessage-deflate: JPEG does not compress and lws 4.1's deflate crashed on large frames.
        info.extensions = nil
        let iface: UnsafeMutablePointer<CChar>? = host == "0.0.0.0" ? nil : strdup(host)
        if let iface { cStrings.append(iface) }
        info.iface = UnsafePointer(iface)
        guard let created = lws_create_context(&info) else { throw ListenError(host: host, port: port) }
        context.withLock { $0 = ContextHandle(pointer: created) }
        let vhost = lws_get_vhost_by_name(created, "default")
        return vhost.map { Int(lws_get_vhost_listen_port($0)) } ?? port
    }

    /// Runs the service loop on a thread of its own until `stop()`.
    func runInBackground() {
        guard let handle = context.withLock({ $0 }) else { return }
        let thread = Thread { [self] in
            while !stopping.load(ordering: .acquiring) {
                if lws_service(handle.pointer, 0) < 0 { break }
            }
            context.withLock { $0 = nil }
            lws_context_destroy(handle.pointer)
            serviceDone.signal()
        }
        thread.name = "depthbook-lws"
        thread.start()
    }

    /// Ends the service loop and waits for the context to be destroyed.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let running = context.withLock { handle -> Bool in
            guard let handle else { return false }
            lws_cancel_service(handle.pointer)
            return true
        }
        if running { serviceDone.wait() }
    }

    /// Wakes the service thread (any thread; a no-op once the context is gone): it answers with
    /// `EVENT_WAIT_CANCELLED`.
    func wake() {
        context.withLock { handle in
            if let handle { lws_cancel_service(handle.pointer) }
        }
    }
}

/// The lws context pointer, handed between the thread that creates it and the service thread under a lock.
private struct ContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
