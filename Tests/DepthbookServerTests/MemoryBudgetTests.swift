import Testing
@testable import DepthbookServer

/// How the memory budget is shared out, worked by hand for the default 1024 MiB: photos 30 %, caches a third,
/// working memory 45 % split between the renders running at once (a twelfth lent to the caches); the person
/// matte's 460 MiB network takes from the caches what the budget lacks while it runs.
struct MemoryBudgetTests {
    static let mib = 1 << 20
    static let total = 1_073_741_824
    // 1024 MiB = 1,073,741,824 bytes: photos 322,122,547 (30 %, rounded down), caches 357,913,941 (a third),
    // working memory 483,183,820 (45 %, rounded down).
    static let working = 483_183_820

    @Test func theSharesOfTheDefaultBudget() {
        let budget = MemoryBudget()
        #expect(budget.photoBytes == 322_122_547)
        #expect(budget.cacheBytes == 357_913_941)
        #expect(budget.workingBytesPerRender(renderWorkers: 2) == Self.working / 2)
        // The caches' part beyond the rest is the twelfth the working memory lends them.
        #expect(budget.photoBytes + budget.cacheBytes + Self.working - Self.total == 89_478_484)
    }

    /// Two workers: the caches keep what the photos, the network and the other worker's share leave,
    /// 1,073,741,824 - 322,122,547 - 482,344,960 - 241,591,910 = 27,682,407 bytes (26.4 MiB, as at the old 25 %
    /// split), and give up the rest. Three or more leave nothing: the caches give all they have. One worker runs
    /// the network in its own share, so the caches give back only what they borrowed beyond it.
    @Test func theNetworkTakesWhatTheBudgetLacks() {
        let budget = MemoryBudget()
        #expect(budget.personMatteRoomBytes(renderWorkers: 2) == 357_913_941 - 27_682_407)
        #expect(budget.personMatteRoomBytes(renderWorkers: 1) == 357_913_941 - (Self.total - 322_122_547 - 460 * Self.mib))
        #expect(budget.personMatteRoomBytes(renderWorkers: 3) == budget.cacheBytes)
        #expect(budget.personMatteRoomBytes(renderWorkers: 64) == budget.cacheBytes)
    }

    /// Whatever the budget and the workers, photos, the caches left, the network and the other workers' shares
    /// fit the budget while the network runs, or the caches give all they have.
    @Test func theNetworkRunsWithinTheBudget() {
        for megabytes in [256, 512, 1024, 2048, 4096, 16384] {
            let budget = MemoryBudget(megabytes: megabytes)
            for workers in 1...8 {
                let room = budget.personMatteRoomBytes(renderWorkers: workers)
                #expect((0...budget.cacheBytes).contains(room))
                let inUse = budget.photoBytes + (budget.cacheBytes - room) + MemoryBudget.personMatteBytes
                    + (workers - 1) * budget.workingBytesPerRender(renderWorkers: workers)
                #expect(inUse <= budget.totalBytes || room == budget.cacheBytes, "\(megabytes) MiB, \(workers) workers")
            }
        }
        #expect(MemoryBudget(megabytes: 16384).personMatteRoomBytes(renderWorkers: 2) == 0)
        #expect(MemoryBudget(megabytes: 256).personMatteRoomBytes(renderWorkers: 2) == MemoryBudget(megabytes: 256).cacheBytes)
    }
}
