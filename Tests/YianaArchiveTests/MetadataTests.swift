import Foundation
import YianaTestSupport
import Testing
@testable import YianaArchive

@Suite("metadata.json")
struct MetadataTests {
    let file = "Doc.yianazip"

    func decode(_ json: String) throws -> DocumentMetadata {
        try DocumentMetadata(jsonData: Data(json.utf8), file: file)
    }

    func problem(_ json: String) -> MetadataError.Problem? {
        do {
            _ = try decode(json)
            return nil
        } catch let error as MetadataError {
            return error.problem
        } catch {
            return nil
        }
    }

    @Test func encodesKeysInTheAppsOrderAndOmitsOptionalOnes() throws {
        let metadata = DocumentMetadata(id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, title: "A/B",
                                        created: Date(timeIntervalSinceReferenceDate: 0), modified: Date(timeIntervalSinceReferenceDate: 812_345_678.5),
                                        pageCount: 3, tags: ["x"])
        let json = String(decoding: try metadata.jsonData(), as: UTF8.self)
        #expect(json == #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"A\/B","created":0,"modified":812345678.5,"pageCount":3,"tags":["x"],"ocrCompleted":false}"#)
    }

    @Test func writesOptionalKeysOnlyWhenSet() throws {
        var metadata = try decode(ZipBuilder.validMetadata)
        metadata.hasPendingTextPage = true
        metadata.pageProcessingStates = [PageProcessingState(pageNumber: 1, needsOCR: true, needsExtraction: false)]
        metadata.ocrConfidence = 0.5
        metadata.pdfHash = String(repeating: "a", count: 64)
        let json = String(decoding: try metadata.jsonData(), as: UTF8.self)
        #expect(json.contains(#""hasPendingTextPage":true"#))
        #expect(json.contains(#""pageProcessingStates":[{"pageNumber":1,"needsOCR":true,"needsExtraction":false}]"#))
        #expect(json.contains(#""ocrConfidence":0.5"#))
        #expect(try decode(json) == metadata)
    }

    @Test func sameMetadataGivesSameBytesEveryTime() throws {
        var metadata = try decode(ZipBuilder.validMetadata)
        metadata.unknownFields = ["zeta": .integer(1), "alpha": .object(["b": .bool(true), "a": .null])]
        #expect(try metadata.jsonData() == metadata.jsonData())
        #expect(String(decoding: try metadata.jsonData(), as: UTF8.self).hasSuffix(#""alpha":{"a":null,"b":true},"zeta":1}"#))
    }

    @Test func aValueJSONCannotHoldIsAnErrorNotACrash() throws {
        var metadata = try decode(ZipBuilder.validMetadata)
        metadata.ocrConfidence = .nan
        #expect(throws: EncodingError.self) { try metadata.jsonData() }
        let folder = try TemporaryFolder()
        #expect(throws: EncodingError.self) { try CoordinatedDocument.create(at: folder.path("x.yianazip"), metadata: metadata, pdf: nil) }
        #expect(folder.contents().isEmpty)
    }

