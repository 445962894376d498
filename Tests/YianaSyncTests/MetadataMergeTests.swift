import Foundation
import Testing
import YianaArchive
@testable import YianaSync

@Suite("three-way metadata merge")
struct MetadataMergeTests {
    let base: DocumentMetadata = {
        var m = DocumentMetadata(title: "Report", created: Date(timeIntervalSinceReferenceDate: 1000), pageCount: 2, tags: ["a", "b", "c"])
        m.modified = Date(timeIntervalSinceReferenceDate: 2000)
        m.unknownFields = ["rating": .integer(3)]
        return m
    }()
    let now = Date(timeIntervalSinceReferenceDate: 9000)

    func edit(_ change: (inout DocumentMetadata) -> Void, at seconds: Double) -> DocumentMetadata {
        var m = base
        change(&m)
        m.modified = Date(timeIntervalSinceReferenceDate: seconds)
        return m
    }

    @Test func aFieldChangedOnOneSideTakesThatSide() {
        let ours = edit({ $0.title = "Report, final" }, at: 3000)
        let theirs = edit({ $0.unknownFields["rating"] = .integer(5) }, at: 4000)
        let result = MetadataMerge.merge(ancestor: base, ours: ours, theirs: theirs, now: now)
        #expect(result.metadata.title == "Report, final")
        #expect(result.metadata.unknownFields["rating"] == .integer(5))
        #expect(result.overruled.isEmpty)
        #expect(result.metadata.modified == now)
    }

    @Test func aFieldChangedOnBothSidesTakesTheNewerAndRecordsTheOther() {
        let ours = edit({ $0.title = "Mine" }, at: 3000)
        let theirs = edit({ $0.title = "Theirs" }, at: 4000)
        let result = MetadataMerge.merge(ancestor: base, ours: ours, theirs: theirs, now: now)
        #expect(result.metadata.title == "Theirs")
        #expect(result.overruled == ["title: kept Theirs, the other copy had Mine"])
    }

    @Test func tagsMergeAsSets() {
        let ours = edit({ $0.tags = ["a", "c", "mine"] }, at: 3000)       // removed b, added mine
        let theirs = edit({ $0.tags = ["a", "b", "theirs"] }, at: 4000)   // removed c, added theirs
        let result = MetadataMerge.merge(ancestor: base, ours: ours, theirs: theirs, now: now)
        #expect(result.metadata.tags == ["a", "mine", "theirs"])
        // Without an ancestor nothing can be known to be removed: the union.
        #expect(MetadataMerge.merge(ancestor: nil, ours: ours, theirs: theirs, now: now).metadata.tags == ["a", "c", "mine", "b", "theirs"])
    }

    @Test func ocrFieldsFollowTheSideThatCompletedOCR() {
        let ours = edit({ $0.title = "Mine" }, at: 5000)  // newer, but no OCR
        let theirs = edit({
            $0.ocrCompleted = true
            $0.fullText = "recognised text"
            $0.ocrSource = "service"
            $0.ocrConfidence = 0.93
        }, at: 3000)
        let result = MetadataMerge.merge(ancestor: base, ours: ours, theirs: theirs, now: now)
        #expect(result.metadata.ocrCompleted && result.metadata.fullText == "recognised text" && result.metadata.ocrSource == "service")
        #expect(result.metadata.title == "Mine")
    }

    @Test func unknownKeysAreKept() {
        let ours = edit({ $0.unknownFields["colour"] = .string("red") }, at: 3000)
        let theirs = edit({ $0.unknownFields["starred"] = .bool(true) }, at: 4000)
        let result = MetadataMerge.merge(ancestor: base, ours: ours, theirs: theirs, now: now)
        #expect(result.metadata.unknownFields == ["rating": .integer(3), "colour": .string("red"), "starred": .bool(true)])
    }
}
