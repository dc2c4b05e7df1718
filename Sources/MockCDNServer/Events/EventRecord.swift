import Foundation
import MockCDNCore

/// One S3 event notification record, `eventVersion` 2.1, in the shape and with the member names AWS writes
/// (<https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html>).
///
/// What MockCDN cannot know as AWS does is fixed and documented in `docs/events.md`: the principal ids, the
/// source address `127.0.0.1`, and request ids made up per event. A delete carries no `size` or `eTag`, as
/// on AWS.
struct EventRecord: Codable, Sendable, Equatable {
    /// The `userIdentity` and `ownerIdentity` member.
    struct Identity: Codable, Sendable, Equatable {
        var principalId: String
    }

    /// The `requestParameters` member.
    struct RequestParameters: Codable, Sendable, Equatable {
        var sourceIPAddress: String
    }

    /// The `responseElements` member.
    struct ResponseElements: Codable, Sendable, Equatable {
        var requestID: String
        var hostID: String

        enum CodingKeys: String, CodingKey {
            case requestID = "x-amz-request-id"
            case hostID = "x-amz-id-2"
        }
    }

    /// The `s3.bucket` member: the app.
    struct Bucket: Codable, Sendable, Equatable {
        var name: String
        var ownerIdentity: Identity
        var arn: String
    }

    /// The `s3.object` member.
    struct Object: Codable, Sendable, Equatable {
        /// URL-encoded as AWS does it (`EventRecord.encodedKey`).
        var key: String
        var size: Int?
        /// Without quotes, as AWS writes it.
        var eTag: String?
        var sequencer: String
    }

    /// The `s3` member.
    struct S3: Codable, Sendable, Equatable {
        var s3SchemaVersion = "1.0"
        /// The Id of the notification configuration the record went out for; empty in the built-in queue
        /// read without `target=`.
        var configurationId: String
        var bucket: Bucket
        var object: Object
    }

    var eventVersion = "2.1"
    var eventSource = "aws:s3"
    var awsRegion: String
    /// ISO 8601 in UTC with milliseconds, from the virtual clock.
    var eventTime: String
    var eventName: String
    var userIdentity: Identity
    var requestParameters: RequestParameters
    var responseElements: ResponseElements
    var s3: S3

    /// The principal MockCDN writes for the caller and the bucket owner (AWS writes an IAM or canonical id).
    static let principal = "AWS:AIDAMOCKCDNEXAMPLE"
    /// The bucket owner's canonical id, as MockCDN fills it.
    static let owner = "A3MOCKCDNEXAMPLE"

    /// A record of a change to `key` in `app`.
    ///
    /// - Parameters:
    ///   - name: what happened.
    ///   - app: the app (the bucket).
    ///   - region: the app's `s3_region`.
    ///   - key: the key within the app, as stored (not encoded).
    ///   - object: the object's metadata for a creation; nil for a delete.
    ///   - time: the virtual clock's time of the change.
    ///   - sequencer: the change's sequencer (`EventRecord.sequencer`).
    init(
        name: ObjectEventName,
        app: String,
        region: String,
        key: String,
        object: ObjectMetadata?,
        time: Date,
        sequencer: UInt64
    ) {
        self.awsRegion = region
        self.eventTime = Timestamp.text(time)
        self.eventName = name.rawValue
        self.userIdentity = Identity(principalId: Self.principal)
        self.requestParameters = RequestParameters(sourceIPAddress: "127.0.0.1")
        self.responseElements = ResponseElements(
            requestID: SecureBytes.random(count: 8).hexString.uppercased(),
            hostID: Data(SecureBytes.random(count: 48)).base64EncodedString()
        )
        self.s3 = S3(
            configurationId: "",
            bucket: Bucket(name: app, ownerIdentity: Identity(principalId: Self.owner), arn: "arn:aws:s3:::" + app),
            object: Object(
                key: Self.encodedKey(key),
                size: object?.size,
                eTag: object.map { Self.bareETag($0.etag) },
                sequencer: Self.sequencer(sequencer)
            )
        )
    }

    /// The key as AWS writes it in a record: `application/x-www-form-urlencoded` (a space is `+`), with `/`
    /// left as it is, as S3 also writes keys in a listing under `encoding-type=url`
    /// (`PercentEncoding.formEncodedKey`).
    ///
    /// - Parameter key: the key, as stored.
    /// - Returns: the encoded key (`unquote_plus` in Python gives the key back).
    static func encodedKey(_ key: String) -> String {
        PercentEncoding.formEncodedKey(key)
    }

    /// A sequencer as AWS writes one: upper-case hex, here 16 digits, so that the later of two changes to a
    /// key compares greater as text too.
    ///
    /// - Parameter value: the change's number, increasing for the whole server.
    /// - Returns: the hex text.
    static func sequencer(_ value: UInt64) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
    }

    /// An entity tag without its quotes (and without a weak `W/`), as records carry it.
    ///
    /// - Parameter etag: the stored, quoted tag.
    /// - Returns: the bare tag.
    static func bareETag(_ etag: String) -> String {
        var tag = Substring(etag)
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 { tag = tag.dropFirst().dropLast() }
        return String(tag)
    }
}
