import Dispatch

extension RenderContext {
    /// Samples a band must hold at least when the caller says how long its rows are.
    static let minimumBandSamples = 32_768

    /// Runs `body` over `0..<count` split into contiguous bands, on up to `threads` cores.
    ///
    /// `samplesPerRow` (when known) keeps every band at `minimumBandSamples` or more: waking another core
    /// costs tens of microseconds, more than a 320×240 mask's whole morphology pass.
    /// Use only for work where every index is computed independently, so the banding cannot change results.
    public func parallelRows(_ count: Int, minimumBand: Int = 4, samplesPerRow: Int = 0, _ body: (Range<Int>) -> Void) {
        if count <= 0 { return }
        let band = max(1, minimumBand, samplesPerRow > 0 ? Self.minimumBandSamples / samplesPerRow : 0)
        let workers = min(threads, max(1, count / band))
        // A band is run a chunk of rows at a time, asking between chunks whether the render was cancelled: a
        // 64-stage formula over 12 MP is one stage, and ran on for minutes after its page had gone. Once
        // cancelled, the rest is skipped and the caller's next `checkCancelled` throws (results are garbage).
        let chunk = max(band, samplesPerRow > 0 ? Self.cancellationChunkSamples / samplesPerRow : 0)
        let runBand: (Range<Int>, (Range<Int>) -> Void) -> Void = { rows, body in
            var start = rows.lowerBound
            while start < rows.upperBound, !self.isCancelled() {
                let end = min(rows.upperBound, start + chunk)
                body(start..<end)
                start = end
            }
        }
        if workers <= 1 {
            runBand(0..<count, body)
            return
        }
        let bands = min(count / band, workers * 4)
        withoutActuallyEscaping(body) { body in
            // Bands write disjoint outputs; the closure is only called while this function runs.
            let work = UncheckedSendable((body, runBand))
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let start = count * band / bands, end = count * (band + 1) / bands
                if start < end { work.value.1(start..<end, work.value.0) }
            }
        }
    }

    /// Samples a band computes between two looks at the cancellation flag (when the caller gives its row length).
    static let cancellationChunkSamples = 1 << 20
}

/// A raw pointer handed to worker bands that each write disjoint indices.
struct SendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}

/// Carries a value into worker closures that the caller guarantees use it safely (disjoint writes).
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
