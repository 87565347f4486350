import Foundation

/// Finds the page (`Public/`) and the bundled notebooks (`Notebooks/`) without depending on the working
/// directory: next to the executable, then an installed share directory, then the source checkout a
/// development build lives in, then the working directory.
public enum AssetLocator {
    /// The first existing `name` folder among the places above that holds `marker` (a file it must have).
    public static func find(_ name: String, marker: String, executable: String = CommandLine.arguments.first ?? "") -> String? {
        candidates(name, executable: executable).first { directory in
            FileManager.default.fileExists(atPath: directory + "/" + marker)
        }
    }

    static func candidates(_ name: String, executable: String) -> [String] {
        var places: [String] = []
        let resolved = (executable as NSString).resolvingSymlinksInPath
        if resolved.hasPrefix("/") {
            let directory = (resolved as NSString).deletingLastPathComponent
            places.append(directory + "/" + name)
            places.append((directory as NSString).deletingLastPathComponent + "/share/depthbook/" + name)
        }
        places += ["/usr/local/share/depthbook/" + name, "/usr/share/depthbook/" + name]
        if resolved.hasPrefix("/") {
            // A development build: .build/<triple>/release/depthbook inside the checkout.
            var directory = (resolved as NSString).deletingLastPathComponent
            for _ in 0..<4 {
                directory = (directory as NSString).deletingLastPathComponent
                places.append(directory + "/" + name)
            }
        }
        places.append(FileManager.default.currentDirectoryPath + "/" + name)
        return places
    }
}
