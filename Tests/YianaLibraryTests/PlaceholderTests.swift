import Foundation
import Testing
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

@Suite("iCloud placeholders")
struct PlaceholderTests {
    @Test func roundTripAsIcloudWritesThem() throws {
        let stub = Placeholder(documentName: "Tax return 2025.yianazip", documentSize: 1_234_567)
        let data = try stub.stubData()
        #expect(data.starts(with: Array("bplist00".utf8)))
        #expect(data.count < 200)
        #expect(try Placeholder(stubData: data, source: "stub") == stub)
    }

    @Test func readsXMLStubs() throws {
        let xml = try PropertyListSerialization.data(
            fromPropertyList: ["NSURLNameKey": "Scan.yianazip", "NSURLFileSizeKey": 42], format: .xml, options: 0)
        let stub = try Placeholder(stubData: xml, source: "xml")
        #expect(stub.documentName == "Scan.yianazip" && stub.documentSize == 42 && stub.resourceType == nil)
    }

    @Test(arguments: [(".Quarterly report.yianazip.icloud", "Quarterly report.yianazip", UInt64(184_320)),
                      (".Old scan.yianazip-tef.icloud", "Old scan.yianazip", UInt64(52_000))])
    func readsStubsItDidNotMake(file: String, name: String, size: UInt64) throws {
        // Written by Python's plistlib: one binary, one XML in the older "-tef" naming.
        let url = Fixtures.sampleDocs.appendingPathComponent("placeholders").appendingPathComponent(file)
        let stub = try Placeholder(stubAt: url)
        #expect(stub.documentName == name && stub.documentSize == size)
        #expect(PlaceholderName.documentName(forStub: file) == name)
    }

    @Test func refusesWhatIsNotAStub() throws {
        #expect(throws: PlaceholderError.notAStub("x", "not a dictionary")) { try Placeholder(stubData: Data("hello".utf8), source: "x") }
        #expect(throws: PlaceholderError.notAStub("z", "not a property list")) { try Placeholder(stubData: Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0xFF]), source: "z") }
        let noName = try PropertyListSerialization.data(fromPropertyList: ["NSURLFileSizeKey": 1], format: .binary, options: 0)
        #expect(throws: PlaceholderError.notAStub("y", "no NSURLNameKey")) { try Placeholder(stubData: noName, source: "y") }
        let folder = try TemporaryFolder()
        let big = folder.url.appendingPathComponent(".Big.yianazip.icloud")
        try Data(count: Placeholder.maximumStubSize + 1).write(to: big)
        #expect(throws: PlaceholderError.self) { try Placeholder(stubAt: big) }
    }

    @Test func stubNamesBesideTheDocument() {
        let document = URL(fileURLWithPath: "/lib/Letters/Bank statement.yianazip")
        #expect(Placeholder.stubURL(for: document).path == "/lib/Letters/.Bank statement.yianazip.icloud")
    }
}
