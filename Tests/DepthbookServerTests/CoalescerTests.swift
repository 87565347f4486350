import DepthbookEngine
import Testing
@testable import DepthbookServer

@Suite(.timeLimit(.minutes(30)))
struct CoalescerTests {
    final class Answers: Sendable {
        let got = Locked<[String]>([])
        func waiter(_ name: String) -> @Sendable (Int) -> Void { { value in self.got.withLock { $0.append("\(name)=\(value)") } } }
    }

    @Test func laterRequestsJoinTheFirstAndAllGetItsResult() {
        var coalescer = Coalescer<String, Int>(limit: 4)
        let answers = Answers()
        #expect(coalescer.join("mask", answers.waiter("a")) == .first)
        #expect(coalescer.join("mask", answers.waiter("b")) == .joined)
        #expect(coalescer.join("mask", answers.waiter("c")) == .joined)
        #expect(coalescer.pendingKeys == 1)
        for waiter in coalescer.finish("mask") { waiter(7) }
        #expect(answers.got.withLock { $0 } == ["a=7", "b=7", "c=7"])
        #expect(coalescer.finish("mask").isEmpty, "answered once")
        #expect(coalescer.join("mask", answers.waiter("d")) == .first, "a new question after the answer starts anew")
    }

    @Test func distinctKeysAreBounded() {
        var coalescer = Coalescer<Int, Int>(limit: 2)
        #expect(coalescer.join(1, { _ in }) == .first)
        #expect(coalescer.join(2, { _ in }) == .first)
        #expect(coalescer.join(3, { _ in }) == .full)
        #expect(coalescer.join(1, { _ in }) == .joined, "joining a waiting key is always possible")
        #expect(coalescer.finish(1).count == 2)
        #expect(coalescer.join(3, { _ in }) == .first)
    }
}
