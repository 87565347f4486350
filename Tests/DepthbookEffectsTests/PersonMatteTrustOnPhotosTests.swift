import DepthbookCodecs
import DepthbookEngine
import DepthbookTestSupport
import Testing
@testable import DepthbookEffects

/// The network's matte on every shared photo: on people, the pug and the dahlias it is sure of what it mattes; on
/// photos of objects (the shelf's ornaments, the avocados, the hyacinths, the Android table) it leaves blotches and
/// fragments, which are no subject: `photo.subject` there is depth's region alone, exactly as without the network
/// (Big Head on the shelf scaled shards of the ornaments before).
@Suite(.timeLimit(.minutes(30)),
       .enabled(if: SharedPhotos.available, "needs ../shared/photos"),
       .enabled(if: ModelFiles.available, "needs the person matte's weights in models/ (scripts/install-models.sh)"))
struct PersonMatteTrustOnPhotosTests {
    typealias S = EffectTestSupport

    /// (photo, its separate depth map or nil, whether the network holds someone there).
    static let cases: [(String, String?, Bool)] = [
        ("fidmaa-portrait-analyser__heic_depth_data.heic", nil, true),
        ("fidmaa-portrait-analyser__jpeg_depth_data.jpg", nil, true),
        ("pillow_heif__pug.heic", nil, true),
        ("exifr__with_deth_map.jpg", nil, true),
        ("depthy__shelf-image.jpg", "depthy__shelf-depth.jpg", false),
        ("depthy__mango-image.jpg", "depthy__mango-depth.jpg", false),
        ("depthy__flowers-image.jpg", "depthy__flowers-depth.jpg", false),
        ("spite-lensblur-extractor__table.jpg", nil, false),
    ]

    @Test(arguments: cases)
    func theSubjectIsTheMatteOnlyWhereTheNetworkIsSure(file: String, depthMap: String?, someone: Bool) throws {
        var plain = try PhotoReader.read(contentsOf: SharedPhotos.path(file), depthMapPath: depthMap.map(SharedPhotos.path))
        plain.mattes = []  // Apple's matte hidden: the network runs as on other phones' photos
        let photo = try PersonMatter(modelsDirectory: ModelFiles.directory).withPersonMatte(plain)
        let matte = try #require(photo.personMatte)
        let share = PersonMatteTrust.unsureShare(matte)
        print("person-matte-trust \(file) unsure=\(String(format: "%.3f", share)) holds=\(PersonMatteTrust.holdsSomeone(matte))")
        #expect(PersonMatteTrust.holdsSomeone(matte) == someone, "\(file): \(share) of the likely pixels unsure")

        let notebook = S.notebook([S.step("head", "bigHead", ["image": "photo", "matte": "photo.portraitEffectsMatte"])])
        let subject = try S.floats(photo, notebook, "photo.subject", width: 240)
        var depthOnly = photo
        depthOnly.personMatte = nil
        let fromDepth = try S.floats(depthOnly, notebook, "photo.subject", width: 240)
        if someone {
            #expect(subject.samples != fromDepth.samples, "\(file): the network's matte should shape the subject")
        } else {
            #expect(subject.samples == fromDepth.samples, "\(file): the subject should be depth's region alone")
        }
    }
}
