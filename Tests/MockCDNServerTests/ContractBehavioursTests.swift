import Foundation
import MockCDNCore
import Testing

@testable import MockCDNServer

@Suite("Contract coverage: each row's predicate on journal entries")
struct ContractBehavioursTests {
    /// A journal entry as the report reads it, and the rows it must (and only it must) cover.
    struct Vector: CustomTestStringConvertible, Sendable {
        let entry: JournalRecord
        let rows: Set<String>
        var testDescription: String {
            "\(self.entry.method) \(self.entry.path) \(self.entry.status) -> \(self.rows.sorted())"
        }
    }

    static let vectors: [Vector] = [
        // Stream
        .init(
            entry: .init(
                id: "r1",
                method: "POST",
                path: "/channels/messaging/general/image",
                query: "api_key=demo-key",
                credential: .jwt,
                status: 201
            ),
            rows: ["stream.upload.image", "stream.credential.jwt"]
        ),
        .init(
            entry: .init(id: "r2", method: "POST", path: "/api/v2/uploads/file", credential: .jwt, status: 201),
            rows: ["stream.upload.file", "stream.credential.jwt"]
        ),
        .init(
            entry: .init(
                id: "r3",
                method: "POST",
                path: "/channels/messaging/general/image",
                status: 401,
                reason: "Stream error 40: JWTAuth error: token has expired"
            ),
            rows: ["stream.refused.expired"]
        ),
        .init(
            entry: .init(
                id: "r4",
                method: "GET",
                path: "/app",
                status: 401,
                reason:
                    "Stream error 5: JWTAuth error: signature is not valid. Make sure the token is created using the secret key"
            ),
            rows: ["stream.refused.tampered"]
        ),
        .init(
            entry: .init(
                id: "r5",
                method: "GET",
                path: "/app",
                status: 401,
                reason: "Stream error 5: api_key not valid"
            ),
            rows: ["stream.refused.wrong-app"]
        ),
        .init(
            entry: .init(id: "r6", method: "PATCH", path: "/app", credential: .jwt, status: 201),
            rows: ["stream.app.settings", "stream.credential.jwt"]
        ),
        .init(
            entry: .init(
                id: "r7",
                method: "POST",
                path: "/channels/messaging/general/image",
                credential: .jwt,
                status: 413,
                reason: "Stream error 22: file too large"
            ),
            rows: ["stream.status.413"]
        ),
        // CometChat
        .init(
            entry: .init(id: "r8", method: "POST", path: "/demo/media", credential: .fatQuery, status: 201),
            rows: ["cometchat.media.upload", "cometchat.credential.fat-query"]
        ),
        .init(
            entry: .init(
                id: "r9",
                method: "POST",
                path: "/v1/apps/demo/presign",
                status: 401,
                reason: "ERR_NOT_LOGGED_IN: File Access Token belongs to another app"
            ),
            rows: ["cometchat.refused.wrong-app"]
        ),
        .init(
            entry: .init(
                id: "r10",
                method: "PUT",
                path: "/demo/media/u/a.png",
                query: "X-Amz-Algorithm=AWS4-HMAC-SHA256",
                credential: .presigned,
                status: 200
            ),
            rows: ["cometchat.presigned-put", "s3.credential.presigned-v4"]
        ),
        .init(
            entry: .init(
                id: "r11",
                method: "PUT",
                path: "/demo/media/u/a.png",
                status: 413,
                reason: "ERR_FILE_SIZE_EXCEEDED: too large"
            ),
            rows: ["cometchat.status.413"]
        ),
        // CDN reads
        .init(
            entry: .init(
                id: "r12",
                method: "GET",
                path: "/demo/fixtures/sample.png",
                credential: .fatHeader,
                status: 206
            ),
            rows: ["media.status.206", "cometchat.credential.fat-header"]
        ),
        .init(
            entry: .init(
                id: "r13",
                method: "GET",
                path: "/demo/fixtures/sample.png",
                status: 401,
                reason: "AccessDenied: Access Denied"
            ),
            rows: ["media.refused.missing"]
        ),
        .init(
            entry: .init(
                id: "r14",
                method: "GET",
                path: "/demo/a.png",
                query: "fat=REDACTED",
                status: 403,
                reason: "AccessDenied: File Access Token has expired",
                clock: 2_000_000_000,
                receivedAt: 1_900_000_000.5
            ),
            rows: ["media.refused.expired", "control.clock.past-expiry"]
        ),
        .init(
            entry: .init(
                id: "r15",
                method: "GET",
                path: "/demo/a.png",
                query: "fat=REDACTED",
                status: 403,
                reason: "AccessDenied: File Access Token has expired",
                clock: 1_900_000_000,
                receivedAt: 1_900_000_000.9
            ),
            rows: ["media.refused.expired"]
        ),
        .init(
            entry: .init(
                id: "r16",
                method: "GET",
                path: "/demo/a.jpg",
                query: "w=10&h=10",
                credential: .fatHeader,
                status: 200
            ),
            rows: ["media.status.200", "media.resize.clip", "cometchat.credential.fat-header"]
        ),
        .init(
            entry: .init(
                id: "r17",
                method: "HEAD",
                path: "/demo/a.jpg",
                query: "w=10&resize=FILL",
                credential: .cloudfrontCookie,
                status: 304
            ),
            rows: ["media.status.304", "media.resize.fill", "cloudfront.cookies"]
        ),
        .init(
            entry: .init(
                id: "r18",
                method: "GET",
                path: "/demo/fixtures/large-4100x4100.jpg",
                query: "w=100",
                credential: .fatHeader,
                status: 422,
                reason: "ImageTooLarge: Source image has 16810000 pixels"
            ),
            rows: ["media.resize.too-large"]
        ),
        .init(
            entry: .init(
                id: "r19",
                method: "GET",
                path: "/demo/thumbnails/u/v.mp4.jpg",
                query: "Key-Pair-Id=K&Policy=eyJ&Signature=REDACTED",
                credential: .cloudfront,
                status: 200
            ),
            rows: ["media.status.200", "media.poster.read", "cloudfront.custom"]
        ),
        .init(
            entry: .init(
                id: "r20",
                method: "GET",
                path: "/demo/a.png",
                query: "Expires=1&Signature=REDACTED&Key-Pair-Id=K",
                status: 403,
                reason: "AccessDenied: Request has expired"
            ),
            rows: ["media.refused.expired", "cloudfront.refused.expired"]
        ),
        .init(
            entry: .init(
                id: "r21",
                method: "GET",
                path: "/demo/a.png",
                query: "AWSAccessKeyId=other",
                status: 403,
                reason: "InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records."
            ),
            rows: ["media.refused.wrong-app"]
        ),
        // S3
        .init(
            entry: .init(id: "r22", method: "PUT", path: "/demo/b/c.txt", credential: .headerSigV4, status: 200),
            rows: ["s3.credential.header-sigv4"]
        ),
        .init(
            entry: .init(
                id: "r23",
                method: "PUT",
                path: "/demo/b/c.exe",
                credential: .headerSigV2,
                status: 415,
                reason: "UnsupportedMediaType: no"
            ),
            rows: ["s3.status.415"]
        ),
        .init(
            entry: .init(
                id: "r24",
                method: "GET",
                path: "/demo",
                query: "list-type=2",
                status: 403,
                reason: "SignatureDoesNotMatch: The request signature we calculated does not match"
            ),
            rows: ["s3.refused.tampered", "s3.status.403"]
        ),
        .init(
            entry: .init(id: "r25", method: "POST", path: "/demo", credential: .postPolicy, status: 204),
            rows: ["s3.credential.post-policy"]
        ),
        // Faults: a status fault stands in for the route, so only its fault row counts.
        .init(
            entry: .init(
                id: "r26",
                method: "GET",
                path: "/demo/a.png",
                status: 503,
                fault: "f1",
                faultKinds: ["delay", "status"]
            ),
            rows: ["control.fault.delay", "control.fault.status"]
        ),
        .init(
            entry: .init(
                id: "r27",
                method: "GET",
                path: "/demo/a.png",
                credential: .presignedV2,
                status: 200,
                fault: "f2",
                faultKinds: ["truncate"]
            ),
            rows: ["media.status.200", "s3.credential.presigned-v2", "control.fault.truncate"]
        ),
        .init(entry: .init(id: "r28", method: "-", path: "-", status: 400, reason: "bad head"), rows: []),
        // The router's empty 404 for a path no route takes: no reason, no row.
        .init(entry: .init(id: "r29", method: "GET", path: "/favicon.ico", status: 404), rows: []),
        .init(
            entry: .init(
                id: "r30",
                method: "GET",
                path: "/nobucket",
                status: 404,
                reason: "NoSuchBucket: The specified bucket does not exist"
            ),
            rows: ["s3.status.404"]
        ),
    ]

