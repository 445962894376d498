import Foundation
import Testing
import YianaSystem
import YianaTestSupport

@Suite("CRC-32 (the toolkit's C)")
struct CRC32Tests {
    /// Each carry-less-multiplication path this CPU has must agree with zlib bit for bit:
    /// every length around their block sizes (16, 64 and 256 bytes), unaligned starts, a
    /// CRC continued from another, and a large buffer.
    @Test(arguments: CRC32.Folding.allCases.filter { $0 != .none && $0 <= CRC32.folding })
    func theFastPathAgreesWithZlib(folding: CRC32.Folding) {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: (1 << 20) + 77)
        bytes.withUnsafeMutableBytes { raw in
            for offset in stride(from: 0, to: raw.count, by: 8) {
                withUnsafeBytes(of: generator.next() as UInt64) { word in
                    raw.baseAddress!.advanced(by: offset).copyMemory(from: word.baseAddress!, byteCount: min(8, raw.count - offset))
                }
            }
        }
        bytes.withUnsafeBytes { raw in
            for length in Array(0...600) + [1023, 1024, 1025, 4096 + 13, 65_536 + 63, bytes.count - 5] {
                for start in [0, 1, 7] where start + length <= raw.count {
                    let base = raw.baseAddress! + start
                    for seed: UInt32 in [0, 0xDEAD_BEEF] {
                        #expect(CRC32.update(seed, base, length, foldingAtMost: folding) == CRC32.reference(seed, base, length),
                                "length \(length) start \(start) seed \(seed)")
                    }
                }
            }
            // Continuing a CRC across pieces gives the CRC of the whole.
            let whole = CRC32.update(0, raw.baseAddress, raw.count, foldingAtMost: folding)
            let first = CRC32.update(0, raw.baseAddress, 100_003, foldingAtMost: folding)
            #expect(CRC32.update(first, raw.baseAddress! + 100_003, raw.count - 100_003, foldingAtMost: folding) == whole)
            // And an implementation that shares no code with it agrees.
            #expect(whole == TableCRC32.checksum(bytes))
        }
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32.update(0, $0.baseAddress, $0.count) } == 0xCBF4_3926)
    }

    /// On x86-64 machines with PCLMULQDQ (every x86-64 CPU since 2010) a fast path is taken,
    /// the wide one where the CPU has VPCLMULQDQ and AVX-512F: otherwise the test above would
    /// compare zlib with itself, or leave the fastest path untried.
    @Test func theWidestPathIsTakenWhereTheCPUHasIt() throws {
        #if arch(x86_64)
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }.map { Set($0.split(separator: " ")) } ?? []
        let narrow = flags.contains("pclmulqdq") && flags.contains("sse4_1")
        let wide = narrow && flags.contains("vpclmulqdq") && flags.contains("avx512f")
        #expect(CRC32.folding == (wide ? .wide : narrow ? .narrow : .none))
        #endif
    }
}
