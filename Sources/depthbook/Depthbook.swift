import Foundation
import ArgumentParser

/// The one executable: every way of using Depthbook is a subcommand.
@main
struct Depthbook: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depthbook",
        abstract: "Play with the depth in photos: a notebook studio, a renderer and its benchmarks.",
        version: DepthbookVersion.string,
        subcommands: [
            // Each helper-owned command file registers here.
            InspectCommand.self,
            BenchCommand.self,
            ServeCommand.self,
            LoadtestCommand.self,
            RenderCommand.self,
            WiggleCommand.self,
            ProtocolSchemaCommand.self,
        ]
    )

    /// Tunes the allocator for large image buffers, then runs the command as ArgumentParser would.
    static func main() async {
        do {
            AllocatorTuning.apply(try AllocatorTuning.policy(from: ProcessInfo.processInfo.environment))
        } catch {
            exit(withError: ValidationError("\(error)"))
        }
        await main(nil)
    }
}

enum DepthbookVersion {
    static let string = "0.1.0"
}
