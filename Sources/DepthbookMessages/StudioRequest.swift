import DepthbookDocument
import DepthbookProtocol
import Foundation

/// The `id` and `type` every request carries, read before the rest so even a malformed request gets a reply
/// with its id.
struct RequestEnvelope: Decodable {
    var id: Int?
    var type: String?

    enum CodingKeys: String, CodingKey { case id, type }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // An id that is not a positive integer is answered as `null` rather than guessed at. Ids, like sequence
        // numbers, stay within JSON's exact integers.
        if let value = try? c.decodeIfPresent(JSONValue.self, forKey: .id), case .number(let n) = value,
            n >= 1, n <= Double(Limits.studio.maxSeq), n.rounded() == n
        {
            id = Int(n)
        } else {
            id = nil
        }
        type = try? c.decodeIfPresent(String.self, forKey: .type)
    }
}

/// Every request of studio protocol version 1, typed: decoded and checked by the server (`RequestDecoder`),
/// encoded by a client (`message(id:)`). Unknown fields are ignored by construction.
public enum StudioRequest: Sendable, Equatable {
    case hello(Hello)
    case listSamples
    case listNotebooks
    case effects
    case openNotebook(OpenNotebook)
    case openPhoto(OpenPhoto)
    case setNotebook(SetNotebook)
    case setParams(SetParams)
    case preview(Preview)
    case crop(Crop)
    case histogram(Histogram)
    case save
    case export(Export)
    case checkFormula(CheckFormula)

    public struct Hello: Sendable, Equatable, Codable {
        public var `protocol`: Int
        /// The session to take back as its editor, with the `resume` key its hello gave: the id alone (which
        /// watch links carry) never grants editing.
        public var session: String?
        public var resume: String?
        public var watch: String?
        /// The protocol version this build speaks.
        public static let version = 1

        public init(protocol version: Int = Hello.version, session: String? = nil, resume: String? = nil, watch: String? = nil) {
            self.protocol = version
            self.session = session
            self.resume = resume
            self.watch = watch
        }
    }
    public struct OpenNotebook: Sendable, Equatable, Codable {
        public var name: String?
        public var shared: String?
        public init(name: String? = nil, shared: String? = nil) {
            self.name = name
            self.shared = shared
        }
    }
    public struct OpenPhoto: Sendable, Equatable, Codable {
        public var photo: PhotoReference
        public init(photo: PhotoReference) { self.photo = photo }
    }
    public struct SetNotebook: Sendable, Equatable, Codable {
        public var notebook: Notebook
        public init(notebook: Notebook) { self.notebook = notebook }
    }
    public struct SetParams: Sendable, Equatable, Codable {
        public var cell: String
        public var params: [String: ParameterValue]
        /// Parameters to leave out again (the effect's default, or the value it picks from the photo).
        public var unset: [String]?
        public var seq: Int
        public var interactive: Bool?
        /// Cells below that the page does not show now (scrolled away): an interactive change leaves them
        /// out; the change that ends the drag renders them too, after every frame in view (anyone's).
        public var offscreen: [String]?
        public init(cell: String, params: [String: ParameterValue], unset: [String]? = nil, seq: Int, interactive: Bool? = nil,
                    offscreen: [String]? = nil) {
            self.cell = cell
            self.params = params
            self.unset = unset
            self.seq = seq
            self.interactive = interactive
            self.offscreen = offscreen
        }
    }
    public struct Preview: Sendable, Equatable, Codable {
        public var cell: String
        public var width: Int
        public var seq: Int
        public var interactive: Bool?
        public init(cell: String, width: Int, seq: Int, interactive: Bool? = nil) {
            self.cell = cell
            self.width = width
            self.seq = seq
            self.interactive = interactive
        }
    }
    public struct Crop: Sendable, Equatable, Codable {
        public var cell: String
        public var x: Int
        public var y: Int
        public var w: Int
        public var h: Int
        public var seq: Int
        public init(cell: String, x: Int, y: Int, w: Int, h: Int, seq: Int) {
            (self.cell, self.x, self.y, self.w, self.h, self.seq) = (cell, x, y, w, h, seq)
        }
    }
    /// A formula line as typed, checked against the session's notebook: its sliders or its error and position.
    public struct CheckFormula: Sendable, Equatable, Codable {
        public var formula: String
        /// The cell the line is for (it may read the cells above it); absent for a cell added at the end.
        public var cell: String?
        public init(formula: String, cell: String? = nil) {
            self.formula = formula
            self.cell = cell
        }
    }
    public struct Histogram: Sendable, Equatable, Codable {
        public var cell: String
        public var bins: Int
        public init(cell: String, bins: Int) {
            self.cell = cell
            self.bins = bins
        }
    }
    public struct Export: Sendable, Equatable, Codable {
        public var cell: String
        public var format: ExportFormat
        /// GIF only: frames in the loop and the frame width (the height keeps the photo's aspect ratio).
        public var frames: Int?
        public var width: Int?

