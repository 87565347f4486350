import DepthbookDocument
import DepthbookEffects
import DepthbookEngine

/// The tests build notebooks by hand: these check one as it would be checked coming in (`NotebookValidator`), then
/// render the checked notebook, as the studio and the command line do.
extension NotebookRenderer {
    func render(notebook: Notebook, cell: String, request: CellRenderRequest,
                isCancelled: @escaping @Sendable () -> Bool = { false }, cache: RenderCache? = nil) throws -> RenderedCell {
        try render(notebook: NotebookValidator().check(notebook), cell: cell, request: request, isCancelled: isCancelled, cache: cache)
    }

    func recipe(notebook: Notebook, cell: String) throws -> Node {
        try recipe(notebook: NotebookValidator().check(notebook), cell: cell)
    }

    func frames(notebook: Notebook, cell: String, width: Int, count: Int,
                isCancelled: @escaping @Sendable () -> Bool = { false }, frameDone: (Int) -> Void = { _ in }) throws -> [RGBImage8] {
        try frames(notebook: NotebookValidator().check(notebook), cell: cell, width: width, count: count,
                   isCancelled: isCancelled, frameDone: frameDone)
    }

    func loopFrame(notebook: Notebook, cell: String, width: Int, count: Int, index frame: Int,
                   isCancelled: @escaping @Sendable () -> Bool = { false }, cache: RenderCache? = nil) throws -> RGBImage8 {
        try loopFrame(notebook: NotebookValidator().check(notebook), cell: cell, width: width, count: count, index: frame,
                      isCancelled: isCancelled, cache: cache)
    }

    func histogram(notebook: Notebook, reference: String, bins: Int,
                   isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> CellHistogram {
        try histogram(notebook: NotebookValidator().check(notebook), reference: reference, bins: bins, isCancelled: isCancelled)
    }

    func exportedPhoto(notebook: Notebook, cell: String,
                       isCancelled: @escaping @Sendable () -> Bool = { false }) throws -> ExportedPhoto {
        try exportedPhoto(notebook: NotebookValidator().check(notebook), cell: cell, isCancelled: isCancelled)
    }
}
