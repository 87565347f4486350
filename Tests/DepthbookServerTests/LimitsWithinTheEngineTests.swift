import DepthbookEngine
import DepthbookProtocol
import Testing

/// The studio's bounds (`Limits`, what the page and the command line may ask) lie within what the engine itself
/// accepts, so a request the decoder lets through is never refused later by the engine's own check.
struct LimitsWithinTheEngineTests {
    @Test func loopFramesTheStudioAllowsTheEngineRenders() {
        let studio = Limits.studio.exportFrames
        #expect(studio.lowerBound >= WiggleFrames.fewestFrames,
                "export frames \(studio) start at or above the engine's fewest, \(WiggleFrames.fewestFrames)")
    }
}