    @Test func keepsUnknownKeysOnRewrite() throws {
        let json = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"T","created":1,"modified":2,"pageCount":0,"tags":[],"ocrCompleted":true,"newAppField":{"list":[1,2.5,"x"]},"pageProcessingStates":[{"pageNumber":1,"needsOCR":false,"needsExtraction":false,"future":7}]}"#
        let metadata = try decode(json)
        #expect(metadata.unknownFields["newAppField"] == .object(["list": .array([.integer(1), .number(2.5), .string("x")])]))
        let again = try DocumentMetadata(jsonData: metadata.jsonData(), file: file)
        #expect(again == metadata)
        #expect(again.pageProcessingStates[0].unknownFields["future"] == .integer(7))
    }

    @Test func datesAreSecondsSince2001() throws {
        let metadata = try decode(ZipBuilder.validMetadata)
        #expect(metadata.created == Date(timeIntervalSinceReferenceDate: 800_000_000))
        #expect(metadata.modified.timeIntervalSinceReferenceDate == 800_000_001.5)
        #expect(metadata.readingNotes.isEmpty)
    }

    @Test func readsISODateStringsAndSaysSo() throws {
        let json = ZipBuilder.validMetadata.replacingOccurrences(of: #""created":800000000"#, with: #""created":"2026-03-01T10:00:00Z""#)
        let metadata = try decode(json)
        #expect(metadata.created == ISO8601DateFormatter().date(from: "2026-03-01T10:00:00Z"))
        #expect(metadata.readingNotes.count == 1)
        #expect(metadata.readingNotes[0].contains("created"))
    }

    /// A device whose clock was wrong saved `created` in 2040: still 2040, never read as a
    /// Unix time (2009), and written back as the same number.
    @Test func aNumberIsAlwaysSecondsSince2001AndRewrittenAsItWas() throws {
        let json = ZipBuilder.validMetadata.replacingOccurrences(of: #""created":800000000"#, with: #""created":1230768000"#)
        let metadata = try decode(json)
        #expect(metadata.created == Date(timeIntervalSinceReferenceDate: 1_230_768_000))
        #expect(metadata.suspiciousDates.count == 1 && metadata.suspiciousDates[0].contains("2040"))
        #expect(metadata.appRefusals.isEmpty)
        #expect(String(decoding: try metadata.jsonData(), as: UTF8.self).contains(#""created":1230768000,"#))
    }

    /// What the app's own decoder refuses, though the toolkit can read it.
    @Test(arguments: [
        (#""ocrCompleted":false"#, #""ocrCompleted":false,"ocrSource":"tesseract""#, "ocrSource"),
        (#""created":800000000"#, #""created":"2026-03-01T10:00:00Z""#, "created"),
        (#""ocrCompleted":false"#, #""ocrCompleted":false,"pageProcessingStates":[{"pageNumber":1,"needsOCR":false,"needsExtraction":false,"ocrProcessedAt":"2026-03-01T10:00:00Z"}]"#, "pageProcessingStates[0].ocrProcessedAt"),
    ])
    func namesWhatTheAppRefuses(old: String, new: String, key: String) throws {
        let metadata = try decode(ZipBuilder.validMetadata.replacingOccurrences(of: old, with: new))
        #expect(metadata.appRefusals.count == 1 && metadata.appRefusals[0].hasPrefix(key), "\(metadata.appRefusals)")
    }

    @Test(arguments: [
        (#"{"title":"T","created":1,"modified":1,"pageCount":1,"tags":[],"ocrCompleted":false}"#, MetadataError.Problem.missingKey("id")),
        (#"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":5,"created":1,"modified":1,"pageCount":1,"tags":[],"ocrCompleted":false}"#,
         .wrongType(key: "title", expected: "a string", found: "a number")),
        (#"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"T","created":"yesterday","modified":1,"pageCount":1,"tags":[],"ocrCompleted":false}"#,
         .wrongType(key: "created", expected: "a date (a number of seconds since 2001-01-01)", found: "a string (\"yesterday\")")),
        (#"{"id":"not-a-uuid","title":"T","created":1,"modified":1,"pageCount":1,"tags":[],"ocrCompleted":false}"#,
         .invalidValue(key: "id", reason: "is not a UUID (\"not-a-uuid\")")),
        (#"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"T","created":1,"modified":1,"pageCount":-2,"tags":[],"ocrCompleted":false}"#,
         .invalidValue(key: "pageCount", reason: "is not a whole number from 0 up")),
        (#"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"T","created":1,"modified":1,"pageCount":1,"tags":["a",3],"ocrCompleted":false}"#,
         .wrongType(key: "tags[1]", expected: "a string", found: "a number")),
        (#"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"T","created":1,"modified":1,"pageCount":1,"tags":[],"ocrCompleted":"no"}"#,
         .wrongType(key: "ocrCompleted", expected: "true or false", found: "a string")),
        (#"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"T","created":1,"modified":1,"pageCount":1,"tags":[],"ocrCompleted":false,"pageProcessingStates":[{"needsOCR":true,"needsExtraction":true}]}"#,
         .missingKey("pageProcessingStates[0].pageNumber")),
        (#"[1,2]"#, .notAnObject),
    ])
    func namesTheKeyThatIsWrong(json: String, expected: MetadataError.Problem) {
        #expect(problem(json) == expected)
    }

    @Test func notJSONIsReportedWithTheFileName() {
        do {
            _ = try decode("{not json")
            Issue.record("decoded garbage")
        } catch let error as MetadataError {
            guard case .notJSON = error.problem else { Issue.record("wrong problem \(error.problem)"); return }
            #expect(error.description.hasPrefix("Doc.yianazip: "))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

@Suite("byte counts for people")
struct ReadableByteCountTests {
    /// As Foundation's `String(format: "%.1f %@")` wrote them, at every unit's edges and at random.
    @Test func aByteCountReadsAsBefore() {
        func before(_ count: UInt64) -> String {
            let units = ["bytes", "KB", "MB", "GB", "TB"]
            var value = Double(count)
            var unit = 0
            while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
            return unit == 0 ? (count == 1 ? "1 byte" : "\(count) bytes") : String(format: "%.1f %@", value, units[unit])
        }
        var counts: [UInt64] = [0, 1, 2, 999, 1_000, 1_049, 1_050, 1_051, 2_250, 2_350, 999_949, 999_950, 999_999, 1_000_000, 1_234_567_890, .max]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { counts.append(UInt64.random(in: 0...(1 << UInt64.random(in: 1...50, using: &generator)), using: &generator)) }
        for count in counts { #expect(readableByteCount(count) == before(count), "\(count)") }
    }
}
