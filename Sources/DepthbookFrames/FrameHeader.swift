import DepthbookDocument
import Foundation

/// What a binary frame carries before its JPEG bytes (see "Binary frames" in `docs/protocol.md`).
public struct FrameHeader: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case preview, crop }

    public var cell: String
    public var seq: Int
    public var kind: Kind
    public var width: Int
    public var height: Int
    public var coarse: Bool
    public var renderMs: Double
    public var cacheHits: Int
    public var cacheMisses: Int
    /// Values picked from the photo for parameters the cell leaves out (absent when none).
    public var chosen: [String: ParameterValue]?
    /// Notes about how the photo was handled, e.g. a subject mask from depth standing in for a missing matte.
    public var notes: [String]?

    public init(cell: String, seq: Int, kind: Kind, width: Int, height: Int, coarse: Bool, renderMs: Double,
                cacheHits: Int, cacheMisses: Int) {
        self.cell = cell
        self.seq = seq
        self.kind = kind
        self.width = width
        self.height = height
        self.coarse = coarse
        self.renderMs = renderMs
        self.cacheHits = cacheHits
        self.cacheMisses = cacheMisses
    }
}

/// The binary frame layout: a 4-byte big-endian header length, the UTF-8 JSON header, then the JPEG bytes.
public enum BinaryFrame {
    public static func encode(header: FrameHeader, jpeg: [UInt8]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let json = (try? Array(encoder.encode(header))) ?? Array("{}".utf8)
        var out = [UInt8]()
        out.reserveCapacity(4 + json.count + jpeg.count)
        let n = UInt32(json.count)
        out += [UInt8(n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
        out += json
        out += jpeg
        return out
    }

    public enum DecodeError: Error, Equatable { case truncated, badHeader }

    /// Splits a frame back into header and payload (the load test and the tests read frames this way).
    public static func decode(_ bytes: [UInt8]) throws -> (header: FrameHeader, payload: ArraySlice<UInt8>) {
        guard bytes.count >= 4 else { throw DecodeError.truncated }
        let n = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard bytes.count >= 4 + n else { throw DecodeError.truncated }
        guard let header = try? JSONDecoder().decode(FrameHeader.self, from: Data(bytes[4..<(4 + n)])) else {
            throw DecodeError.badHeader
        }
        return (header, bytes[(4 + n)...])
    }
}
