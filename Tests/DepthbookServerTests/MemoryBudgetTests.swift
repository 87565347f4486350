import Testing
@testable import DepthbookServer

/// How the memory budget is shared out, worked by hand for the default 1024 MiB: photos 30 %, caches 25 %,
/// and the rest split between the renders running at once; the person matte's 460 MiB network borrows from
/// the caches what its worker's share lacks.
struct MemoryBudgetTests {
    static let mib = 1 << 20
    // 1024 MiB = 1,073,741,824 bytes: photos 322,122,547 (30 %, rounded down), caches 268,435,456 (25 %),
    // working memory 483,183,821.
    static let working = 1_073_741_824 - 322_122_547 - 268_435_456

    @Test func theSharesOfTheDefaultBudget() {
        let budget = MemoryBudget()
        #expect(budget.photoBytes == 322_122_547)
        #expect(budget.cacheBytes == 268_435_456)
        #expect(budget.workingBytesPerRender(renderWorkers: 2) == Self.working / 2)
    }

    /// One worker's share (471 MiB) holds the network alone; two leave it 230 MiB short; three or more would
    /// need more than the caches hold, and the caches give what they have.
    @Test func theNetworkBorrowsWhatItsWorkersShareLacks() {
        let budget = MemoryBudget()
        let network = 460 * Self.mib
        #expect(budget.personMatteRoomBytes(renderWorkers: 1) == 0)
        #expect(budget.personMatteRoomBytes(renderWorkers: 2) == network - Self.working / 2)
        #expect(budget.personMatteRoomBytes(renderWorkers: 2) == 240_753_050)
        #expect(budget.personMatteRoomBytes(renderWorkers: 3) == budget.cacheBytes)
        #expect(budget.personMatteRoomBytes(renderWorkers: 64) == budget.cacheBytes)
    }

    /// A larger budget gives each worker enough for the network: nothing is borrowed.
    @Test func aLargeBudgetLendsNothing() {
        #expect(MemoryBudget(megabytes: 4096).personMatteRoomBytes(renderWorkers: 2) == 0)
        #expect(MemoryBudget(megabytes: 256).personMatteRoomBytes(renderWorkers: 2) == MemoryBudget(megabytes: 256).cacheBytes)
    }
}