        public init(cell: String, format: ExportFormat, frames: Int? = nil, width: Int? = nil) {
            self.cell = cell
            self.format = format
            self.frames = frames
            self.width = width
        }

        public var frameCount: Int { frames ?? Limits.studio.defaultExportFrames }
        public var frameWidth: Int { width ?? Limits.studio.defaultExportWidth }
    }
}

public enum ExportFormat: String, Sendable, Equatable, Codable, CaseIterable {
    case jpeg, png, gif, mp4
}

extension StudioRequest {
    /// What a client without the access token is told when it asks for something that needs it.
    public static let tokenNeeded = "sign in to edit or fork: this studio needs its access token for that (open the "
        + "studio's link with ?token=… from whoever runs it)"

    /// Every kind of request, by its `type` on the wire: the one place the names are spelled, with what each
    /// needs of the client.
    public enum Kind: String, Sendable, CaseIterable {
        case hello, listSamples, listNotebooks, effects, openNotebook, openPhoto, setNotebook, setParams, preview, crop
        case histogram, save, export, checkFormula

        /// Whether a client without the studio's access token is refused it (before its body is decoded). Without
        /// the token a page may open a notebook (a shared link or a bundled one, on the photo it names) and look.
        public var requiresToken: Bool {
            switch self {
            case .hello, .listSamples, .listNotebooks, .effects, .openNotebook, .preview, .crop, .histogram, .checkFormula: false
            case .openPhoto, .setNotebook, .setParams, .save, .export: true
            }
        }

        /// Whether it changes the session (refused to watchers).
        public var edits: Bool {
            switch self {
            case .hello, .listSamples, .listNotebooks, .effects, .histogram, .checkFormula: false
            case .openNotebook, .openPhoto, .setNotebook, .setParams, .preview, .crop, .save, .export: true
            }
        }
    }

    public var kind: Kind {
        switch self {
        case .hello: .hello
        case .listSamples: .listSamples
        case .listNotebooks: .listNotebooks
        case .effects: .effects
        case .openNotebook: .openNotebook
        case .openPhoto: .openPhoto
        case .setNotebook: .setNotebook
        case .setParams: .setParams
        case .preview: .preview
        case .crop: .crop
        case .histogram: .histogram
        case .save: .save
        case .export: .export
        case .checkFormula: .checkFormula
        }
    }

    /// The request's `type` on the wire.
    public var type: String { kind.rawValue }

    /// The text message that sends this request as `id`: `{"id": …, "type": …, …its fields}`.
    public func message(id: Int) throws -> String {
        String(decoding: try JSONEncoder().encode(Tagged(id: id, request: self)), as: UTF8.self)
    }

    /// The request's fields with its id and type beside them, in one JSON object.
    private struct Tagged: Encodable {
        let id: Int
        let request: StudioRequest

        enum Keys: String, CodingKey { case id, type }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(id, forKey: .id)
            try c.encode(request.type, forKey: .type)
            switch request {
            case .hello(let body): try body.encode(to: encoder)
            case .openNotebook(let body): try body.encode(to: encoder)
            case .openPhoto(let body): try body.encode(to: encoder)
            case .setNotebook(let body): try body.encode(to: encoder)
            case .setParams(let body): try body.encode(to: encoder)
            case .preview(let body): try body.encode(to: encoder)
            case .crop(let body): try body.encode(to: encoder)
            case .histogram(let body): try body.encode(to: encoder)
            case .export(let body): try body.encode(to: encoder)
            case .checkFormula(let body): try body.encode(to: encoder)
            case .listSamples, .listNotebooks, .effects, .save: break
            }
        }
    }
}

/// Turns one text message into a request, or the error its reply carries.
public enum RequestDecoder {
    /// The largest text message accepted; anything longer is answered with `too_large` unread.
    public static var maxMessageBytes: Int { Limits.studio.maxMessageBytes }

    /// The id to answer (nil when the message has none) and the decoded request or its error.
    /// `admits` says whether this client may make a request of that kind at all: one it may not is refused
    /// before its body is decoded (a client without the access token costs no more than its envelope).
    public static func decode(_ bytes: [UInt8], admits: (StudioRequest.Kind) -> Bool = { _ in true })
        -> (id: Int?, request: Result<StudioRequest, ProtocolError>)
    {
        let nesting = Limits.studio.notebook.maxJSONNesting
        guard JSONNesting.isWithinLimit(bytes) else {
            return (JSONNesting.topLevelInteger("id", in: bytes),
                    .failure(.badRequest("a request nests arrays and objects at most \(nesting) deep")))
        }
        let data = Data(bytes)
        let envelope: RequestEnvelope
        do {
            envelope = try JSONDecoder().decode(RequestEnvelope.self, from: data)
        } catch {
            return (nil, .failure(.badRequest("a request is a JSON object with \"id\" and \"type\"")))
        }
        guard let id = envelope.id else {
            return (nil, .failure(.badRequest("\"id\" must be a positive integer")))
        }
        guard let type = envelope.type else {
            return (id, .failure(.badRequest("\"type\" must be a string naming the request")))
        }
        guard let kind = StudioRequest.Kind(rawValue: type) else {
            return (id, .failure(ProtocolError(.unknownType, "unknown request type \"\(type)\"")))
        }
        guard admits(kind) else {
            return (id, .failure(.forbidden(StudioRequest.tokenNeeded)))
        }
        do {
            return (id, .success(try decode(kind, data: data)))
        } catch let error as ProtocolError {
            return (id, .failure(error))
        } catch {
            return (id, .failure(.badRequest("\(type): \(describe(error))")))
        }
    }

