// `Locked`, the project's one lock type, lives in a target of its own so that code without pixels (the load test)
// can use it; the engine's clients see it as before.
@_exported import DepthbookSync
