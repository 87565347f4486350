import ArgumentParser
import DepthbookCodecs
import DepthbookEngine
import Foundation

/// `--person-matte` / `--no-person-matte` for the commands that read a photo: the studio mattes every photo
/// without Apple's portrait matte in the background, so the command line does the same before it renders,
/// or a photo without depth would be refused here and open in the page.
struct PersonMatteFlag: ParsableArguments {
    @Flag(inversion: .prefixedNo, help: "Run the learned person matte on a photo without a portrait matte (about a second); a photo without depth gets its depth estimated from it.")
    var personMatte = true

    /// `photo` with its person matte when asked for and the network loads; why not goes to standard error
    /// (prefixed with the command's name), and the photo is used as read.
    func applied(to photo: Photo, command: String) -> Photo {
        guard personMatte, photo.matte(.portraitEffectsMatte) == nil else { return photo }
        do {
            return try PersonMatteSetup.open().get().withPersonMatte(photo)
        } catch {
            FileHandle.standardError.write(Data("depthbook \(command): no person matte: \(error)\n".utf8))
            return photo
        }
    }
}
