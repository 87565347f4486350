#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A seeded mutation fuzzer for the parsers Depthbook wrote itself (docs/fuzzing.md).
///
/// A campaign runs its seed inputs, then `executions` inputs each made from one of its corpus by a few stacked
/// edits (`Mutator`: bit flips, edge values in 8/16/32-bit fields of either byte order, length bumps, ranges
/// deleted, inserted, duplicated or swapped, splices of two inputs, tokens of the format, numbers written as
/// text). The target names the outcome of each input in a short string; an input whose outcome was not seen
/// before joins the corpus, so the campaign works its way into the states a parser's errors tell apart (digits
/// and quoted text are dropped from outcomes, so an offset or a name in a message is not news). Every choice
/// comes from one seed, so a campaign is the same run every time: iteration N of seed S is always the same input.
///
/// The target throws for anything it does not accept: an error of a type other than the parser's own, or a
/// `FuzzFailure` for a broken property. Those inputs are saved under `/tmp/depthbook-fuzz` and listed in the
/// report. A trap cannot be caught; `FuzzWitness` saves the input that caused it before the process ends, and a
/// hang after `FuzzWitness.hangSeconds`.
///
/// The environment changes a run without changing the code:
/// - `DEPTHBOOK_FUZZ_EXECUTIONS=N`: N mutated inputs per campaign instead of the suite's figure.
/// - `DEPTHBOOK_FUZZ_SEED=S`: another seed (the default is fixed per campaign, from its name).
/// - `DEPTHBOOK_FUZZ_INPUT=PATH`: only that file (or every file of that folder), unmutated: a saved input replayed.
/// - `DEPTHBOOK_FUZZ_TRACE=1`: print each new outcome with its iteration (what the campaign is reaching).
///
/// Under a sanitizer (ThreadSanitizer runs the server's suites) the default figure is divided by ten.
public struct MutationFuzzer: Sendable {
    /// Names the campaign in reports and file names, and picks its default seed and `Tests/Fuzz/<name>/`.
    public let name: String
    /// The inputs it starts from: each runs once as it is, then mutated.
    public var seeds: [[UInt8]]
    public var dictionary: [[UInt8]]
    public var anchors: Set<UInt8>
    /// How many mutated inputs to run (after the seeds).
    public var executions: Int
    public var seed: UInt64
    /// No mutated input is longer.
    public var maxLength: Int
    /// At most this many found inputs are kept beside the seeds.
    public var corpusLimit = 256

    /// A campaign named `name`; `executions` is the default figure, which the environment may change. The inputs
    /// committed under `Tests/Fuzz/<name>/` (hand-made seeds and regressions) join `seeds`.
    public init(_ name: String, seeds: [[UInt8]], dictionary: [[UInt8]] = [], anchors: Set<UInt8> = [0xFF],
                executions: Int, maxLength: Int = 64 * 1024) {
        self.name = name
        let environment = ProcessInfo.processInfo.environment
        let regressions = Self.files(in: Self.regressionDirectory(name))
        self.seeds = seeds + regressions
        self.dictionary = dictionary
        self.anchors = anchors
        if let figure = environment["DEPTHBOOK_FUZZ_EXECUTIONS"].flatMap({ Int($0) }), figure >= 0 {
            self.executions = figure
        } else {
            self.executions = Self.isSanitized ? max(1, executions / 10) : executions
        }
        self.seed = environment["DEPTHBOOK_FUZZ_SEED"].flatMap { UInt64($0) } ?? Self.defaultSeed(name)
        self.maxLength = maxLength
    }

    /// The fuzz suites' time limit in minutes. Campaigns take turns, and a suite's wait for its turn counts against
    /// its limit: the default run is about 40 CPU-seconds in all, and 30 minutes (every suite's hang guard) leave room
    /// for a machine many times busier. A day when `DEPTHBOOK_FUZZ_EXECUTIONS` asks for a run of its own length. A hang is reported (and its
    /// input saved) after `FuzzWitness.hangSeconds` either way.
    public static var timeLimitMinutes: Int {
        ProcessInfo.processInfo.environment["DEPTHBOOK_FUZZ_EXECUTIONS"] == nil ? 30 : 24 * 60
    }

    /// Text tokens for `dictionary`, as UTF-8.
    public static func tokens(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    /// `Tests/Fuzz/<name>/`: seeds no writer of ours makes, and inputs a campaign found that were then fixed.
    public static func regressionDirectory(_ name: String) -> URL {
        PackageRoot.url.appendingPathComponent("Tests/Fuzz").appendingPathComponent(name)
    }

    /// FNV-1a of the name: a fixed seed per campaign, different between campaigns.
    static func defaultSeed(_ name: String) -> UInt64 {
        name.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }

    /// Whether this process runs under ThreadSanitizer or AddressSanitizer (their runtimes define these symbols).
    public static let isSanitized: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
    }()