    @Test("an entry covers exactly its rows", arguments: vectors)
    func rows(vector: Vector) {
        let matched = Set(ContractBehaviours.all.filter { $0.matches(vector.entry) }.map(\.id))
        #expect(matched == vector.rows)
    }

    @Test("row ids are unique, dotted under their surface, and every surface has rows")
    func ids() {
        let ids = ContractBehaviours.ids
        #expect(Set(ids).count == ids.count)
        for row in ContractBehaviours.all {
            #expect(row.id.hasPrefix(row.surface.rawValue + "."), "\(row.id)")
            #expect(row.id.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "." || $0 == "-" }, "\(row.id)")
        }
        #expect(Set(ContractBehaviours.all.map(\.surface)) == Set(ContractSurface.allCases))
        let issueRows = [
            "cometchat.credential.fat-header", "cometchat.credential.fat-query", "s3.credential.presigned-v4",
            "s3.credential.presigned-v2", "s3.credential.header-sigv4", "cloudfront.canned", "cloudfront.custom",
            "cloudfront.cookies", "media.status.200", "media.status.206", "media.status.304", "media.resize.too-large",
            "media.poster.read", "control.clock.past-expiry", "stream.status.507", "s3.status.415",
        ]
        for row in issueRows { #expect(ids.contains(row), "\(row)") }
    }
}

@Suite("Contract coverage: the report and its renderers")
struct CoverageReportTests {
    static let entries: [JournalRecord] = [
        .init(id: "r3", method: "GET", path: "/demo/a.png", credential: .fatHeader, status: 200),
        .init(id: "r4", method: "GET", path: "/demo/a.png", credential: .fatHeader, status: 206),
        .init(id: "r5", method: "GET", path: "/demo/a.png", credential: .fatHeader, status: 200),
    ]

