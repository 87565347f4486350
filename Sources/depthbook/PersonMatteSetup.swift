import DepthbookCodecs
import DepthbookServer
import Foundation

/// Finds and loads the learned person matte's network for `serve` and `inspect`: `$DEPTHBOOK_MODELS`, else a
/// `models` folder found like `Public` (next to the executable, the share directories, the checkout).
enum PersonMatteSetup {
    static func directory(_ env: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let given = env["DEPTHBOOK_MODELS"], !given.isEmpty { return given }
        return AssetLocator.find("models", marker: PersonMatter.portraitFile)
    }

    /// The loaded network, or why there is none (one line, for a warning).
    static func open(_ env: [String: String] = ProcessInfo.processInfo.environment) -> Result<PersonMatter, PersonMatteError> {
        guard let directory = directory(env) else {
            return .failure(PersonMatteError("no models directory (run scripts/install-models.sh, or set DEPTHBOOK_MODELS)"))
        }
        do {
            return .success(try PersonMatter(modelsDirectory: directory))
        } catch let error as PersonMatteError {
            return .failure(error)
        } catch {
            return .failure(PersonMatteError("\(error)"))
        }
    }
}
