import Foundation
import MockCDNCore
import Testing

@testable import MockCDNServer

/// The pure parts of upload events: the key as AWS encodes it, S3's filters, the record's JSON, the retry
/// schedule, and the checks of a notification configuration.
@Suite("Upload events")
struct UploadEventTests {
    @Test(
        "keys are form-encoded as AWS writes them in a record, / kept",
        arguments: [
            ("images/photo.jpg", "images/photo.jpg"),
            ("red flower.jpg", "red+flower.jpg"),
            ("a+b.txt", "a%2Bb.txt"),
            ("x=1&y=(2)!.txt", "x%3D1%26y%3D%282%29%21.txt"),
            ("tilde~star*-_.txt", "tilde%7Estar*-_.txt"),
            ("café/ü.png", "caf%C3%A9/%C3%BC.png"),
            ("100%.txt", "100%25.txt"),
        ]
    )
    func encodedKey(key: String, expected: String) {
        #expect(EventRecord.encodedKey(key) == expected)
        // What a consumer's unquote_plus does gives the key back.
        let decoded = expected.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        #expect(decoded == key)
    }

    @Test(
        "filters match event names as S3 does, with its prefix and suffix",
        arguments: [
            (["s3:ObjectCreated:*"], "", "", ObjectEventName.put, "a.png", true),
            (["s3:ObjectCreated:*"], "", "", .completeMultipartUpload, "a.png", true),
            (["s3:ObjectCreated:*"], "", "", .delete, "a.png", false),
            (["s3:ObjectCreated:Post"], "", "", .put, "a.png", false),
            (["s3:ObjectCreated:Post"], "", "", .post, "a.png", true),
            (["s3:ObjectRemoved:*", "s3:ObjectCreated:Copy"], "", "", .copy, "a.png", true),
            (["s3:ObjectRemoved:Delete"], "", "", .delete, "a.png", true),
            (["s3:ObjectCreated:*"], "images/", ".png", .put, "images/a.png", true),
            (["s3:ObjectCreated:*"], "images/", ".png", .put, "images/a.PNG", false),
            (["s3:ObjectCreated:*"], "images/", ".png", .put, "other/a.png", false),
            (["s3:ObjectCreated:*"], "", ".png", .put, "x/images/a.png", true),
            (["s3:ObjectRestore:*"], "", "", .put, "a.png", false),
        ] as [([String], String, String, ObjectEventName, String, Bool)]
    )
    func filter(events: [String], prefix: String, suffix: String, name: ObjectEventName, key: String, matches: Bool) {
        #expect(EventFilter(events: events, prefix: prefix, suffix: suffix).matches(name, key: key) == matches)
    }