    static func files(in directory: URL) -> [[UInt8]] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else { return [] }
        if !isDirectory.boolValue { return (try? Data(contentsOf: directory)).map { [[UInt8]($0)] } ?? [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.compactMap {
            (try? Data(contentsOf: directory.appendingPathComponent($0))).map { [UInt8]($0) }
        }
    }

    /// Runs the campaign: `target` is called with each input and returns a short name of what happened.
    ///
    /// The campaign runs on a thread of its own while the calling task waits: seconds of parsing on one of Swift
    /// Testing's few cooperative threads (one per core) would hold up every other suite's awaits meanwhile. At most
    /// half the cores run campaigns at once (one on two cores): the rest of the suite keeps the others, and eight
    /// campaigns side by side on two cores took half as much CPU time again as one after another.
    public func run(_ target: @escaping @Sendable ([UInt8]) throws -> String) async -> FuzzReport {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                Self.turns.wait()
                let report = self.runHere(target)
                Self.turns.signal()
                continuation.resume(returning: report)
            }
            thread.name = "fuzz \(name)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    static let turns = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount / 2))

    /// The campaign on the calling thread.
    func runHere(_ target: ([UInt8]) throws -> String) -> FuzzReport {
        let label = "\(name)-seed\(seed)"
        var inputs = seeds
        var executions = self.executions
        if let replay = ProcessInfo.processInfo.environment["DEPTHBOOK_FUZZ_INPUT"] {
            inputs = Self.files(in: URL(fileURLWithPath: replay))
            executions = 0
        }
        let trace = ProcessInfo.processInfo.environment["DEPTHBOOK_FUZZ_TRACE"].map { !$0.isEmpty && $0 != "0" } ?? false
        let capacity = max(maxLength, inputs.map(\.count).max() ?? 0)
        let slot = FuzzWitness.acquire(label: label, capacity: capacity)
        defer { if let slot { FuzzWitness.release(slot) } }

        var mutator = Mutator(seed: seed, dictionary: dictionary, anchors: anchors, maxLength: maxLength)
        var corpus = inputs
        var outcomes: [String: Int] = [:]
        var failures: [FuzzReport.Failure] = []
        var failureCount = 0
        let start = Date()
        let total = inputs.count + executions
        for iteration in 0..<total {
            let input: [UInt8]
            if iteration < inputs.count {
                input = inputs[iteration]
            } else {
                let base = corpus[mutator.below(corpus.count)]
                input = mutator.mutate(base, other: corpus[mutator.below(corpus.count)])
            }
            if let slot { FuzzWitness.record(slot, input, iteration: iteration) }
            do {
                let outcome = Self.signature(try target(input))
                outcomes[outcome, default: 0] += 1
                if outcomes[outcome] == 1, trace { print("fuzz \(name) iteration \(iteration): \(outcome)") }
                if outcomes[outcome] == 1, iteration >= inputs.count {
                    if corpus.count < inputs.count + corpusLimit {
                        corpus.append(input)
                    } else {
                        corpus[inputs.count + mutator.below(corpusLimit)] = input
                    }
                }
            } catch {
                failureCount += 1
                let message = "\(error)"
                // The first input of each distinct failure is kept; repeats of it only count.
                guard failures.count < 20, !failures.contains(where: { Self.signature($0.message) == Self.signature(message) }) else { continue }
                let path = "\(FuzzWitness.directory)/\(label)-\(iteration).bin"
                mkdir(FuzzWitness.directory, 0o755)
                let saved = FileManager.default.createFile(atPath: path, contents: Data(input))
                failures.append(FuzzReport.Failure(iteration: iteration, message: message, path: saved ? path : nil))
            }
        }
        return FuzzReport(name: name, seed: seed, seedInputs: inputs.count, executions: executions,
                          seconds: Date().timeIntervalSince(start), corpus: corpus.count, outcomes: outcomes.count,
                          failures: failures, failureCount: failureCount)
    }

    /// An outcome as the corpus compares them: without digits (offsets and sizes in messages) or quoted text (the
    /// input's own names and values, between "…" or “…”), at most 120 characters.
    static func signature(_ outcome: String) -> String {
        var kept = String.UnicodeScalarView()
        var quoted = false, count = 0
        for scalar in outcome.unicodeScalars where count < 120 {
            switch scalar {
            case "\"": quoted.toggle()
            case "\u{201C}": quoted = true
            case "\u{201D}": quoted = false
            case "0"..."9": break
            default:
                if !quoted {
                    kept.append(scalar)
                    count += 1
                }
            }
        }
        return String(kept)
    }

    /// Runs `body`, naming its outcome: "ok …" with what `body` says, or the error of type `E` (the parser's own).
    /// Any other error goes on to the campaign as a failure.
    public static func outcome<E: Error>(_ accepted: E.Type, _ body: () throws -> String) throws -> String {
        do {
            return "ok \(try body())"
        } catch let error as E {
            return "\(error)"
        }
    }
}

/// A property a fuzz target checks did not hold.
public struct FuzzFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// Throws a `FuzzFailure` with `message` unless `condition` holds.
    public static func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw FuzzFailure(message()) }
    }
}

/// What a campaign did: its figures in one line, and each distinct failure with the input saved for it.
public struct FuzzReport: Sendable, CustomStringConvertible {
    public struct Failure: Sendable, CustomStringConvertible {
        public let iteration: Int
        public let message: String
        public let path: String?

        public var description: String { "iteration \(iteration): \(message) (input: \(path ?? "not saved"))" }
    }

    public let name: String
    public let seed: UInt64
    public let seedInputs: Int
    public let executions: Int
    public let seconds: Double
    public let corpus: Int
    /// Distinct outcomes seen (after `MutationFuzzer.signature`).
    public let outcomes: Int
    public let failures: [Failure]
    public let failureCount: Int

    public var description: String {
        "fuzz \(name) (seed \(seed)): \(seedInputs) seed inputs + \(executions) mutated in \(String(format: "%.1f", seconds)) s, "
            + "\(outcomes) distinct outcomes, corpus \(corpus), \(failureCount) failing"
    }
}
