import ArgumentParser
import DepthbookCodecs
import DepthbookDocument
import DepthbookEffects
import DepthbookEngine
import DepthbookServer
import Foundation
import DepthbookProtocol

/// `depthbook render NOTEBOOK.json --photo FILE [--cell ID] [--width W] -o OUT.jpg`: a notebook cell, headless.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render one cell of a notebook over a photo to a JPEG, without the studio."
    )

    @Argument(help: "A notebook file (see docs/notebook-format.md), e.g. Notebooks/depth-threshold.json.")
    var notebook: String

    @Option(help: "The photo to render on (HEIC, JPEG or PNG); default: the photo the notebook opens on.")
    var photo: String?

    @Option(name: .customLong("depth"), help: "A separate depth map for --photo (JPEG or PNG).")
    var depthFile: String?

    @OptionGroup var depthPolarity: DepthPolarityFlags

    @OptionGroup var personMatte: PersonMatteFlag

    @Option(help: "The cell to render; default: the notebook's last cell that has an image.")
    var cell: String?

    @Option(help: "Output width in pixels; default: the photo's full width.")
    var width: Int?

    @Option(name: .shortAndLong, help: "Where to write the JPEG.")
    var output: String

    @Option(help: "The studio's uploads folder, for notebooks that name uploaded pictures (default: $DEPTHBOOK_DATA/uploads, else ./data/uploads).")
    var uploads: String?

    @Option(help: "JPEG quality, 1...100.")
    var quality: Int = 90

    func validate() throws {
        let widths = Limits.studio.renderWidth
        if let width, !widths.contains(width) { throw ValidationError("--width must be \(widths)") }
        if !(1...100).contains(quality) { throw ValidationError("--quality must be 1...100") }
    }

    func run() throws {
        // Which cell was being rendered, so a failure names it (a render over many photos and cells is a sweep).
        var rendering: String?
        do {
            let checked = try loadNotebook()
            let document = checked.notebook
            let picture = personMatte.applied(to: try loadPhoto(document), command: "render")
            guard let cellID = cell ?? document.cells.last(where: { $0.kind.rendersImage })?.id else {
                throw EffectError.badRequest("the notebook has no cell to render")
            }
            rendering = "\(document.name)/\(cellID)"
            let renderer = NotebookRenderer(photo: picture, uploads: try uploadFolder())
            let start = Date()
            let rendered = try renderer.render(notebook: checked, cell: cellID,
                                               request: CellRenderRequest(width: width ?? picture.width))
            let elapsed = Date().timeIntervalSince(start)
            let jpeg = try JPEGEncoder.encode(rendered.image, quality: quality, threads: RenderContext.defaultThreads)
            try Data(jpeg).write(to: URL(fileURLWithPath: output))
            print("\(document.name)/\(cellID): \(rendered.image.width)×\(rendered.image.height) \(rendered.kind.rawValue) in "
                + "\(Int(elapsed * 1000)) ms → \(output) (\(jpeg.count) bytes)")
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("depthbook render: \(rendering.map { "\($0): " } ?? "")\(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// The uploads folder when it exists (an absent default is not an error: most notebooks need none).
    private func uploadFolder() throws -> StoredUploads? {
        let data = ProcessInfo.processInfo.environment["DEPTHBOOK_DATA"] ?? "data"
        let folder = uploads ?? data + "/uploads"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            if uploads != nil { throw EffectError.badRequest("--uploads \(folder) is not a folder") }
            return nil
        }
        return StoredUploads(store: try UploadStore(directory: folder))
    }

    private func loadNotebook() throws -> CheckedNotebook {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: notebook)) } catch {
            throw EffectError.badRequest("cannot read the notebook \(notebook)")
        }
        let document: Notebook
        do { document = try JSONDecoder().decode(Notebook.self, from: data) } catch let error as NotebookError {
            throw error
        } catch {
            throw EffectError.badRequest("\(notebook) is not a notebook: \(error)")
        }
        return try NotebookValidator().check(document)
    }

    private func loadPhoto(_ document: Notebook) throws -> Photo {
        if let photo {
            return try PhotoReader.read(contentsOf: photo, depthMapPath: depthFile, polarity: depthPolarity.polarity)
        }
        switch document.photo {
        case .sample(let id):
            return try SampleLibrary.photo(id: id)
        case .path(let path):
            let base = URL(fileURLWithPath: notebook).deletingLastPathComponent()
            let resolved = path.hasPrefix("/") ? path : base.appendingPathComponent(path).path
            return try PhotoReader.read(contentsOf: resolved)
        case .upload:
            throw EffectError.badRequest("the notebook opens on an upload, which lives on the server: pass --photo FILE")
        }
    }
}
