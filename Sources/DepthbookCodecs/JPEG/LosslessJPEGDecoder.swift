import DepthbookEngine

/// Samples of a lossless JPEG, as stored: `components` interleaved unsigned integers of `precision` bits.
struct LosslessJPEGImage: Sendable, Equatable {
    let width: Int
    let height: Int
    let components: Int
    /// Bits per sample, 2...16, as the frame header states (the point transform's dropped bits included).
    let precision: Int
    let samples: [UInt16]

    /// The largest value a sample can hold.
    var maxValue: Int { (1 << precision) - 1 }

    /// One component's samples, in raster order.
    func component(_ c: Int) -> [UInt16] {
        if components == 1 { return samples }
        return stride(from: c, to: samples.count, by: components).map { samples[$0] }
    }

    /// The first component as 0...1 (value / `maxValue`), the way a grey depth map is read.
    func firstComponentUnit() -> FloatPlane {
        let scale = 1 / Float(maxValue)
        let values = component(0).map { Float($0) * scale }
        return FloatPlane(width: width, height: height, channels: 1, samples: values)
    }
}

/// A decoder for lossless JPEG (ITU-T T.81 Annex H, the SOF3 process), which libjpeg-turbo 2.1 cannot read.
///
/// Apple keeps unfiltered depth, holes and all, in 16-bit lossless JPEG (the 2017 depth capture talk), and
/// other tools write depth maps the same way. What is decoded: Huffman-coded SOF3 frames of 2 to 16 bits,
/// one to four components at full resolution (sampling factors 1×1), interleaved or one scan per component,
/// predictors 1–7, the point transform, and restart intervals. Hierarchical, arithmetic-coded and
/// subsampled files are refused with `unsupportedFormat`.
///
/// Everything comes from untrusted files: each segment length is checked against the bytes present, the
/// frame size against `DecodeLimits` before the samples are allocated, Huffman tables against the code
/// space they claim, and the entropy-coded data may end anywhere (`truncated`), never reading past it.
enum LosslessJPEGDecoder {
    /// Whether `stream` is a JPEG whose frame header is SOF3 (lossless, Huffman).
    static func isLossless(_ stream: [UInt8]) -> Bool {
        (try? frameMarker(stream)) == 0xC3
    }

    /// The marker of the first frame header (SOF0...SOF15) before the first scan, or nil when there is none.
    static func frameMarker(_ stream: [UInt8]) throws -> UInt8? {
        var walker = MarkerWalker(bytes: stream)
        try walker.expectStart()
        while let (marker, _) = try walker.nextSegment() {
            if isFrameMarker(marker) { return marker }
            if marker == 0xDA { return nil }
        }
        return nil
    }

    /// Decodes a whole lossless JPEG stream.
    ///
    /// - Parameters:
    ///   - stream: the JPEG from its SOI marker.
    ///   - limits: the pixel limit the frame must fit (checked before any allocation).
    ///   - what: names the image in error messages ("the depth map").
    static func decode(_ stream: [UInt8], limits: DecodeLimits, what: String) throws -> LosslessJPEGImage {
        var state = DecoderState(what: what)
        var walker = MarkerWalker(bytes: stream)
        try walker.expectStart()
        while true {
            guard let (marker, payload) = try walker.nextSegment() else {
                // The stream ended without EOI: fine once every component has been decoded.
                if !state.hasFrame { throw PhotoError.truncated("\(what) ends before its frame header") }
                break
            }
            switch marker {
            case 0xD9:  // EOI
                return try state.finish()
            case 0xC4:
                try state.defineHuffmanTables(stream[payload])
            case 0xDD:
                try state.defineRestartInterval(stream[payload])
            case 0xC3:
                try state.readFrame(stream[payload], limits: limits)
            case 0xC0, 0xC1, 0xC2, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
                throw PhotoError.unsupportedFormat("\(what) is not a lossless JPEG (frame marker 0x\(hex(marker)))")
            case 0xCC:
                throw PhotoError.unsupportedFormat("\(what) uses arithmetic coding")
            case 0xDC:
                throw PhotoError.unsupportedFormat("\(what) states its height after the scan (DNL)")
            case 0xDE, 0xDF:
                throw PhotoError.unsupportedFormat("\(what) is a hierarchical JPEG")
            case 0xDA:
                let end = try state.decodeScan(header: stream[payload], bytes: stream, from: payload.upperBound)
                walker.position = end
            default:
                break  // APPn, COM, DQT and others carry nothing the samples need.
            }
        }
        return try state.finish()
    }

    static func isFrameMarker(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    static func hex(_ v: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(v >> 4)], digits[Int(v & 0xF)]])
    }
}

/// Tables, frame and samples as the segments arrive.
private struct DecoderState {
    struct Component {
        let id: UInt8
        var decoded = false
    }

    let what: String
    var tables: [HuffmanLookup?] = [nil, nil, nil, nil]
    /// Huffman tables defined so far: each costs a 128 KiB lookup, so a file may not define thousands.
    var tableDefinitions = 0
    var restartInterval = 0
    var width = 0
    var height = 0
    var precision = 0
    var components: [Component] = []
    var samples: [UInt16] = []

