import DepthbookEffects
import Testing
@testable import DepthbookServer

/// The currency a frame in an outbox is checked against (read by the network thread without the session's lock)
/// says what the scheduler's own `isCurrent` says, after every kind of change the scheduler goes through.
@Suite(.timeLimit(.minutes(30)))
struct FrameCurrencyTests {
    let slots = [RenderSlot(cell: "mask", kind: .preview), RenderSlot(cell: "result", kind: .preview),
                 RenderSlot(cell: "mask", kind: .crop)]

    /// A fixed pseudo-random walk (SplitMix64), so a failure repeats.
    struct Walk: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func theCurrencyAgreesWithTheSchedulerThroughRandomChanges() throws {
        var walk = Walk(state: 57)
        var scheduler = RenderScheduler()
        var inFlight: [RenderJob] = []
        var newest: [RenderSlot: Int] = [:]
        var currencies: [RenderSlot: FrameCurrency] = [:]
        var compared = 0
        for _ in 0..<4000 {
            var actions: [RenderScheduler.Action] = []
            switch Int.random(in: 0..<10, using: &walk) {
            case 0..<4:
                // A request, sometimes repeating the newest seq (dependent cells re-render with the same one).
                let slot = slots.randomElement(using: &walk)!
                let seq = (newest[slot] ?? 0) + Int.random(in: 0...2, using: &walk)
                guard seq >= 1 else { continue }
                let target: CellRenderRequest = slot.kind == .crop
                    ? .crop(x: 0, y: 0, width: 64, height: 64) : .preview(width: 736)
                actions = try scheduler.request(FrameRequest(slot: slot, seq: seq, target: target,
                                                             interactive: Bool.random(using: &walk)))
                newest[slot] = seq
                currencies[slot] = scheduler.currency(for: slot)
            case 4..<9:
                guard !inFlight.isEmpty else { continue }
                let job = inFlight.remove(at: Int.random(in: 0..<inFlight.count, using: &walk))
                let outcome: RenderOutcome = [.rendered, .rendered, .cancelled, .failed("no")].randomElement(using: &walk)!
                actions = scheduler.finished(job, outcome: outcome, shared: Bool.random(using: &walk))
            default:
                actions = Bool.random(using: &walk) ? scheduler.cancelAll() : scheduler.dropWork()
                // Jobs cancelled here still finish later, as the pool's would.
            }
            for case .start(let job) in actions { inFlight.append(job) }
            for (slot, currency) in currencies {
                let top = newest[slot] ?? 1
                for seq in max(1, top - 3)...(top + 1) {
                    for coarse in [false, true] {
                        #expect(currency.isCurrent(seq: seq, coarse: coarse)
                                    == scheduler.isCurrent(slot: slot, seq: seq, coarse: coarse),
                                "slot \(slot) seq \(seq) coarse \(coarse)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 10_000)
    }

    /// Within one walk the verdicts must vary, or agreement would prove nothing.
    @Test func aFrameGoesOutOfDateWhenANewerRequestComes() throws {
        var scheduler = RenderScheduler()
        let slot = slots[0]
        let job = try #require(try scheduler.request(FrameRequest(slot: slot, seq: 1, target: .preview(width: 736)))
            .compactMap { if case .start(let j) = $0 { j } else { nil } }.first)
        let currency = scheduler.currency(for: slot)
        #expect(scheduler.finished(job, outcome: .rendered) == [.deliver(job)])
        #expect(currency.isCurrent(seq: 1, coarse: false))
        _ = try scheduler.request(FrameRequest(slot: slot, seq: 2, target: .preview(width: 736)))
        #expect(!currency.isCurrent(seq: 1, coarse: false))
        #expect(currency.isCurrent(seq: 1, coarse: true), "a coarse frame still goes out")
        _ = scheduler.cancelAll()
        #expect(!currency.isCurrent(seq: 2, coarse: true), "nothing from before a reset goes out")
    }
}
