import Foundation
import Testing
import YianaSystem
import YianaTestSupport

@Suite("CRC-32 (the toolkit's C)")
struct CRC32Tests {
    /// The carry-less-multiplication path must agree with zlib bit for bit: every length
    /// around its block sizes, unaligned starts, and a large buffer.
    @Test func theFastPathAgreesWithZlib() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(1 << 20) + 77).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { raw in
            for length in Array(0...300) + [1023, 1024, 1025, 4096 + 13, 65_536 + 63, bytes.count - 5] {
                for start in [0, 1, 7] where start + length <= raw.count {
                    let base = raw.baseAddress! + start
                    #expect(CRC32.update(0, base, length) == CRC32.reference(0, base, length), "length \(length) start \(start)")
                }
            }
            // Continuing a CRC across pieces gives the CRC of the whole.
            let whole = CRC32.update(0, raw.baseAddress, raw.count)
            let first = CRC32.update(0, raw.baseAddress, 100_003)
            #expect(CRC32.update(first, raw.baseAddress! + 100_003, raw.count - 100_003) == whole)
            // And an implementation that shares no code with it agrees.
            #expect(whole == TableCRC32.checksum(bytes))
        }
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32.update(0, $0.baseAddress, $0.count) } == 0xCBF4_3926)
    }

    /// On x86-64 machines with PCLMULQDQ (every x86-64 CPU since 2010) the fast path is taken:
    /// otherwise the test above would compare zlib with itself.
    @Test func theFastPathIsTakenWhereTheCPUHasIt() throws {
        #if arch(x86_64)
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }.map { Set($0.split(separator: " ")) } ?? []
        #expect(CRC32.isAccelerated == (flags.contains("pclmulqdq") && flags.contains("sse4_1")))
        #endif
    }
}
