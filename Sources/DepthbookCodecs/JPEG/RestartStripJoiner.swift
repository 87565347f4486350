/// Joins JPEGs of horizontal strips of one image into a single baseline JPEG, so the strips can be encoded
/// on several cores at once.
///
/// Why it is exact: every strip but the last is a whole number of MCU rows, encoded with the same tables, so
/// its entropy-coded data is what the whole-image encoder writes for those MCUs after a restart (DC
/// predictions reset to 0, bits padded with ones to a byte). The joined stream is strip 0's header with the
/// full height in SOF and a DRI segment whose interval is one strip's MCU count, then each strip's scan data
/// separated by RST0…RST7 markers (ITU T.81 B.2.4.4, F.1.2.3). Decoders give the same pixels as for a
/// single-pass encode; the file is a few bytes larger (one marker per strip).
struct RestartStripJoiner {
    /// MCUs in one strip of full height: the restart interval.
    let restartInterval: Int
    private var header: [UInt8] = []
    /// Where SOF's height field and the SOS segment sit in `header`.
    private var sofHeightOffset = 0
    private var sosOffset = 0
    private var scans: [ArraySlice<UInt8>] = []

    init(restartInterval: Int) {
        self.restartInterval = restartInterval
    }

    /// The parts of one encoded strip: everything up to and including the SOS segment, where SOF's height
    /// field sits in it, and the entropy-coded data between SOS and EOI.
    struct StripParts {
        var header: ArraySlice<UInt8>
        var sofHeightOffset: Int
        var scan: ArraySlice<UInt8>
        var sosOffset: Int
    }

    /// Splits a baseline single-scan JPEG (what TurboJPEG writes) into header and scan data.
    static func parts(of jpeg: [UInt8]) throws -> StripParts {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8, jpeg[jpeg.count - 2] == 0xFF, jpeg[jpeg.count - 1] == 0xD9 else {
            throw PhotoError.encodingFailed("a strip is not a complete JPEG stream")
        }
        var at = 2
        var sofHeight: Int?
        while at + 4 <= jpeg.count {
            guard jpeg[at] == 0xFF else { throw PhotoError.encodingFailed("a strip's header has no marker at byte \(at)") }
            let marker = jpeg[at + 1]
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            let end = at + 2 + length
            guard length >= 2, end <= jpeg.count else { throw PhotoError.encodingFailed("a strip's segment runs past its end") }
            switch marker {
            case 0xC0:
                sofHeight = at + 5  // FF C0, length (2), precision (1), then height (2)
            case 0xC1...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                throw PhotoError.encodingFailed("strips must be baseline JPEG, got SOF marker \(marker)")
            case 0xDD:
                throw PhotoError.encodingFailed("a strip already has restart markers")
            case 0xDA:
                guard let sofHeight else { throw PhotoError.encodingFailed("a strip has no SOF0 segment") }
                return StripParts(header: jpeg[0..<end], sofHeightOffset: sofHeight,
                                  scan: jpeg[end..<(jpeg.count - 2)], sosOffset: at)
            default:
                break
            }
            at = end
        }
        throw PhotoError.encodingFailed("a strip has no SOS segment")
    }

    /// Adds the next strip, top to bottom. Every strip's header must equal the first one's but for the height.
    mutating func append(_ jpeg: [UInt8]) throws {
        let strip = try Self.parts(of: jpeg)
        if header.isEmpty {
            header = Array(strip.header)
            sofHeightOffset = strip.sofHeightOffset
            sosOffset = strip.sosOffset
        } else {
            var normalised = Array(strip.header)
            normalised[strip.sofHeightOffset] = header[strip.sofHeightOffset]
            normalised[strip.sofHeightOffset + 1] = header[strip.sofHeightOffset + 1]
            guard normalised == header else {
                throw PhotoError.encodingFailed("strips were encoded with different tables")
            }
        }
        scans.append(strip.scan)
    }

    /// The joined JPEG of an image `height` pixels tall.
    func joined(height: Int) throws -> [UInt8] {
        guard !scans.isEmpty else { throw PhotoError.encodingFailed("no strips to join") }
        guard (1...65_535).contains(restartInterval), (1...65_535).contains(height) else {
            throw PhotoError.encodingFailed("restart interval \(restartInterval) or height \(height) does not fit a JPEG")
        }
        var out: [UInt8] = []
        out.reserveCapacity(header.count + 6 + scans.reduce(0) { $0 + $1.count + 2 } + 2)
        out += header[0..<sosOffset]
        out[sofHeightOffset] = UInt8(height >> 8)
        out[sofHeightOffset + 1] = UInt8(height & 0xFF)
        out += [0xFF, 0xDD, 0x00, 0x04, UInt8(restartInterval >> 8), UInt8(restartInterval & 0xFF)]
        out += header[sosOffset...]
        for (k, scan) in scans.enumerated() {
            if k > 0 { out += [0xFF, 0xD0 + UInt8((k - 1) % 8)] }
            out += scan
        }
        out += [0xFF, 0xD9]
        return out
    }
}
