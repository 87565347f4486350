import DepthbookMessages

/// A session's one export at a time, and what happens to it when its page leaves: a page reload or a dropped
/// network stops the export at once (nobody is there to get it), and the page that takes the session back is
/// told of it in its `hello` and gets it under the same request id: run again if it stopped, or its outcome
/// if it was still ending when the page came back.
struct ExportHandOver: Sendable {
    /// The export running, and the connection that asked for it.
    private var running: (export: InterruptedExport, connection: ClientConnection)?
    /// A page that resumed the session while `running` was still ending: its outcome goes there.
    private var resumedBy: ClientConnection?
    /// The export that stopped because its page left, waiting for a page to resume the session.
    private var stopped: InterruptedExport?

    mutating func begin(_ export: InterruptedExport, for connection: ClientConnection) -> Bool {
        guard running == nil else { return false }
        running = (export, connection)
        resumedBy = nil
        stopped = nil
        return true
    }

    mutating func finish(interrupted: Bool) -> ClientConnection? {
        defer { running = nil; resumedBy = nil }
        if let resumedBy { return resumedBy }
        if interrupted, let running { stopped = running.export }
        return nil
    }

    mutating func handOver(to connection: ClientConnection) -> (export: InterruptedExport, runAgain: Bool)? {
        if let export = stopped {
            stopped = nil
            return (export, true)
        }
        guard let running, running.connection.isClosed, resumedBy == nil else { return nil }
        resumedBy = connection
        return (running.export, false)
    }
}

/// An export as its page asked for it.
struct InterruptedExport: Sendable {
    var request: Int
    var export: StudioRequest.Export
}
