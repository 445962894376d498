import Foundation
import PackagePlugin

/// Compiles the version `Scripts/version.sh` derives from git into the target it is applied
/// to (`YianaVersion`), before every build: `yiana --version`, `/api/health`, the man pages and
/// the Debian package (Scripts/package.sh) then say the same version. The script rewrites its
/// output only when the version changed, so an unchanged version compiles nothing again.
@main
struct YianaVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        let script = context.package.directoryURL.appending(path: "Scripts/version.sh")
        return [.prebuildCommand(displayName: "Version from git (Scripts/version.sh)", executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: [script.path, "--swift", output.appending(path: "Version.swift").path],
                                 outputFilesDirectory: output)]
    }
}
