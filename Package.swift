// swift-tools-version:6.0
import Foundation
import PackageDescription

/// poppler-glib's header paths, from `pkg-config --cflags` (the packages Scripts/setup.sh
/// installs), without its libraries. The toolkit loads poppler-glib at run time, on first use
/// (Sources/CPoppler/shim.h), so that the forty libraries it brings do not slow the start of
/// every command; a `pkgConfig:` target would link them all into every program.
let popplerHeaderFlags: [String] = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags", "poppler-glib"]
    let output = Pipe()
    process.standardOutput = output
    guard (try? process.run()) != nil else { return [] }
    let flags = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return flags.split(whereSeparator: \.isWhitespace).flatMap { ["-Xcc", String($0)] }
}()

/// How `yiana` is linked, and `yiana-bench` like it (its measurements are then the shipped
/// program's). On Linux:
/// - against mimalloc (libmimalloc-dev), which then serves every malloc of the process,
///   poppler's included (`index --full` takes 6–7% less time than with glibc's allocator);
/// - without exporting its own symbols for the dynamic linker (Swift links executables with
///   `-rdynamic`; nothing loads code that calls back into them): 3.3 MB of symbol table
///   fewer to look through and to keep in memory (peak RSS of a minute of the reader fuzzer
///   65.6 → 62.0 MB).
let productLinking: [LinkerSetting] = [
    .linkedLibrary("mimalloc", .when(platforms: [.linux])),
    .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux])),
]

