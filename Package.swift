// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// One set of settings for every Swift target, so the whole package speaks the same dialect.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
] + vectorSettings

/// Release builds on x86-64 target Haswell-class processors (AVX2, 2013 on), so the engine's loops run 8 floats
/// wide instead of SSE2's 4. `DEPTHBOOK_PORTABLE=1` at build time keeps the generic x86-64 baseline.
var vectorSettings: [SwiftSetting] {
    #if arch(x86_64)
    let portable = ProcessInfo.processInfo.environment["DEPTHBOOK_PORTABLE"].map { !$0.isEmpty && $0 != "0" } ?? false
    if !portable {
        return [.unsafeFlags(["-target-cpu", "haswell"], .when(configuration: .release))]
    }
    #endif
    return []
}

let package = Package(
    name: "Depthbook",
    products: [
        .executable(name: "depthbook", targets: ["depthbook"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    ],
    targets: [
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // giflib has no pkg-config file: the module map links "gif" itself.
        .systemLibrary(name: "CGif", providers: [.apt(["libgif-dev"])]),
        // glibc's <malloc.h>: how much of the heap is free, and giving it back.
        .systemLibrary(name: "CMalloc"),
        // FFmpeg's libraries for H.264 in MP4; the module map links all four (one pkg-config name gives the headers).
        .systemLibrary(name: "CAVCodec", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libavutil-dev"])]),

        // dlib's frontal face detector (Debian's libdlib-dev; its BLAS and LAPACK linked as dlib's own build
        // expects) behind a small C interface.
        .target(
            name: "CDlibFaces",
            linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("lapack"), .linkedLibrary("blas")]
        ),
        // MODNet, a portrait matting network, run by OpenCV's DNN module (Debian's libopencv-dnn-dev) behind a
        // small C interface. Debian puts OpenCV's headers under opencv4/, which has no pkg-config module map.
        .target(
            name: "CPortraitMatte",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: [.linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]
        ),

        // `Locked`, the one lock type (see why not `Mutex` there): for the engine and for code without pixels.
        .target(name: "DepthbookSync", swiftSettings: swiftSettings),
        // Pure Swift: pixels, planes, the photo model, recipes and filters. No C, no I/O, no JSON.
        .target(name: "DepthbookEngine", dependencies: ["DepthbookSync"], swiftSettings: swiftSettings),
        // Files in and out: HEIC, JPEG (with MPF depth and mattes), PNG, XMP; bundled sample generation.
        .target(
            name: "DepthbookCodecs",
            dependencies: [
                "DepthbookEngine", "CHeif", "CTurboJPEG", "CPNG", "CGif", "CAVCodec", "CDlibFaces", "CPortraitMatte",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The studio's protocol facts, declared once: every bound (`Limits`, sent in `hello`) and the error codes.
        // No dependencies, so the effects, the server, the load test and the command all read the same values.
        .target(name: "DepthbookProtocol", swiftSettings: swiftSettings),
        // The notebook as a document: its cells, parameter values and JSON, decoded for their shape only. No
        // dependencies, so the messages, the frames and the load test carry notebooks without linking any pixels.
        .target(name: "DepthbookDocument", swiftSettings: swiftSettings),
        // Named effects of the talks, and `NotebookValidator`, which checks a document against them.
        .target(name: "DepthbookEffects", dependencies: ["DepthbookEngine", "DepthbookDocument", "DepthbookProtocol"],
                swiftSettings: swiftSettings),
        // The protocol's messages as typed values: every request, decoded by the server (the notebooks they carry
        // checked there), encoded by the load test (as a browser's page would send it).
        .target(name: "DepthbookMessages", dependencies: ["DepthbookDocument", "DepthbookProtocol"], swiftSettings: swiftSettings),
        // The studio: libwebsockets service thread, sessions, render pool, store.
        .target(
            name: "DepthbookServer",
            dependencies: [
                "DepthbookEngine", "DepthbookCodecs", "DepthbookDocument", "DepthbookEffects", "DepthbookFrames", "DepthbookProtocol",
                "DepthbookMessages", "CWebSockets", "CMalloc",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The binary frame layout (header and JPEG) the server sends and the load-test client reads.
        .target(name: "DepthbookFrames", dependencies: ["DepthbookDocument"], swiftSettings: swiftSettings),
        // `depthbook loadtest`: many studio pages over libwebsockets' client, timing what a person would see.
        // Apart from the server: it speaks the protocol from outside, as a browser does.
        .target(
            name: "DepthbookLoadtest",
            dependencies: ["DepthbookSync", "DepthbookDocument", "DepthbookFrames", "DepthbookProtocol", "DepthbookMessages", "CWebSockets"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "depthbook",
            dependencies: [
                "DepthbookEngine", "DepthbookCodecs", "DepthbookDocument", "DepthbookEffects", "DepthbookProtocol", "DepthbookServer",
                "DepthbookLoadtest", "DepthbookMessages",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Shared test helpers: photo locations, naive references, Python reference runner.
        .target(
            name: "DepthbookTestSupport",
            dependencies: ["DepthbookEngine"],
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "DepthbookEngineTests",
            dependencies: ["DepthbookEngine", "DepthbookTestSupport"],
            exclude: ["References"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepthbookCodecsTests",
            dependencies: ["DepthbookCodecs", "DepthbookEngine", "DepthbookTestSupport", "CAVCodec"],
            exclude: ["References"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepthbookEffectsTests",
            dependencies: ["DepthbookEffects", "DepthbookCodecs", "DepthbookDocument", "DepthbookEngine", "DepthbookProtocol",
                           "DepthbookTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "DepthbookServerTests",
            dependencies: ["DepthbookServer", "DepthbookLoadtest", "DepthbookFrames", "DepthbookCodecs", "DepthbookDocument", "DepthbookEffects",
                           "DepthbookProtocol", "DepthbookMessages",
                           "DepthbookTestSupport",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
    ],
    cxxLanguageStandard: .cxx17
)
