import Foundation

/// Where the tests find the person matte's weights: `$DEPTHBOOK_MODELS`, else `models/` in the checkout (where
/// `scripts/install-models.sh` puts them).
public enum ModelFiles {
    public static var directory: String {
        if let given = ProcessInfo.processInfo.environment["DEPTHBOOK_MODELS"], !given.isEmpty { return given }
        return SharedPhotos.repositoryRoot.appendingPathComponent("models").path
    }

    /// Both networks' files are there.
    public static var isPresent: Bool {
        ["modnet-portrait.onnx", "modnet-landscape.onnx"].allSatisfy {
            FileManager.default.fileExists(atPath: directory + "/" + $0)
        }
    }

    /// Whether tests that run the network should run: when the weights are there, and always under `CI=true`,
    /// where missing weights must fail those tests rather than skip them.
    public static var available: Bool { isPresent || RunEnvironment.isCI }
}
