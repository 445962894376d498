import Crypto
import Foundation
import _CryptoExtras

/// The password of a server that others can reach, as its file keeps it: never the password,
/// its scrypt hash (swift-crypto's, on BoringSSL), one line
/// `scrypt:LOG2N:R:P:SALT:KEY` (salt and key in base64). N = 2^15, r = 8, p = 1 (OWASP's
/// scrypt minimum with a margin: 32 MiB and about 0.1 s a try here), a 16-byte random salt, a
/// 32-byte key.
public struct PasswordHash: Sendable, Equatable {
    let log2N: Int, blockSize: Int, parallelism: Int
    let salt: [UInt8], key: [UInt8]

    /// A new hash of `password` with a new salt.
    public static func make(_ password: String) throws -> PasswordHash {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let key = try derive(password, salt: salt, log2N: 15, blockSize: 8, parallelism: 1)
        return PasswordHash(log2N: 15, blockSize: 8, parallelism: 1, salt: salt, key: key)
    }

    /// The line a password file holds.
    public var line: String {
        "scrypt:\(log2N):\(blockSize):\(parallelism):\(Data(salt).base64EncodedString()):\(Data(key).base64EncodedString())"
    }

    /// The hash in a password file's first line.
    /// - Throws: ``ServeError`` naming the file when it is not one `yiana serve --set-password` wrote.
    public init(file path: String) throws {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ServeError("--password-file \(path): cannot be read. Make it with `yiana serve --set-password \(path)`.")
        }
        let fields = text.split(separator: "\n").first.map { $0.split(separator: ":", omittingEmptySubsequences: false) } ?? []
        guard fields.count == 6, fields[0] == "scrypt", let log2N = Int(fields[1]), (10...22).contains(log2N),
              let blockSize = Int(fields[2]), (1...32).contains(blockSize), let parallelism = Int(fields[3]), (1...16).contains(parallelism),
              let salt = Data(base64Encoded: String(fields[4])), salt.count >= 16, let key = Data(base64Encoded: String(fields[5])), key.count >= 32 else {
            throw ServeError("--password-file \(path): not a password file of `yiana serve --set-password` (one line scrypt:…); make it again with that command.")
        }
        self.init(log2N: log2N, blockSize: blockSize, parallelism: parallelism, salt: Array(salt), key: Array(key))
    }

    init(log2N: Int, blockSize: Int, parallelism: Int, salt: [UInt8], key: [UInt8]) {
        self.log2N = log2N
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
        self.key = key
    }

    /// Whether `password` is the one hashed, compared in constant time.
    public func matches(_ password: String) -> Bool {
        guard let derived = try? Self.derive(password, salt: salt, log2N: log2N, blockSize: blockSize, parallelism: parallelism),
              derived.count == key.count else { return false }
        return zip(derived, key).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func derive(_ password: String, salt: [UInt8], log2N: Int, blockSize: Int, parallelism: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(from: Array(password.utf8), salt: salt, outputByteCount: 32,
                                           rounds: 1 << log2N, blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }
}
