import Synchronization

/// Whether a frame waiting in an outbox may still go out, published by a session's `RenderScheduler` for one
/// slot and read by the network thread just before it sends: two atomic loads, no session lock. (The
/// service thread used to take the session's lock for each frame it sent, behind whatever held it.)
///
/// `floor`: frames for sequence numbers below it were rendered from a notebook or photo since replaced.
/// `settled`: the newest sequence number asked for the slot while no newer render waits, else `Int.min`: only a
/// full frame answering it is current. The scheduler writes `floor` before `settled` and this reads them in the
/// other order, so a reader that sees a new `settled` also sees the `floor` written with it (floors only rise).
public final class FrameCurrency: Sendable {
    private let floor = Atomic<Int>(.min)
    private let settled = Atomic<Int>(.min)

    /// The frame for `seq` may be sent (`coarse`: a frame delivered even when superseded, a coarse pass or a refresh).
    public func isCurrent(seq: Int, coarse: Bool) -> Bool {
        let settledSeq = settled.load(ordering: .acquiring)
        guard seq >= floor.load(ordering: .acquiring) else { return false }
        return coarse || settledSeq == seq
    }

    func publish(floor newFloor: Int, settled newSettled: Int?) {
        floor.store(newFloor, ordering: .releasing)
        settled.store(newSettled ?? .min, ordering: .releasing)
    }
}
