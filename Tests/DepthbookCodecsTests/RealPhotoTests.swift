import DepthbookEngine
import DepthbookTestSupport
import Testing

@testable import DepthbookCodecs

/// Every real photo in `../shared/photos` loads with what `facts.json` (read independently with exiftool
/// and a HEIF box lister) says it holds.
@Suite(.timeLimit(.minutes(30)), .enabled(if: SharedPhotos.available, "needs ../shared/photos"))
struct RealPhotoTests {
    static let entries: [PhotoFactsEntry] = (try? SharedPhotos.facts()) ?? []

    @Test func factsAreThere() {
        #expect(RealPhotoTests.entries.count >= 10)
    }

    @Test(arguments: RealPhotoTests.entries)
    func loadsAsFactsSay(_ entry: PhotoFactsEntry) throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(entry.file))
        let upright = Orientation(rawValue: entry.orientation)?.uprightSize(width: entry.width, height: entry.height)
        #expect(photo.width == upright?.width)
        #expect(photo.height == upright?.height)
        #expect(photo.orientation.rawValue == entry.orientation)
        #expect(photo.image.samples.count == photo.width * photo.height * 3)

        // Mattes: exactly the matte kinds the file lists, at their listed (upright) sizes.
        let listedMattes = (entry.auxiliary ?? []).filter { MatteKind(rawValue: $0.kind) != nil }
        #expect(Set(photo.mattes.map(\.kind.rawValue)) == Set(listedMattes.map(\.kind)))
        for listed in listedMattes {
            let matte = photo.mattes.first { $0.kind.rawValue == listed.kind }
            #expect(matte?.plane.width == listed.width)
            #expect(matte?.plane.height == listed.height)
            let range = matte?.plane.validRange()
            #expect(range.map { $0.lowerBound >= 0 && $0.upperBound <= 1 } == true)
        }

        // The HDR gain map is listed, not applied.
        for gain in (entry.auxiliary ?? []).filter({ $0.kind == "hdrGainMap" }) {
            #expect(photo.auxiliary.contains { $0.kind == "hdrGainMap" && $0.width == gain.width && $0.height == gain.height && $0.urn == gain.urn })
        }

        let listedDepth = (entry.auxiliary ?? []).first { $0.kind == "depth" }
        if let listedDepth {
            let depth = try #require(photo.depth)
            #expect(depth.map.width == listedDepth.width)
            #expect(depth.map.height == listedDepth.height)
            // Every Apple depth item here is disparity (README). facts.json's AuxiliaryImageType for the
            // fidmaa HEIC is the portrait matte's "depth" (exiftool merges the items' XMP), so it is not used.
            #expect(depth.kind == .disparity)
            let floats = entry.depthData.map { ($0.FloatMinValue, $0.FloatMaxValue, $0.Accuracy, $0.Filtered) }
                ?? (listedDepth.floatMin ?? .nan, listedDepth.floatMax ?? .nan, listedDepth.accuracy ?? "", listedDepth.filtered ?? false)
            let range = try #require(depth.range)
            #expect(abs(Double(range.lowerBound) - floats.0) < 1e-4)
            #expect(abs(Double(range.upperBound) - floats.1) < 1e-4)
            #expect(depth.accuracy.rawValue == floats.2)
            #expect(depth.isFiltered == floats.3)
            #expect(depth.map.holeCount == 0)

            let hasIntrinsics = entry.depthData?.hasIntrinsics ?? listedDepth.hasIntrinsics ?? false
            #expect((depth.calibration != nil) == hasIntrinsics)
            if let cal = depth.calibration {
                #expect(cal.referenceWidth == entry.depthData?.IntrinsicMatrixReferenceWidth ?? Double(photo.width))
                #expect(cal.referenceHeight == entry.depthData?.IntrinsicMatrixReferenceHeight ?? Double(photo.height))
                // The principal point lies inside the reference frame (so rows and columns were not swapped).
                #expect(cal.cx > 0 && cal.cx < cal.referenceWidth && cal.cy > 0 && cal.cy < cal.referenceHeight)
                #expect(cal.fx > 100 && cal.fy > 100)
                if let lens = entry.depthData?.hasLensDistortion { #expect(cal.hasLensDistortion == lens) }
                #expect(cal.extrinsics?.count == 12)
                #expect(cal.pixelSize != nil)
            }
            // Depth is upright and aligned: the same aspect ratio as the image.
            #expect(abs(Double(depth.map.width) / Double(depth.map.height) - Double(photo.width) / Double(photo.height)) < 0.01)
        } else if let g = entry.gdepth {
            let depth = try #require(photo.depth)
            #expect(depth.kind == .disparity)
            #expect(depth.map.width == photo.width && depth.map.height == photo.height)
            let range = try #require(depth.range)
            // RangeInverse: disparity lies between 1/far and 1/near.
            #expect(Double(range.lowerBound) >= 1 / g.far - 1e-6)
            #expect(Double(range.upperBound) <= 1 / g.near + 1e-6)
            #expect(photo.auxiliary.contains { $0.kind == "originalImage" } == g.hasOriginalImage)
        } else {
            #expect(photo.depth == nil, "a photo without depth loads image-only")
        }

        if let regions = entry.xmpRegions {
            #expect(photo.faces.map(\.type) == regions)
        } else {
            #expect(photo.faces.isEmpty)
        }
    }

    /// Apple's numbers as the depth handle's XMP states them (pug): intrinsics transposed to row-major.
    @Test func pugCalibrationValues() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("pillow_heif__pug.heic"))
        let cal = try #require(photo.calibration)
        #expect(cal.fx == 3032.59423828125)
        #expect(cal.cx == 1988.450927734375)
        #expect(cal.cy == 1512.30712890625)
        #expect(cal.pixelSize == 0.0019)
        #expect(cal.lensDistortionCenter?.x == 1990.331298828125)
        #expect(cal.lensDistortionCenter?.y == 1515.205078125)
        #expect(cal.lensDistortionCoefficients?.count == 8)
        #expect(cal.inverseLensDistortionCoefficients?[1] == 0.92712384462356567)
        #expect(cal.extrinsics == [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0])
        #expect(photo.depth?.quality == "high")
    }

    /// The front camera's extrinsic matrix is a quarter turn (columns (0,-1,0), (1,0,0), (0,0,1)).
    @Test func frontCameraExtrinsicsAreAQuarterTurn() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        let e = try #require(photo.calibration?.extrinsics)
        #expect(e == [0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0])
    }

    /// Planes line up: where the portrait matte says "person", the disparity is near.
    @Test(arguments: ["fidmaa-portrait-analyser__heic_depth_data.heic", "fidmaa-portrait-analyser__jpeg_depth_data.jpg"])
    func matteOverlapsNearDisparity(_ file: String) throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path(file))
        let matte = try #require(photo.matte(.portraitEffectsMatte)).plane
        let depth = try #require(photo.depth).map
        var inside: [Float] = [], outside: [Float] = []
        for y in 0..<depth.height {
            for x in 0..<depth.width {
                let mx = (x * matte.width + matte.width / 2) / depth.width, my = (y * matte.height + matte.height / 2) / depth.height
                let m = matte[mx, my, 0], d = depth[x, y, 0]
                if m > 0.9 { inside.append(d) } else if m < 0.1 { outside.append(d) }
            }
        }
        #expect(inside.count > depth.pixelCount / 10)
        #expect(outside.count > depth.pixelCount / 10)
        let sortedAll = depth.samples.sorted()
        let nearThreshold = sortedAll[sortedAll.count * 7 / 10]
        let nearInside = inside.filter { $0 >= nearThreshold }.count
        // The nearest 30% of the scene falls almost entirely on the person.
        #expect(Double(nearInside) / Double(depth.pixelCount * 3 / 10) > 0.8)
        let meanInside: Float = inside.reduce(0, +) / Float(inside.count)
        let meanOutside: Float = outside.reduce(0, +) / Float(outside.count)
        #expect(meanInside > 2 * meanOutside)
    }

    /// The JPEG's face regions are stated in sensor orientation; turned upright they sit at the top of
    /// the person (within one face height of the matte's topmost row) and on the person.
    @Test func sensorOrientedFacesLandOnTheHead() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__jpeg_depth_data.jpg"))
        // The file names two regions over the same area, a face and the camera's focus: the facts list one face.
        #expect(photo.faces.map(\.type).sorted() == ["Face", "Focus"], "\(photo.faces)")
        #expect(try PhotoFacts(photo).faces?.count == 1)
        let face = try #require(photo.faces.first { $0.type == "Face" })
        let matte = try #require(photo.matte(.portraitEffectsMatte)).plane
        let right = face.x + face.width, bottom = face.y + face.height
        #expect(face.x >= 0 && face.y >= 0)
        #expect(right <= Double(photo.width) && bottom <= Double(photo.height))
        let sx = Double(matte.width) / Double(photo.width), sy = Double(matte.height) / Double(photo.height)
        let topRow = (0..<matte.height).first { y in (0..<matte.width).contains { matte[$0, y, 0] > 0.5 } } ?? 0
        #expect(face.y * sy - Double(topRow) < face.height * sy)
        #expect(matte[Int(face.centerX * sx), Int(face.centerY * sy), 0] > 0.9)
    }

    /// The HEIC's semantic mattes sit inside the portrait matte (skin and hair are parts of the person).
    @Test func semanticMattesLieInsideThePerson() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("fidmaa-portrait-analyser__heic_depth_data.heic"))
        let person = try #require(photo.matte(.portraitEffectsMatte)).plane
        for kind in [MatteKind.skin, .hair] {
            let m = try #require(photo.matte(kind)).plane
            #expect(m.width == person.width && m.height == person.height)
            var covered = 0, total = 0
            for i in 0..<m.samples.count where m.samples[i] > 0.5 {
                total += 1
                if person.samples[i] > 0.5 { covered += 1 }
            }
            #expect(total > 1000)
            #expect(Double(covered) / Double(total) > 0.9, "\(kind) matte lies on the person")
        }
    }

    /// The depthy pairs: image plus a depth map of the same size, taken as relative disparity (the maps are
    /// brighter where things are farther, which the reader detects).
    @Test(arguments: ["flowers", "hut", "mango", "shelf", "tunnel"])
    func imagePlusSeparateDepthMap(_ name: String) throws {
        let image = SharedPhotos.path("depthy__\(name)-image.jpg"), depthFile = SharedPhotos.path("depthy__\(name)-depth.jpg")
        let photo = try PhotoReader.read(contentsOf: image, depthMapPath: depthFile)
        let depth = try #require(photo.depth)
        #expect(depth.kind == .disparity)
        #expect(depth.accuracy == .relative)
        #expect(depth.map.width == photo.width && depth.map.height == photo.height)
        let range = try #require(depth.range)
        #expect(range.lowerBound >= 0 && range.upperBound <= 1 && range.upperBound > range.lowerBound)
        // The grey level itself, scaled to 0...1 and turned over (independent decode of the depth file as grey).
        #expect(depth.greyPolarity == GreyPolarity(brighterIsNearer: false, detected: true))
        let grey = try TurboJPEGDecoder.decode(try SharedPhotos.bytes("depthy__\(name)-depth.jpg")[...], gray: true, limits: .default, what: "test")
        for i in stride(from: 0, to: grey.samples.count, by: 997) {
            #expect(abs(depth.map.samples[i] - (1 - Float(grey.samples[i]) / 255)) < 1e-6)
        }
    }

    @Test func depthMapOfAnotherShapeIsRefused() throws {
        #expect(throws: PhotoError.self) {
            try PhotoReader.read(contentsOf: SharedPhotos.path("depthy__shelf-image.jpg"), depthMapPath: SharedPhotos.path("depthy__hut-depth.jpg"))
        }
    }

    /// pillow_heif's "invalid id" file loads (per the photos README).
    @Test func invalidIDFileLoads() throws {
        let photo = try PhotoReader.read(contentsOf: SharedPhotos.path("bad/pillow_heif__heif_other_invalid_id.heic"))
        #expect(photo.width > 0 && photo.height > 0)
    }
}