    @Test("counts, first example, percentages per surface and in all")
    func counts() throws {
        let report = CoverageReport(entries: Self.entries)
        let row = try #require(report.rows.first { $0.id == "media.status.200" })
        #expect(row.count == 2 && row.example == "r3")
        #expect(report.covered == 3)
        #expect(report.percent == CoverageReport.percent(3, of: ContractBehaviours.all.count))
        #expect(CoverageReport.percent(1, of: 3) == 33.3 && CoverageReport.percent(0, of: 0) == 100)
        let media = try #require(report.document.surfaces.first { $0.id == "media" })
        #expect(media.rowsCovered == 2 && media.rowsTotal == ContractBehaviours.all.count { $0.surface == .media })
    }

    @Test("JSON round-trips, and merged reports add counts and keep the first example")
    func merge() throws {
        let first = CoverageReport(entries: Self.entries)
        let second = CoverageReport(entries: [.init(id: "r9", method: "GET", path: "/demo/a.png", status: 304)])
        let documents = try [first, second].map {
            try JSONDecoder().decode(CoverageReport.Document.self, from: Data($0.json.utf8))
        }
        #expect(documents[0] == first.document)
        let merged = CoverageReport.merging(documents)
        #expect(merged.rows.first { $0.id == "media.status.200" }?.count == 2)
        #expect(merged.rows.first { $0.id == "media.status.304" }?.example == "r9")
        #expect(merged.entries == 4 && merged.covered == 4)
    }