    init(what: String) { self.what = what }

    var hasFrame: Bool { !components.isEmpty }

    mutating func defineHuffmanTables(_ payload: ArraySlice<UInt8>) throws {
        var i = payload.startIndex
        while i < payload.endIndex {
            let tcth = payload[i]
            let tableClass = tcth >> 4, slot = Int(tcth & 0x0F)
            guard tableClass <= 1, slot <= 3 else { throw PhotoError.corrupt("\(what) defines Huffman table \(tcth >> 4)/\(slot)") }
            guard i + 17 <= payload.endIndex else { throw PhotoError.truncated("\(what): a Huffman table is cut short") }
            let counts = payload[(i + 1)..<(i + 17)]
            let total = counts.reduce(0) { $0 + Int($1) }
            guard total <= 256 else { throw PhotoError.corrupt("\(what) has a Huffman table of \(total) codes") }
            guard i + 17 + total <= payload.endIndex else { throw PhotoError.truncated("\(what): a Huffman table is cut short") }
            let values = payload[(i + 17)..<(i + 17 + total)]
            // Lossless scans use only the DC class; AC tables are accepted and ignored.
            if tableClass == 0 {
                tableDefinitions += 1
                guard tableDefinitions <= 32 else { throw PhotoError.corrupt("\(what) defines more than 32 Huffman tables") }
                tables[slot] = try HuffmanLookup(counts: counts, values: values, what: what)
            }
            i += 17 + total
        }
    }

    mutating func defineRestartInterval(_ payload: ArraySlice<UInt8>) throws {
        guard payload.count == 2 else { throw PhotoError.corrupt("\(what) has a restart interval segment of \(payload.count) bytes") }
        restartInterval = Int(payload[payload.startIndex]) << 8 | Int(payload[payload.startIndex + 1])
    }

    mutating func readFrame(_ payload: ArraySlice<UInt8>, limits: DecodeLimits) throws {
        guard components.isEmpty else { throw PhotoError.corrupt("\(what) has two frame headers") }
        guard payload.count >= 6 else { throw PhotoError.truncated("\(what): the frame header is cut short") }
        let p = payload.startIndex
        precision = Int(payload[p])
        height = Int(payload[p + 1]) << 8 | Int(payload[p + 2])
        width = Int(payload[p + 3]) << 8 | Int(payload[p + 4])
        let count = Int(payload[p + 5])
        guard (2...16).contains(precision) else { throw PhotoError.corrupt("\(what) has \(precision)-bit samples (lossless JPEG allows 2 to 16)") }
        guard height > 0 else { throw PhotoError.unsupportedFormat("\(what) states its height after the scan (DNL)") }
        guard (1...4).contains(count) else { throw PhotoError.corrupt("\(what) has \(count) components") }
        guard payload.count == 6 + 3 * count else {
            throw PhotoError.corrupt("\(what) has a frame header of \(payload.count) bytes for \(count) components")
        }
        try limits.check(width: width, height: height, what: what)
        for k in 0..<count {
            let id = payload[p + 6 + 3 * k], sampling = payload[p + 7 + 3 * k]
            guard !components.contains(where: { $0.id == id }) else { throw PhotoError.corrupt("\(what) lists component \(id) twice") }
            guard sampling == 0x11 else {
                throw PhotoError.unsupportedFormat("\(what) has subsampled components (sampling \(sampling >> 4)×\(sampling & 0xF))")
            }
            components.append(Component(id: id))
        }
        samples = [UInt16](repeating: 0, count: width * height * count)
    }

    /// Decodes one scan whose entropy-coded data starts at `start`; returns where the next marker starts.
    mutating func decodeScan(header: ArraySlice<UInt8>, bytes: [UInt8], from start: Int) throws -> Int {
        guard !components.isEmpty else { throw PhotoError.corrupt("\(what) has a scan before its frame header") }
        guard let first = header.first else { throw PhotoError.truncated("\(what): the scan header is cut short") }
        let count = Int(first)
        guard (1...components.count).contains(count), header.count == 4 + 2 * count else {
            throw PhotoError.corrupt("\(what) has a scan header of \(header.count) bytes for \(count) components")
        }
        var scanComponents: [(index: Int, table: HuffmanLookup)] = []
        let h = header.startIndex
        for k in 0..<count {
            let id = header[h + 1 + 2 * k], selector = Int(header[h + 2 + 2 * k] >> 4)
            guard let index = components.firstIndex(where: { $0.id == id }) else {
                throw PhotoError.corrupt("\(what) has a scan of component \(id), which its frame does not list")
            }
            guard !components[index].decoded, !scanComponents.contains(where: { $0.index == index }) else {
                throw PhotoError.corrupt("\(what) codes component \(id) twice")
            }
            guard selector <= 3, let table = tables[selector] else {
                throw PhotoError.corrupt("\(what) uses Huffman table \(selector), which it never defines")
            }
            scanComponents.append((index, table))
        }
        let predictor = Int(header[h + 1 + 2 * count])
        let end = header[h + 2 + 2 * count], approximation = header[h + 3 + 2 * count]
        let pointTransform = Int(approximation & 0x0F)
        guard (1...7).contains(predictor) else { throw PhotoError.corrupt("\(what) uses predictor \(predictor) (1 to 7 exist)") }
        guard end == 0, approximation >> 4 == 0 else { throw PhotoError.corrupt("\(what) has a lossless scan with spectral or successive bits set") }
        guard pointTransform < precision else {
            throw PhotoError.corrupt("\(what) drops \(pointTransform) of its \(precision) bits (point transform)")
        }

        var reader = BitReader(bytes: bytes, position: start, what: what)
        let geometry = ScanGeometry(width: width, height: height, channels: components.count, precision: precision,
                                    predictor: predictor, pointTransform: pointTransform, restartInterval: restartInterval)
        try Self.decodeSamples(&reader, into: &samples, geometry, scanComponents.map(\.index), scanComponents.map(\.table), what: what)
        for (index, _) in scanComponents { components[index].decoded = true }
        return reader.endOfScan
    }

