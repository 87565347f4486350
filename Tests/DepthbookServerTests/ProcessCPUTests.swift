import Testing
@testable import DepthbookServer

/// The CPU time `/api/stats` reports, read from a `stat` line as the kernel writes it (proc(5)).
struct ProcessCPUTests {
    @Test func userAndSystemTicksOfAStatLineAreItsSeconds() {
        // pid 4242, a command name with a space and a parenthesis in it, state S, then fields 4...; utime (14) 250
        // and stime (15) 50 ticks at 100 a second: 3 s.
        let line = "4242 ((depth) book) S 1 4242 4242 0 -1 4194560 5000 0 0 0 250 50 0 0 20 0 9 0 100 0 0"
        #expect(ProcessCPU.parse(line, ticksPerSecond: 100) == 3.0)
        #expect(ProcessCPU.parse("4242 (x) S 1 2", ticksPerSecond: 100) == nil)
        #expect(ProcessCPU.parse("no parenthesis", ticksPerSecond: 100) == nil)
    }

    @Test func thisProcessHasUsedSomeCPU() throws {
        let spent = try #require(ProcessCPU.seconds())
        var sum = 0.0
        for i in 0..<2_000_000 { sum += Double(i & 7) }
        #expect(sum > 0)
        let later = try #require(ProcessCPU.seconds())
        #expect(spent >= 0 && later >= spent)
    }
}