let package = Package(
    name: "yiana-tools",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "yiana", targets: ["yiana"]),
        .library(name: "YianaArchive", targets: ["YianaArchive"]),
        .library(name: "YianaPDF", targets: ["YianaPDF"]),
        .library(name: "YianaLibrary", targets: ["YianaLibrary"]),
        .library(name: "YianaSearch", targets: ["YianaSearch"]),
        .library(name: "YianaSync", targets: ["YianaSync"]),
        .library(name: "YianaOCR", targets: ["YianaOCR"]),
        .library(name: "YianaExtract", targets: ["YianaExtract"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Hummingbird's own: a page's event stream ends when the server shuts down gracefully.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C libraries, each imported by exactly one Swift module.
        // libzip is loaded at run time, on first use (see its shim.h): headers only here.
        .systemLibrary(name: "CZip", providers: [.apt(["libzip-dev"]), .brew(["libzip"])]),
        // Loaded at run time by `yiana ocr` only (see their shim.h): headers only here.
        .systemLibrary(name: "CTesseract", providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]),
        .systemLibrary(name: "CQPDF", providers: [.apt(["libqpdf-dev"])]),
        // Loaded when `yiana serve` first encodes a scanned page as JPEG (see its shim.h): headers only here.
        .systemLibrary(name: "CTurboJPEG", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(
            name: "CPoppler",
            providers: [.apt(["libpoppler-glib-dev"]), .brew(["poppler"])]
        ),

        // The toolkit's own C: the CRC-32 folding and the Linux calls Swift's Glibc lacks.
        .target(name: "CYiana", linkerSettings: [.linkedLibrary("z")]),

        // The one system layer: every system call of every module, and the one crash-safe
        // replace (TemporaryFile). Nothing above it imports Glibc.
        .target(name: "YianaSystem", dependencies: ["CYiana"]),
        .target(
            name: "YianaArchive",
            dependencies: ["CZip", "YianaSystem", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // PDFs: facts and text on poppler, new PDFs from pages on qpdf (both loaded on first use).
        .target(name: "YianaPDF", dependencies: ["CPoppler", "CQPDF", "CTurboJPEG", "YianaSystem"], swiftSettings: [.unsafeFlags(popplerHeaderFlags)]),
        // The one way to SQLite (on GRDB, which no other module imports): databases, their
        // connections, statements, rows, transactions and migrations, for the modules that
        // keep one (the keeper's catalog, the search index).
        .target(name: "YianaSQLite", dependencies: [.product(name: "GRDB", package: "GRDB.swift")]),
        // A folder of documents: the library, its one scanner and items, documents still
        // arriving or evicted, naming, the app's companion files, this machine's state files.
        .target(name: "YianaFolder", dependencies: ["YianaSystem", "YianaArchive", "YianaPDF", .product(name: "Crypto", package: "swift-crypto")]),
        // Where a document's history is kept: the shared version store (synced), this
        // machine's keeper (its journal and catalog), and restic's repository off the machine.
        .target(
            name: "YianaHistory",
            dependencies: ["YianaSystem", "YianaArchive", "YianaFolder", "YianaSQLite", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // What works on a library's documents, keeping first: import, verify and repair,
        // edit, rename, move and delete, append and inject. It brings YianaFolder and
        // YianaHistory with it (Exports.swift), so that a module importing it sees the library whole.
        .target(
            name: "YianaLibrary",
            dependencies: [
                "YianaSystem", "YianaArchive", "YianaPDF", "YianaFolder", "YianaHistory",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The register of people (issue 77): who the library is about, each person once by
        // rules a clinician signs, from the documents' names and address files.
        .target(name: "YianaPeople", dependencies: ["YianaSystem", "YianaArchive", "YianaLibrary", "YianaExtract"]),
        .target(name: "YianaSearch", dependencies: ["YianaSystem", "YianaLibrary", "YianaArchive", "YianaPDF", "YianaSQLite", "YianaPeople"]),
        .target(name: "YianaOCR", dependencies: ["CTesseract", "YianaSystem", "YianaArchive", "YianaPDF", "YianaLibrary"]),
        .target(name: "YianaSync", dependencies: ["YianaSystem", "YianaLibrary", "YianaArchive", "YianaPDF"]),
        // `yiana extract`: the people on each page, as the app's extraction cascade finds them,
        // written as its address files. The postcode sector table is data read at run time.
        .target(
            name: "YianaExtract",
            dependencies: ["YianaSystem", "YianaArchive", "YianaPDF", "YianaLibrary"],
            resources: [.copy("Data/postcode-sectors.tsv")]
        ),
        // The search index on a PostgreSQL server (issue 34): where it is (postgres:// URLs,
        // ~/.pgpass, sslmode), connecting with a timeout and errors that name the server, the
        // schema's migrations. On postgres-nio; no psql, no libpq.
        .target(name: "YianaPostgres", dependencies: [
            "YianaSystem", "YianaLibrary", "YianaSearch", "YianaPeople",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // `yiana watch`: inotify, passes of the index/OCR/conflict work, the event log and health.
        // The version of this build, from git (Scripts/version.sh, run by the plugin at every build).
        .plugin(name: "YianaVersionPlugin", capability: .buildTool(), path: "Sources/YianaVersionPlugin"),
        .target(name: "YianaVersion", plugins: ["YianaVersionPlugin"]),
        // Telling the library's person: incidents told once through Debian's apprise, a
        // message that cannot be delivered kept and tried again (issue 55).
        .target(name: "YianaNotify", dependencies: [
            "YianaSystem", "YianaLibrary", .product(name: "Crypto", package: "swift-crypto"),
            // The heartbeat's one GET (plain or TLS): the NIO the server is built on already.
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        .target(name: "YianaWatch", dependencies: ["YianaVersion", "YianaSystem", "YianaArchive", "YianaLibrary", "YianaSearch", "YianaPostgres", "YianaSync", "YianaOCR", "YianaExtract",
                                                   "YianaNotify"]),
        // `yiana serve`: the pages and the JSON API on Hummingbird; routes parse and render,
        // the library modules do the work.
        .target(name: "YianaServe", dependencies: [
            "YianaLibrary", "YianaSearch", "YianaPostgres", "YianaWatch", "YianaSystem", "YianaSync", "YianaArchive", "YianaOCR", "YianaPDF", "YianaExtract",
            "YianaVersion",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Linked as `productLinking` says (mimalloc; glibc's allocator's tunables made no
        // difference: docs/PERFORMANCE.md).
        .executableTarget(
            name: "yiana",
            dependencies: [
                "YianaSystem", "YianaLibrary", "YianaArchive", "YianaPDF", "YianaSearch", "YianaPostgres", "YianaSync", "YianaOCR", "YianaWatch", "YianaServe",
                "YianaExtract", "YianaVersion", "YianaNotify", "YianaPeople",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            linkerSettings: productLinking
        ),
        // What tests and measures the product, apart from it (Tools/): no products of the
        // package, built only by the tests and scripts that use them, never by
        // `swift build --product yiana`. The crash and fault harness's LD_PRELOAD shim,
        // Tools/FaultShim/faultshim.c, is C that no Swift module links: the harness and the
        // tests compile it with the toolchain's clang when they need it (FaultShim in
        // YianaTestSupport).

        // Drives many concurrent writers/readers of one document; used by the
        // coordination test and by the soak scripts in Scripts/soak/.
        .executableTarget(name: "yiana-stress", dependencies: ["YianaSystem", "YianaArchive", "YianaLibrary"], path: "Tools/yiana-stress"),
        // The crash, fault and concurrency harness (Scripts/soak/crash-harness.sh; a short run in the tests).
        .executableTarget(
            name: "yiana-harness",
            dependencies: [
                "YianaSystem", "YianaLibrary", "YianaArchive", "YianaPDF", "YianaTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/yiana-harness"
        ),
        // The scenario under a real sync program (unison in the tests, Syncthing in
        // Scripts/soak/realsync-syncthing.sh): two devices, edits on both, resolve, converge.
        .executableTarget(
            name: "yiana-realsync",
            dependencies: [
                "YianaSystem", "YianaLibrary", "YianaPostgres", "YianaTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tools/yiana-realsync"
        ),
        // In-process measurements for the benchmark scripts (search latency) and the
        // reader/repair fuzzer (Scripts/soak/fuzz-reader.sh; a short run in the tests).
        // Linked as `yiana` is: the fuzzer's peak memory is then the shipped program's (under
        // glibc's allocator, thousands of inputs in one process fragment its heap: 1.6 GB
        // after 600 s, where mimalloc stays flat).
        .executableTarget(name: "yiana-bench", dependencies: ["YianaSystem", "YianaSearch", "YianaLibrary", "YianaArchive", "YianaExtract", "YianaTestSupport"],
                          path: "Tools/yiana-bench", linkerSettings: productLinking),

        // Temporary folders, fixtures and process helpers shared by the test targets.
        .target(name: "YianaTestSupport", dependencies: ["YianaPDF", "YianaSystem", "YianaLibrary", "YianaSearch", "YianaPostgres"], path: "Tests/YianaTestSupport"),
        .testTarget(name: "YianaSystemTests", dependencies: ["YianaSystem", "YianaTestSupport"]),
        .testTarget(
            name: "YianaArchiveTests",
            dependencies: ["YianaArchive", "YianaTestSupport", "yiana-stress", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "YianaPDFTests", dependencies: ["YianaPDF"]),
        .testTarget(name: "YianaSQLiteTests", dependencies: ["YianaSQLite", "YianaTestSupport"]),
        .testTarget(name: "YianaLibraryTests", dependencies: ["YianaLibrary", "YianaArchive", "YianaSQLite", "YianaTestSupport"]),
        .testTarget(name: "YianaSearchTests", dependencies: ["YianaSearch", "YianaPostgres", "YianaLibrary", "YianaArchive", "YianaSQLite", "YianaTestSupport",
                                                                .product(name: "PostgresNIO", package: "postgres-nio")]),
        .testTarget(name: "YianaOCRTests", dependencies: ["YianaOCR", "YianaLibrary", "YianaSync", "YianaArchive", "YianaPDF", "YianaSearch", "YianaTestSupport", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "YianaPostgresTests", dependencies: ["YianaPostgres", "YianaSearch", "YianaLibrary", "YianaArchive", "YianaSystem", "YianaTestSupport"]),
        .testTarget(name: "YianaExtractTests", dependencies: ["YianaExtract", "YianaLibrary", "YianaArchive", "YianaTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "YianaPeopleTests", dependencies: ["YianaPeople", "YianaSearch", "YianaLibrary", "YianaArchive", "YianaExtract", "YianaTestSupport"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "YianaNotifyTests", dependencies: ["YianaNotify", "YianaLibrary", "YianaTestSupport"]),
        .testTarget(name: "YianaSyncTests", dependencies: ["YianaSync", "YianaLibrary", "YianaArchive", "YianaTestSupport"]),
        .testTarget(name: "YianaCLITests", dependencies: ["yiana", "yiana-bench", "yiana-harness", "yiana-realsync", "YianaArchive", "YianaPostgres", "YianaSystem", "YianaTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// One build of the dependencies per test run, not two (Scripts/test.sh, docs/DEVELOPMENT.md):
// the suite is built for release, and the package's build reuses every dependency it compiled.
// Both switches below leave the dependencies' compilation exactly as a release build's.

/// `YIANA_TESTABLE=1`: this package's own modules compiled with `-enable-testing`, for the
/// suite's `@testable` imports in a release build (`swift test -c release`).
if ProcessInfo.processInfo.environment["YIANA_TESTABLE"] == "1" {
    for target in package.targets where target.type != .system && target.type != .plugin {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enable-testing"])]
    }
}

/// `YIANA_STATIC_RUNTIME=1` (Scripts/package.sh, install.sh, the benchmarks and soaks): the
/// programs linked with Swift's runtime and Foundation inside them, as `--static-swift-stdlib`
/// links them, asked of the link alone: that option also changes how every module is compiled.
/// Linked so, a program also needs the static Foundation's own libraries, which its modules
/// name only when compiled with the option (`swift-autolink-extract` on an object compiled each
/// way). Scripts/package.sh checks that `yiana` needs no Swift library, and the tests run it in
/// a fresh Debian root.
if ProcessInfo.processInfo.environment["YIANA_STATIC_RUNTIME"] == "1" {
    // Each before what it needs. FoundationNetworking's only for the tools (yiana-realsync asks
    // Syncthing's API over HTTP): `yiana` would otherwise be linked with libcurl it never uses.
    let foundationStatic = ["-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims", "-l_FoundationCollections"]
    let networkingStatic = ["-l_CFURLSessionInterface", "-lcurl"]
    for program in package.targets where program.type == .executable {
        let libraries = (program.name == "yiana" ? [] : networkingStatic) + foundationStatic
        program.linkerSettings = (program.linkerSettings ?? []) + [.unsafeFlags(["-static-stdlib"] + libraries, .when(platforms: [.linux]))]
    }
}