    struct ScanGeometry {
        let width, height, channels, precision, predictor, pointTransform, restartInterval: Int
    }

    /// Undoes the prediction sample by sample (T.81 H.1.2.1), in raster order of the scan's MCUs.
    private static func decodeSamples(_ reader: inout BitReader, into samples: inout [UInt16], _ g: ScanGeometry,
                                      _ indices: [Int], _ tables: [HuffmanLookup], what: String) throws {
        let width = g.width, height = g.height, channels = g.channels, predictor = g.predictor, pointTransform = g.pointTransform
        let reduced = g.precision - pointTransform
        let mask = (1 << reduced) - 1
        let initial = 1 << (reduced - 1)
        let interval = g.restartInterval
        var restarts = 0
        var untilRestart = interval
        // The line that starts the scan or a restart interval, and the column where it starts: there, the
        // first sample is predicted by `initial` and the rest of that line by the sample to its left.
        var firstLineRow = 0, firstLineColumn = 0
        try samples.withUnsafeMutableBufferPointer { out in
            for row in 0..<height {
                for column in 0..<width {
                    if interval > 0 {
                        if untilRestart == 0 {
                            try reader.restart(expected: restarts)
                            restarts += 1
                            untilRestart = interval
                            firstLineRow = row
                            firstLineColumn = column
                        }
                        untilRestart -= 1
                    }
                    let here = (row * width + column) * channels
                    for (k, c) in indices.enumerated() {
                        // The difference: a Huffman-coded category, then that many bits.
                        let look = reader.peek16()
                        let entry = Int(tables[k].entries[look])
                        let length = entry >> 8
                        guard length > 0 else {
                            if reader.isExhausted { throw PhotoError.truncated("\(what): the compressed data stops early") }
                            throw PhotoError.corrupt("\(what): the compressed data has an invalid Huffman code")
                        }
                        try reader.skip(length)
                        let category = entry & 0xFF
                        var difference = 0
                        if category == 16 {
                            difference = 32768
                        } else if category > 0 {
                            let v = try reader.bits(category)
                            difference = v < (1 << (category - 1)) ? v - (1 << category) + 1 : v
                        }

                        let prediction: Int
                        let left = here - channels + c, above = here - width * channels + c
                        if row == firstLineRow, column >= firstLineColumn {
                            prediction = column == firstLineColumn ? initial : Int(out[left])
                        } else if column == 0 {
                            prediction = Int(out[above])
                        } else {
                            let a = Int(out[left]), b = Int(out[above]), d = Int(out[above - channels])
                            switch predictor {
                            case 1: prediction = a
                            case 2: prediction = b
                            case 3: prediction = d
                            case 4: prediction = a + b - d
                            case 5: prediction = a + ((b - d) >> 1)
                            case 6: prediction = b + ((a - d) >> 1)
                            default: prediction = (a + b) >> 1
                            }
                        }
                        // Modulo 2^16 as the standard says, then within the stated precision.
                        out[here + c] = UInt16(((prediction + difference) & 0xFFFF) & mask)
                    }
                }
            }
        }
        if pointTransform > 0 {
            // Only this scan's components: another scan may have used another point transform.
            for i in stride(from: 0, to: samples.count, by: channels) {
                for c in indices { samples[i + c] <<= UInt16(pointTransform) }
            }
        }
    }

    func finish() throws -> LosslessJPEGImage {
        guard !components.isEmpty else { throw PhotoError.corrupt("\(what) has no frame header") }
        if let missing = components.first(where: { !$0.decoded }) {
            throw PhotoError.truncated("\(what) ends before the scan of component \(missing.id)")
        }
        return LosslessJPEGImage(width: width, height: height, components: components.count, precision: precision, samples: samples)
    }
}