    private static func decode(_ kind: StudioRequest.Kind, data: Data) throws -> StudioRequest {
        let decoder = JSONDecoder()
        let limits = Limits.studio
        switch kind {
        case .hello:
            let hello = try decoder.decode(StudioRequest.Hello.self, from: data)
            guard hello.protocol == StudioRequest.Hello.version else {
                throw ProtocolError(.unsupported, "this server speaks protocol \(StudioRequest.Hello.version), not \(hello.protocol)")
            }
            return .hello(hello)
        case .listSamples: return .listSamples
        case .listNotebooks: return .listNotebooks
        case .effects: return .effects
        case .openNotebook:
            let open = try decoder.decode(StudioRequest.OpenNotebook.self, from: data)
            guard (open.name == nil) != (open.shared == nil) else {
                throw ProtocolError.badRequest("openNotebook needs exactly one of \"name\" (bundled) or \"shared\" (a saved id)")
            }
            return .openNotebook(open)
        case .openPhoto: return .openPhoto(try decoder.decode(StudioRequest.OpenPhoto.self, from: data))
        case .setNotebook: return .setNotebook(try decoder.decode(StudioRequest.SetNotebook.self, from: data))
        case .setParams:
            let set = try decoder.decode(StudioRequest.SetParams.self, from: data)
            try checkSeq(set.seq)
            guard set.params.count + (set.unset?.count ?? 0) <= limits.notebook.maxParamsPerCell else {
                throw ProtocolError.badRequest("setParams carries at most \(limits.notebook.maxParamsPerCell) parameters")
            }
            guard (set.offscreen?.count ?? 0) <= limits.notebook.maxCells else {
                throw ProtocolError.badRequest("setParams names at most \(limits.notebook.maxCells) cells off screen")
            }
            return .setParams(set)
        case .preview:
            let preview = try decoder.decode(StudioRequest.Preview.self, from: data)
            try checkSeq(preview.seq)
            try limits.check(preview.width, in: limits.previewWidth, "width", unit: " pixels")
            return .preview(preview)
        case .crop:
            let crop = try decoder.decode(StudioRequest.Crop.self, from: data)
            try checkSeq(crop.seq)
            try limits.check(crop.x, in: 0...limits.maxImageSide, "x")
            try limits.check(crop.y, in: 0...limits.maxImageSide, "y")
            guard crop.w >= 1, crop.h >= 1 else { throw ProtocolError.badRequest("crop needs w, h >= 1") }
            guard crop.w <= limits.maxCropSide, crop.h <= limits.maxCropSide else {
                throw ProtocolError(.tooLarge, "a crop is at most \(limits.maxCropSide)×\(limits.maxCropSide) pixels, not \(crop.w)×\(crop.h)")
            }
            return .crop(crop)
        case .histogram:
            let histogram = try decoder.decode(StudioRequest.Histogram.self, from: data)
            try limits.check(histogram.bins, in: limits.histogramBins, "bins")
            return .histogram(histogram)
        case .save: return .save
        case .checkFormula:
            let check = try decoder.decode(StudioRequest.CheckFormula.self, from: data)
            guard check.formula.utf8.count <= limits.notebook.maxFormulaLength else {
                throw ProtocolError(.tooLarge, "a formula is at most \(limits.notebook.maxFormulaLength) bytes")
            }
            return .checkFormula(check)
        case .export:
            let export = try decoder.decode(StudioRequest.Export.self, from: data)
            try limits.check(export.frameCount, in: limits.exportFrames, "frames")
            try limits.check(export.frameWidth, in: limits.exportWidth, "width", unit: " pixels")
            return .export(export)
        }
    }

    private static func checkSeq(_ seq: Int) throws {
        try Limits.studio.check(seq, in: 0...Limits.studio.maxSeq, "seq")
    }

    /// A decoding error in words a page author can act on: which field, and what was wrong with it.
    public static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let joined = keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return joined.isEmpty ? "the message" : "\"\(joined)\""
        }
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing field \(path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(path(context.codingPath)) has the wrong type"
        case DecodingError.dataCorrupted(let context):
            if let underlying = context.underlyingError as? NotebookError { return "\(underlying)" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        case let error as NotebookError:
            return "\(error)"
        default:
            return "\(error)"
        }
    }
}
