import Foundation

/// The crash and fault harness's `LD_PRELOAD` shim (Tools/FaultShim/faultshim.c), compiled
/// on demand with the Swift toolchain's clang (else `cc`): it is C that no module links, so
/// it is no product of the package and `swift build` never builds it. The library goes
/// beside the built products and is compiled again only when the source is newer; two
/// processes that build it at once each write their own file and rename it into place.
public enum FaultShim {
    public static let source = Fixtures.packageRoot.appendingPathComponent("Tools/FaultShim/faultshim.c")

    public struct BuildError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The path of the built shim in `folder` (default: the built products' folder).
    public static func library(in folder: URL = Fixtures.productsFolder) throws -> URL {
        let library = folder.appendingPathComponent("libFaultShim.so")
        if let built = modified(library), let written = modified(source), built >= written { return library }
        guard let compiler = compiler() else {
            throw BuildError(description: "no C compiler to build \(source.path): install clang or gcc (the Swift toolchain ships clang)")
        }
        let partial = folder.appendingPathComponent(".libFaultShim.\(ProcessInfo.processInfo.processIdentifier).so")
        let run = try runProcess(compiler, ["-shared", "-fPIC", "-O2", "-Wall", "-o", partial.path, source.path, "-ldl"])
        guard run.status == 0 else {
            try? FileManager.default.removeItem(at: partial)
            throw BuildError(description: "\(compiler.path) could not build \(source.path):\n\(run.stderr)")
        }
        guard rename(partial.path, library.path) == 0 else {
            throw BuildError(description: "could not put \(library.path) in place (errno \(errno))")
        }
        return library
    }

    private static func modified(_ url: URL) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    }

    /// clang beside the running toolchain's swift on PATH first, then any clang or cc.
    private static func compiler() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["clang", "cc", "gcc"] {
            for folder in path.split(separator: ":") {
                let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }
}