    @Test("a record's JSON has AWS's members and values")
    func recordJSON() throws {
        let object = ObjectMetadata(
            key: try ObjectKey("demo/docs/a b.txt"),
            size: 12,
            sha256: Array(repeating: 0xab, count: 32),
            attributes: ObjectAttributes(contentType: "text/plain", etag: "\"0123abcd\"")
        )
        let record = EventRecord(
            name: .put,
            app: "demo",
            region: "eu-west-1",
            key: "docs/a b.txt",
            object: object,
            time: Date(timeIntervalSince1970: 1_795_000_000.1234),
            sequencer: 0xA1
        )
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(ObjectEvents.document([record]))) as? [String: Any]
        )
        let records = try #require(json["Records"] as? [[String: Any]])
        let first = try #require(records.first)
        #expect(first["eventVersion"] as? String == "2.1")
        #expect(first["eventSource"] as? String == "aws:s3")
        #expect(first["awsRegion"] as? String == "eu-west-1")
        #expect(first["eventName"] as? String == "ObjectCreated:Put")
        #expect(first["eventTime"] as? String == "2026-11-18T11:06:40.123Z")
        let s3 = try #require(first["s3"] as? [String: Any])
        #expect(s3["s3SchemaVersion"] as? String == "1.0")
        let bucket = try #require(s3["bucket"] as? [String: Any])
        #expect(bucket["name"] as? String == "demo" && bucket["arn"] as? String == "arn:aws:s3:::demo")
        let stored = try #require(s3["object"] as? [String: Any])
        #expect(stored["key"] as? String == "docs/a+b.txt")
        #expect(stored["size"] as? Int == 12)
        #expect(stored["eTag"] as? String == "0123abcd")
        #expect(stored["sequencer"] as? String == "00000000000000A1")
        let response = try #require(first["responseElements"] as? [String: Any])
        #expect(Set(response.keys) == ["x-amz-request-id", "x-amz-id-2"])
    }

    @Test("a delete's record has no size and no eTag, as AWS writes it")
    func deleteRecord() throws {
        let record = EventRecord(
            name: .delete,
            app: "demo",
            region: "us-east-1",
            key: "k",
            object: nil,
            time: Date(timeIntervalSince1970: 0),
            sequencer: 1
        )
        let text = String(decoding: try ObjectEvents.document([record]), as: UTF8.self)
        #expect(!text.contains("\"size\"") && !text.contains("\"eTag\""))
        #expect(text.contains(#""eventTime":"1970-01-01T00:00:00.000Z""#))
    }

    @Test("sequencers compare as text in the order they were given")
    func sequencers() {
        let values: [UInt64] = [1, 9, 10, 255, 256, 4096, 1 << 40]
        let texts = values.map(EventRecord.sequencer)
        #expect(texts == texts.sorted())
        #expect(texts.allSatisfy { $0.count == 16 })
    }

    @Test("ETags lose their quotes", arguments: [("\"abc\"", "abc"), ("W/\"abc\"", "abc"), ("abc-2", "abc-2")])
    func bareETag(etag: String, expected: String) {
        #expect(EventRecord.bareETag(etag) == expected)
    }

    @Test("failed deliveries are tried again 10 s, 30 s, 2 min and 10 min on, five attempts in all")
    func backoff() {
        #expect((1...5).map(DeliveryBackoff.delay(after:)) == [10, 30, 120, 600, nil])
        #expect(DeliveryBackoff.maximumAttempts == 5)
        #expect(DeliveryBackoff.delay(after: 0) == nil)
    }

    @Test("the delivery signature is the lowercase hex HMAC-SHA256 of the body with the secret (RFC 4231 case 2)")
    func signature() {
        let body = Array("what do ya want for nothing?".utf8)
        #expect(
            WebhookSignature.hex(of: body, secret: "Jefe")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        )
    }

    @Test("a configuration is checked and its targets without an id get one")
    func validation() throws {
        let configuration = NotificationConfiguration(
            webhooks: [
                NotificationTarget(url: "http://127.0.0.1:9/hook", events: ["s3:ObjectCreated:*"]),
                NotificationTarget(id: "notification-1", url: "https://h/", events: ["s3:ObjectRemoved:Delete"]),
            ],
            queues: [NotificationTarget(arn: "arn:aws:sqs:us-east-1:1:q", events: ["s3:ObjectCreated:Put"])]
        )
        let kept = try configuration.validated()
        #expect(kept.webhooks.map(\.id) == ["notification-2", "notification-1"])
        #expect(kept.queues.map(\.id) == ["notification-3"])
    }

    @Test(
        "bad targets are refused, naming the member",
        arguments: [
            (
                NotificationConfiguration(webhooks: [
                    NotificationTarget(url: "ftp://h/", events: ["s3:ObjectCreated:*"])
                ]),
                "webhooks: url must be an http:// or https:// URL with a host"
            ),
            (
                NotificationConfiguration(queues: [NotificationTarget(arn: "q", events: ["s3:ObjectCreated:*"])]),
                "queues: arn must be an ARN (arn:aws:...)"
            ),
            (
                NotificationConfiguration(webhooks: [NotificationTarget(url: "http://h/", events: ["s3:Nope"])]),
                "webhooks: s3:Nope is not an S3 event name (such as s3:ObjectCreated:*)"
            ),
            (
                NotificationConfiguration(webhooks: [NotificationTarget(url: "http://h/", events: [])]),
                "webhooks: events must name at least one event"
            ),
            (
                NotificationConfiguration(webhooks: [
                    NotificationTarget(id: "a", url: "http://h/", events: ["s3:ObjectCreated:*"]),
                    NotificationTarget(id: "a", url: "http://h/", events: ["s3:ObjectCreated:*"]),
                ]),
                "webhooks: id a is used twice"
            ),
        ]
    )
    func refusals(configuration: NotificationConfiguration, message: String) {
        #expect(throws: NotificationTarget.Invalid(message: message)) { try configuration.validated() }
    }
}
