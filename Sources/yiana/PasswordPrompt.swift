import ArgumentParser
import Foundation
import YianaServe
import YianaSystem

/// `yiana serve --set-password FILE`: the password asked twice at a terminal (or one line read
/// from standard input), its scrypt hash written to FILE, readable by this user only.
enum PasswordPrompt {
    static func write(to path: String) throws {
        let atTerminal = Sys.isTerminal(0)
        if atTerminal { FileHandle.standardError.write(Data("New password for yiana serve: ".utf8)) }
        guard let password = Sys.readSecretLine(), !password.isEmpty else { throw ValidationError("--set-password: no password given.") }
        guard password.count >= 10 else { throw ValidationError("--set-password: use at least 10 characters (a few words are easy to type and hard to guess).") }
        if atTerminal {
            FileHandle.standardError.write(Data("The same again: ".utf8))
            guard Sys.readSecretLine() == password else { throw ValidationError("--set-password: the two passwords differ; nothing was written.") }
        }
        let hash = try PasswordHash.make(password)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            try TemporaryFile.replace(path, with: Array((hash.line + "\n").utf8), mode: 0o600)
        } catch {
            throw ValidationError("--set-password \(path): cannot be written (\(error)).")
        }
        print("yiana serve: the password's hash is in \(path) (only you can read it); start the server with --password-file \(path).")
    }
}