    @Test("the share of some surfaces counts their rows only; a file's sum says it, an unknown surface is named")
    func surfaceShare() throws {
        let report = CoverageReport(entries: Self.entries)
        let media = ContractBehaviours.all.count { $0.surface == .media }
        let covered = report.rows.count { $0.covered && $0.surface == .media }
        #expect(report.percent(of: [.media]) == CoverageReport.percent(covered, of: media))
        #expect(report.percent(of: [.stream]) == 0 && report.percent(of: nil) == report.percent)
        let both = ContractBehaviours.all.count { $0.surface == .media || $0.surface == .stream }
        #expect(report.percent(of: [.media, .stream]) == CoverageReport.percent(covered, of: both))
        let sum = try CoverageReportRendering.sum(
            merging: [Data(report.json.utf8), Data(report.json.utf8)],
            format: "json",
            surfaces: ["media"]
        )
        #expect(sum.percent == report.percent(of: [.media]))
        #expect(throws: CoverageReportRendering.UnknownSurface.self) {
            try CoverageReportRendering.sum(merging: [Data(report.json.utf8)], format: "json", surfaces: ["video"])
        }
        // An empty list would be a share of nothing (100%): refused.
        #expect(throws: CoverageReportRendering.UnknownSurface.self) {
            try CoverageReportRendering.sum(merging: [Data(report.json.utf8)], format: "json", surfaces: [])
        }
        #expect(
            "\(CoverageReportRendering.UnknownSurface(name: "video"))"
                == "video is not a surface; the surfaces are stream, cometchat, media, s3, cloudfront, control"
        )
    }

    @Test("Markdown: a summary line and one table row per behaviour, marked")
    func markdown() {
        let text = CoverageReport(entries: Self.entries, since: "r3").markdown
        #expect(text.contains("3 of \(ContractBehaviours.all.count) behaviours covered"))
        #expect(text.contains("since r3"))
        #expect(text.contains("| ✅ | `media.status.200` | 200 full object | 2 | r3 |"))
        #expect(text.contains("| ❌ | `media.status.304` | 304 not modified | 0 |  |"))
        #expect(
            text.components(separatedBy: "\n").count { $0.hasPrefix("| ✅") || $0.hasPrefix("| ❌") }
                == ContractBehaviours.all.count
        )
    }

    @Test("JUnit: a suite per surface, a case per row, uncovered rows skipped, text escaped")
    func junit() throws {
        let text = CoverageReport(entries: Self.entries).junit
        func count(_ needle: String) -> Int { text.components(separatedBy: needle).count - 1 }
        let total = ContractBehaviours.all.count
        #expect(text.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(text.contains(#"<testsuites name="MockCDN contract coverage" tests="\#(total)" failures="0" "#))
        #expect(count("<testsuite ") == ContractSurface.allCases.count && count("</testsuite>") == count("<testsuite "))
        #expect(count("<testcase ") == total && count("</testcase>") == total)
        #expect(count("<skipped ") == total - 3 && count("<failure") == 0)
        #expect(text.contains(#"<testsuite name="media" tests=""#))
        #expect(text.contains("<system-out>200 full object: 2 requests, first r3</system-out>"))
        // Attribute and element text, with the control characters XML 1.0 cannot carry dropped.
        #expect(XMLText.escaped("a<b & \"c\"> 'd'\u{1}") == "a&lt;b &amp; &quot;c&quot;&gt; &apos;d&apos;")
        // Byte by byte: an `&` before a combining mark (one Swift Character with it) is still escaped, and of a
        // CR LF only the LF stays.
        #expect(XMLText.escaped("&\u{301}<\u{301}é\r\n") == "&amp;\u{301}&lt;\u{301}é\n")
    }
}
