import Foundation
import MockCDNCore
import Testing

@Suite("S3 POST policies (browser form uploads)")
struct PostPolicyTests {
    typealias Fields = [(name: String, value: String)]

    // MARK: - AWS's example

    /// AWS's "Example: Browser-Based Upload using HTTP POST (Using AWS Signature Version 4)",
    /// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-post-example.html: its credentials, its base64 policy
    /// (648 bytes of JSON with CRLF line ends, as the page warns), the signature it states, and its form's fields
    /// in the form's order (the key as the browser sends it, before `${filename}` is expanded).
    static let aws = SigV4Credentials(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1"
    )
    static let awsPolicy =
        "eyAiZXhwaXJhdGlvbiI6ICIyMDE1LTEyLTMwVDEyOjAwOjAwLjAwMFoiLA0KICAiY29uZGl0aW9ucyI6IFsNCiAgICB7ImJ1Y2tldCI6ICJz"
        + "aWd2NGV4YW1wbGVidWNrZXQifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRrZXkiLCAidXNlci91c2VyMS8iXSwNCiAgICB7ImFjbCI6ICJw"
        + "dWJsaWMtcmVhZCJ9LA0KICAgIHsic3VjY2Vzc19hY3Rpb25fcmVkaXJlY3QiOiAiaHR0cDovL3NpZ3Y0ZXhhbXBsZWJ1Y2tldC5zMy5hbWF6"
        + "b25hd3MuY29tL3N1Y2Nlc3NmdWxfdXBsb2FkLmh0bWwifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRDb250ZW50LVR5cGUiLCAiaW1hZ2Uv"
        + "Il0sDQogICAgeyJ4LWFtei1tZXRhLXV1aWQiOiAiMTQzNjUxMjM2NTEyNzQifSwNCiAgICB7IngtYW16LXNlcnZlci1zaWRlLWVuY3J5cHRp"
        + "b24iOiAiQUVTMjU2In0sDQogICAgWyJzdGFydHMtd2l0aCIsICIkeC1hbXotbWV0YS10YWciLCAiIl0sDQoNCiAgICB7IngtYW16LWNyZWRl"
        + "bnRpYWwiOiAiQUtJQUlPU0ZPRE5ON0VYQU1QTEUvMjAxNTEyMjkvdXMtZWFzdC0xL3MzL2F3czRfcmVxdWVzdCJ9LA0KICAgIHsieC1hbXot"
        + "YWxnb3JpdGhtIjogIkFXUzQtSE1BQy1TSEEyNTYifSwNCiAgICB7IngtYW16LWRhdGUiOiAiMjAxNTEyMjlUMDAwMDAwWiIgfQ0KICBdDQp9"
    static let awsSignature = "8afdbf4008c03f22c2cd3cdb72e4afbb1f6a588f3255ac628749a66d7f09699e"
    static let awsBucket = "sigv4examplebucket"
    static let awsFields: Fields = [
        ("key", "user/user1/${filename}"),
        ("acl", "public-read"),
        ("success_action_redirect", "http://sigv4examplebucket.s3.amazonaws.com/successful_upload.html"),
        ("Content-Type", "image/jpeg"),
        ("x-amz-meta-uuid", "14365123651274"),
        ("x-amz-server-side-encryption", "AES256"),
        ("X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"),
        ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
        ("X-Amz-Date", "20151229T000000Z"),
        ("x-amz-meta-tag", ""),
        ("Policy", awsPolicy),
        ("X-Amz-Signature", awsSignature),
    ]
    /// The example's x-amz-date, and its policy's expiration (2015-12-30T12:00:00.000Z).
    static let awsDate = AmzDate.parseCompact("20151229T000000Z")!
    static let awsExpiration = AmzDate.parseCompact("20151230T120000Z")!
    static let awsKey = "user/user1/MyPhoto.jpg"

    // MARK: - boto3's

    /// The demo app (the same as `SigV4Tests`') at the same moment, 2026-11-21T13:47:25Z.
    static let demo = SigV4Credentials(
        accessKeyID: "demo-key",
        secretAccessKey: "demo-secret-for-local-testing-only",
        region: "us"
    )
    static let boto3Date = AmzDate.parseCompact("20261121T134725Z")!

    /// Made by boto3 1.43.11 (botocore 1.43.11) with the clock frozen, since botocore reads the wall clock
    /// (`botocore.utils.get_current_datetime`, imported by name into `botocore.auth` and `botocore.signers`):
    ///
    ///     import datetime, boto3, botocore.auth, botocore.signers
    ///     from botocore.config import Config
    ///     frozen = lambda remove_tzinfo=True: datetime.datetime(2026, 11, 21, 13, 47, 25)
    ///     botocore.auth.get_current_datetime = botocore.signers.get_current_datetime = frozen
    ///     s3 = boto3.client("s3", endpoint_url="http://127.0.0.1:18080", region_name="us",
    ///         aws_access_key_id="demo-key", aws_secret_access_key="demo-secret-for-local-testing-only",
    ///         config=Config(signature_version="s3v4", s3={"addressing_style": "path"}))
    ///     s3.generate_presigned_post(Bucket="demo", Key="attachments/${filename}",
    ///         Fields={"Content-Type": "image/png", "success_action_status": "201"},
    ///         Conditions=[["starts-with", "$Content-Type", "image/"], {"success_action_status": "201"},
    ///                     ["content-length-range", 1, 10485760]], ExpiresIn=900)
    ///
    /// URL `http://127.0.0.1:18080/demo`; the fields in boto3's order. The policy is
    /// `{"expiration": "2026-11-21T14:02:25Z", "conditions": [["starts-with", "$Content-Type", "image/"],
    /// {"success_action_status": "201"}, ["content-length-range", 1, 10485760], {"bucket": "demo"},
    /// ["starts-with", "$key", "attachments/"], {"x-amz-algorithm": "AWS4-HMAC-SHA256"},
    /// {"x-amz-credential": "demo-key/20261121/us/s3/aws4_request"}, {"x-amz-date": "20261121T134725Z"}]}`.
    static let boto3Policy =
        "eyJleHBpcmF0aW9uIjogIjIwMjYtMTEtMjFUMTQ6MDI6MjVaIiwgImNvbmRpdGlvbnMiOiBbWyJzdGFydHMtd2l0aCIsICIkQ29udGVudC1U"
        + "eXBlIiwgImltYWdlLyJdLCB7InN1Y2Nlc3NfYWN0aW9uX3N0YXR1cyI6ICIyMDEifSwgWyJjb250ZW50LWxlbmd0aC1yYW5nZSIsIDEsIDEw"
        + "NDg1NzYwXSwgeyJidWNrZXQiOiAiZGVtbyJ9LCBbInN0YXJ0cy13aXRoIiwgIiRrZXkiLCAiYXR0YWNobWVudHMvIl0sIHsieC1hbXotYWxn"
        + "b3JpdGhtIjogIkFXUzQtSE1BQy1TSEEyNTYifSwgeyJ4LWFtei1jcmVkZW50aWFsIjogImRlbW8ta2V5LzIwMjYxMTIxL3VzL3MzL2F3czRf"
        + "cmVxdWVzdCJ9LCB7IngtYW16LWRhdGUiOiAiMjAyNjExMjFUMTM0NzI1WiJ9XX0="
    static let boto3Fields: Fields = [
        ("Content-Type", "image/png"),
        ("success_action_status", "201"),
        ("key", "attachments/${filename}"),
        ("x-amz-algorithm", "AWS4-HMAC-SHA256"),
        ("x-amz-credential", "demo-key/20261121/us/s3/aws4_request"),
        ("x-amz-date", "20261121T134725Z"),
        ("policy", boto3Policy),
        ("x-amz-signature", "04ccb6688b38ec4ff784d5fa49c38bce52a1e5705a1d77a0e2e1a82c0eaa4879"),
    ]
    /// 900 s after `boto3Date`.
    static let boto3Expiration = AmzDate.parseCompact("20261121T140225Z")!

    /// The same call with `signature_version="s3"` (SigV2: botocore's `HmacV1PostAuth`); its policy lacks the
    /// three `x-amz-*` conditions.
    static let boto3V2Policy =
        "eyJleHBpcmF0aW9uIjogIjIwMjYtMTEtMjFUMTQ6MDI6MjVaIiwgImNvbmRpdGlvbnMiOiBbWyJzdGFydHMtd2l0aCIsICIkQ29udGVudC1U"
        + "eXBlIiwgImltYWdlLyJdLCB7InN1Y2Nlc3NfYWN0aW9uX3N0YXR1cyI6ICIyMDEifSwgWyJjb250ZW50LWxlbmd0aC1yYW5nZSIsIDEsIDEw"
        + "NDg1NzYwXSwgeyJidWNrZXQiOiAiZGVtbyJ9LCBbInN0YXJ0cy13aXRoIiwgIiRrZXkiLCAiYXR0YWNobWVudHMvIl1dfQ=="
    static let boto3V2Fields: Fields = [
        ("Content-Type", "image/png"),
        ("success_action_status", "201"),
        ("key", "attachments/${filename}"),
        ("AWSAccessKeyId", "demo-key"),
        ("policy", boto3V2Policy),
        ("signature", "MG2694kTlflSg207tyJW9BiJ4f4="),
    ]

    // MARK: - Helpers

    /// Verifies `fields` as the server will: `${filename}` expanded in every value, the key taken from `key`.
    @discardableResult
    static func verify(
        _ fields: Fields,
        filename: String? = "MyPhoto.jpg",
        bucket: String = PostPolicyTests.awsBucket,
        credentials: SigV4Credentials = PostPolicyTests.aws,
        now: Int64 = PostPolicyTests.awsDate
    ) throws(PostPolicyRefusal) -> PostPolicy {
        let expanded = fields.map { ($0.name, PostPolicy.expandingFilename($0.value, filename: filename)) }
        let key = expanded.first { $0.0.lowercased() == "key" }?.1 ?? ""
        return try PostPolicy.verify(fields: expanded, bucket: bucket, key: key, credentials: credentials, now: now)
    }

    /// The refusal `body` throws; fails the test when it throws none.
    static func refusal<T>(_ body: () throws(PostPolicyRefusal) -> T) -> PostPolicyRefusal? {
        do throws(PostPolicyRefusal) {
            _ = try body()
            Issue.record("no refusal")
            return nil
        } catch {
            return error
        }
    }

    /// `fields` with `name` (any case) given `value`, or removed when `value` is nil.
    static func replacing(_ name: String, with value: String?, in fields: Fields) -> Fields {
        fields.compactMap { field in
            guard field.name.lowercased() == name.lowercased() else { return field }
            return value.map { (field.name, $0) }
        }
    }

    /// A boto3-shaped SigV4 form for the demo app at `boto3Date`, signed over `policyJSON` as written.
    static func signedForm(policyJSON: String, key: String = "attachments/photo.png", extra: Fields = []) -> Fields {
        signedForm(base64Policy: Base64.encode(Array(policyJSON.utf8), .standard), key: key, extra: extra)
    }

    static func signedForm(base64Policy: String, key: String = "attachments/photo.png", extra: Fields = []) -> Fields {
        [("key", key)] + extra + [
            ("x-amz-algorithm", "AWS4-HMAC-SHA256"),
            ("x-amz-credential", "demo-key/20261121/us/s3/aws4_request"),
            ("x-amz-date", "20261121T134725Z"),
            ("policy", base64Policy),
            ("x-amz-signature", PostPolicy.sigV4Signature(policy: base64Policy, credentials: demo, day: "20261121")),
        ]
    }

    /// A policy as boto3 writes one for the demo app's form: `conditions`, then the ones boto3 adds.
    static func demoPolicy(_ conditions: String, expiration: String = "2026-11-21T14:02:25Z") -> String {
        #"{"expiration": "\#(expiration)", "conditions": [\#(conditions)\#(conditions.isEmpty ? "" : ", ")"#
            + #"{"bucket": "demo"}, ["starts-with", "$key", "attachments/"], {"x-amz-algorithm": "AWS4-HMAC-SHA256"}, "#
            + #"{"x-amz-credential": "demo-key/20261121/us/s3/aws4_request"}, {"x-amz-date": "20261121T134725Z"}]}"#
    }

    @discardableResult
    static func verifyDemo(
        _ fields: Fields,
        now: Int64 = PostPolicyTests.boto3Date
    ) throws(PostPolicyRefusal) -> PostPolicy {
        try verify(fields, filename: "photo.png", bucket: "demo", credentials: demo, now: now)
    }

    // MARK: - Valid forms

    @Test("AWS's example policy signs to the signature its page states")
    func awsSignatureVector() {
        #expect(
            PostPolicy.sigV4Signature(policy: Self.awsPolicy, credentials: Self.aws, day: "20151229")
                == Self.awsSignature
        )
    }

    @Test("AWS's example form verifies, and its policy reads as written")
    func awsExampleVerifies() throws {
        let policy = try Self.verify(Self.awsFields)
        #expect(policy.expiration == Self.awsExpiration)
        #expect(policy.contentLengthRange == nil)
        #expect(
            policy.conditions == [
                .equals(name: "$bucket", value: "sigv4examplebucket"),
                .startsWith(name: "$key", prefix: "user/user1/"),
                .equals(name: "$acl", value: "public-read"),
                .equals(
                    name: "$success_action_redirect",
                    value: "http://sigv4examplebucket.s3.amazonaws.com/successful_upload.html"
                ),
                .startsWith(name: "$Content-Type", prefix: "image/"),
                .equals(name: "$x-amz-meta-uuid", value: "14365123651274"),
                .equals(name: "$x-amz-server-side-encryption", value: "AES256"),
                .startsWith(name: "$x-amz-meta-tag", prefix: ""),
                .equals(name: "$x-amz-credential", value: "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"),
                .equals(name: "$x-amz-algorithm", value: "AWS4-HMAC-SHA256"),
                .equals(name: "$x-amz-date", value: "20151229T000000Z"),
            ]
        )
        // Until its expiration second, inclusive.
        try Self.verify(Self.awsFields, now: Self.awsExpiration)
    }

    @Test("boto3's SigV4 form verifies and reports its content-length-range")
    func boto3SigV4() throws {
        #expect(
            PostPolicy.sigV4Signature(policy: Self.boto3Policy, credentials: Self.demo, day: "20261121")
                == Self.boto3Fields.last!.value
        )
        let policy = try Self.verifyDemo(Self.boto3Fields)
        #expect(policy.expiration == Self.boto3Expiration)
        #expect(policy.contentLengthRange == 1...10_485_760)
        try policy.checkContentLength(1)
        try policy.checkContentLength(10_485_760)
        #expect(
            Self.refusal { () throws(PostPolicyRefusal) in try policy.checkContentLength(10_485_761) }
                == .entityTooLarge(proposed: 10_485_761, maximum: 10_485_760)
        )
        let tooSmall = Self.refusal { () throws(PostPolicyRefusal) in try policy.checkContentLength(0) }
        #expect(tooSmall?.code == "EntityTooSmall")
        #expect(tooSmall?.message == "Your proposed upload is smaller than the minimum allowed size")
        #expect(tooSmall?.details == [.init("ProposedSize", "0"), .init("MinSizeAllowed", "1")])
        let tooLarge = PostPolicyRefusal.entityTooLarge(proposed: 12, maximum: 10)
        #expect(tooLarge.code == "EntityTooLarge" && tooLarge.kind == .tooLarge)
        #expect(tooLarge.message == "Your proposed upload exceeds the maximum allowed size")
        #expect(tooLarge.details == [.init("ProposedSize", "12"), .init("MaxSizeAllowed", "10")])
    }

    @Test("boto3's SigV2 form verifies")
    func boto3SigV2() throws {
        #expect(
            PostPolicy.sigV2Signature(policy: Self.boto3V2Policy, secretAccessKey: Self.demo.secretAccessKey)
                == Self.boto3V2Fields.last!.value
        )
        let policy = try Self.verifyDemo(Self.boto3V2Fields)
        #expect(policy.contentLengthRange == 1...10_485_760)
    }

    @Test("field and condition names are matched without regard to case, values exactly")
    func caseInsensitiveNames() throws {
        // ceph s3-tests `case_insensitive_condition_fields`.
        let json = Self.demoPolicy(#"{"AcL": "private"}, ["StArTs-WiTh", "$CoNtEnT-TyPe", "text/"]"#)
        try Self.verifyDemo(
            Self.signedForm(policyJSON: json, extra: [("aCl", "private"), ("content-type", "text/plain")])
        )
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(
                Self.signedForm(policyJSON: json, extra: [("ACL", "Private"), ("Content-Type", "text/plain")])
            )
        }
        #expect(refused == .conditionFailed(#"["eq", "$AcL", "private"]"#))
    }

    @Test("fields S3 never asks a condition for may be sent without one")
    func uncheckedFields() throws {
        try Self.verify(Self.awsFields + [("x-ignore-flash", "1"), ("file", "ignored")])
    }

    @Test("checksum fields need no condition (the file is checked against them), but one that names them holds")
    func checksumFields() throws {
        let checksums: Fields = [
            ("x-amz-checksum-algorithm", "CRC32"), ("X-Amz-Checksum-CRC32", "AAAAAA=="),
            ("x-amz-checksum-sha256", "sailorjerry"),
        ]
        try Self.verifyDemo(Self.signedForm(policyJSON: Self.demoPolicy(""), extra: checksums))
        let named = Self.demoPolicy(#"["eq", "$x-amz-checksum-algorithm", "SHA256"]"#)
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verifyDemo(Self.signedForm(policyJSON: named, extra: checksums))
        }
        #expect(refused == .conditionFailed(#"["eq", "$x-amz-checksum-algorithm", "SHA256"]"#))
    }

    @Test("S3's own escapes in a policy's strings, beside JSON's: \\$ is a dollar sign, \\v a vertical tab")
    func policyEscapes() throws {
        let policy = Self.demoPolicy(#"["starts-with", "$key", "attachments/\$"], {"x-amz-meta-note": "a\vb\u0024"}"#)
        let form = Self.signedForm(
            policyJSON: policy,
            key: "attachments/$photo.png",
            extra: [("x-amz-meta-note", "a\u{0B}b$")]
        )
        let read = try Self.verifyDemo(form)
        #expect(read.conditions.contains(.startsWith(name: "$key", prefix: "attachments/$")))
        #expect(read.conditions.contains(.equals(name: "$x-amz-meta-note", value: "a\u{0B}b$")))
        // The escape is the dollar sign itself: a key without it fails the condition.
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verifyDemo(
                Self.signedForm(
                    policyJSON: policy,
                    key: "attachments/photo.png",
                    extra: [("x-amz-meta-note", "a\u{0B}b$")]
                )
            )
        }
        #expect(refused == .conditionFailed(#"["starts-with", "$key", "attachments/$"]"#))
    }

    @Test("a Content-Type with commas is a list under starts-with, each item tested")
    func contentTypeList() throws {
        let json = Self.demoPolicy(#"["starts-with", "$Content-Type", "image/"]"#)
        try Self.verifyDemo(
            Self.signedForm(policyJSON: json, extra: [("Content-Type", "image/jpg,image/png, image/gif")])
        )
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(
                Self.signedForm(policyJSON: json, extra: [("Content-Type", "image/jpg,text/plain")])
            )
        }
        #expect(refused == .conditionFailed(#"["starts-with", "$Content-Type", "image/"]"#))
    }

    // MARK: - Refusals

    @Test("a form past its policy's expiration is refused with S3's text")
    func expired() {
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.awsFields, now: Self.awsExpiration + 1)
        }
        #expect(refused == .expired(at: Self.awsExpiration))
        #expect(refused?.code == "AccessDenied")
        #expect(refused?.message == "Invalid according to Policy: Policy expired.")
        #expect(refused?.category == .forbidden)
        let boto3 = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.boto3Fields, now: Self.boto3Expiration + 1)
        }
        #expect(boto3 == .expired(at: Self.boto3Expiration))
    }

    @Test("a wrong signature is SignatureDoesNotMatch, showing the policy it covers and never the signature")
    func wrongSignature() {
        let wrong = "0" + Self.awsSignature.dropFirst()
        for signature in [wrong, wrong.uppercased(), "not-hex", String(Self.awsSignature.prefix(62))] {
            let refused = Self.refusal { () throws(PostPolicyRefusal) in
                try Self.verify(Self.replacing("X-Amz-Signature", with: signature, in: Self.awsFields))
            }
            #expect(refused?.code == "SignatureDoesNotMatch")
            #expect(
                refused?.message
                    == "The request signature we calculated does not match the signature you provided. Check your "
                    + "key and signing method."
            )
            #expect(
                refused?.details == [
                    .init("AWSAccessKeyId", "AKIAIOSFODNN7EXAMPLE"), .init("StringToSign", Self.awsPolicy),
                ]
            )
            #expect(refused.map { !"\($0.message)\($0.details)".contains(signature) } == true)
        }
        // A policy changed after signing (here, its last two characters gone) fails the same way.
        let truncated = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.replacing("Policy", with: String(Self.awsPolicy.dropLast(2)), in: Self.awsFields))
        }
        #expect(truncated?.code == "SignatureDoesNotMatch")
        let v2 = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(
                Self.replacing("signature", with: "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", in: Self.boto3V2Fields)
            )
        }
        #expect(v2?.code == "SignatureDoesNotMatch")
        #expect(v2?.details.contains(.init("StringToSign", Self.boto3V2Policy)) == true)
    }

    @Test("a key that is not the app's is InvalidAccessKeyId, for SigV4 and SigV2")
    func wrongAccessKey() {
        let other = SigV4Credentials(
            accessKeyID: "AKIAOTHERKEYEXAMPLE",
            secretAccessKey: Self.aws.secretAccessKey,
            region: "us-east-1"
        )
        let refused = Self.refusal { () throws(PostPolicyRefusal) in try Self.verify(Self.awsFields, credentials: other)
        }
        #expect(refused == .invalidAccessKeyID)
        #expect(refused?.code == "InvalidAccessKeyId")
        #expect(refused?.message == "The AWS Access Key Id you provided does not exist in our records.")
        let v2 = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.replacing("AWSAccessKeyId", with: "someone-else", in: Self.boto3V2Fields))
        }
        #expect(v2 == .invalidAccessKeyID)
    }

    @Test("a credential scoped to another region is S3's 400 InvalidArgument naming the right one")
    func wrongRegion() {
        let europe = SigV4Credentials(
            accessKeyID: Self.aws.accessKeyID,
            secretAccessKey: Self.aws.secretAccessKey,
            region: "eu-west-1"
        )
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.awsFields, credentials: europe)
        }
        #expect(refused?.code == "InvalidArgument")
        #expect(refused?.kind == .malformed)
        #expect(refused?.category == .invalidInput)
        #expect(refused?.message == "the region 'us-east-1' is wrong; expecting 'eu-west-1'")
        #expect(
            refused?.details == [
                .init("ArgumentName", "X-Amz-Credential"),
                .init("ArgumentValue", "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"),
                .init("Region", "eu-west-1"),
            ]
        )
        // The region is checked before the key, as for presigned URLs.
        let both = SigV4Credentials(accessKeyID: "other", secretAccessKey: "x", region: "eu-west-1")
        #expect(
            Self.refusal { () throws(PostPolicyRefusal) in try Self.verify(Self.awsFields, credentials: both) }?.code
                == "InvalidArgument"
        )
    }

    /// A field of AWS's example form changed, and S3's (or, unrecorded, MockCDN's) message for it.
    static let credentialCases: [(field: String, value: String, message: String)] = [
        ("X-Amz-Algorithm", "AWS4-HMAC-SHA1", #"X-Amz-Algorithm only supports "AWS4-HMAC-SHA256""#),
        (
            "X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3",
            #"the Credential is mal-formed; expecting "<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request"."#
        ),
        (
            "X-Amz-Credential", "/20151229/us-east-1/s3/aws4_request",
            "a non-empty Access Key (AKID) must be provided in the credential."
        ),
        (
            "X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20151228/us-east-1/s3/aws4_request",
            "the date '20151228' does not match X-Amz-Date"
        ),
        (
            "X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s4/aws4_request",
            "the scope must end in s3/aws4_request"
        ),
        ("X-Amz-Date", "2015-12-29T00:00:00Z", "X-Amz-Date must be formated via ISO8601 Long format"),
    ]

    @Test("the credential's other parts and the date are checked as for presigned URLs", arguments: credentialCases)
    func credentialRules(field: String, value: String, message: String) {
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.replacing(field, with: value, in: Self.awsFields))
        }
        #expect(refused?.code == "InvalidArgument")
        #expect(refused?.message == message)
        #expect(
            refused.map { Array($0.details.prefix(2)) } == [
                .init("ArgumentName", field), .init("ArgumentValue", value),
            ]
        )
    }

    @Test("a missing field is named as S3 names it; a form without any credential is anonymous")
    func missingFields() {
        for name in ["key", "X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Date", "X-Amz-Signature", "Policy"] {
            let refused = Self.refusal { () throws(PostPolicyRefusal) in
                try Self.verify(Self.replacing(name, with: nil, in: Self.awsFields))
            }
            #expect(refused == .missingField(name))
            #expect(
                refused?.message
                    == "Bucket POST must contain a field named '\(name)'.  If it is specified, please check the "
                    + "order of the fields."
            )
        }
        // S3 names the algorithm first when both it and the credential are missing.
        let both = Self.replacing(
            "X-Amz-Credential",
            with: nil,
            in: Self.replacing("X-Amz-Algorithm", with: nil, in: Self.awsFields)
        )
        #expect(
            Self.refusal { () throws(PostPolicyRefusal) in try Self.verify(both) } == .missingField("X-Amz-Algorithm")
        )
        #expect(
            Self.refusal { () throws(PostPolicyRefusal) in
                _ = try Self.verifyDemo(Self.replacing("signature", with: "", in: Self.boto3V2Fields))
            } == .missingField("Signature")
        )
        let anonymous = Self.awsFields.filter {
            !$0.name.lowercased().hasPrefix("x-amz-") || $0.name.hasPrefix("x-amz-meta")
        }
        #expect(Self.refusal { () throws(PostPolicyRefusal) in try Self.verify(anonymous) } == .anonymous)
    }

    @Test("a key outside the starts-with prefix fails that condition, printed as S3 prints it")
    func keyOutsidePrefix() {
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.replacing("key", with: "user/user2/${filename}", in: Self.awsFields))
        }
        #expect(refused == .conditionFailed(#"["starts-with", "$key", "user/user1/"]"#))
        #expect(
            refused?.message
                == #"Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "user/user1/"]"#
        )
        // The bucket is the one posted to, whatever the form says.
        let otherBucket = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.awsFields, bucket: "another")
        }
        #expect(otherBucket == .conditionFailed(#"["eq", "$bucket", "sigv4examplebucket"]"#))
    }

    @Test("a value other than an exact condition's fails it; a simple condition prints as eq")
    func equalsMismatch() {
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.replacing("acl", with: "private", in: Self.awsFields))
        }
        #expect(refused == .conditionFailed(#"["eq", "$acl", "public-read"]"#))
        let json = Self.demoPolicy(#"["eq", "$Content-Disposition", "attachment; filename=\"a.png\""]"#)
        let quoted = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.signedForm(policyJSON: json, extra: [("Content-Disposition", "inline")]))
        }
        #expect(quoted == .conditionFailed(#"["eq", "$Content-Disposition", "attachment; filename=\"a.png\""]"#))
        // A condition on a field the form lacks fails, even starts-with "".
        let absent = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.replacing("x-amz-meta-tag", with: nil, in: Self.awsFields))
        }
        #expect(absent == .conditionFailed(#"["starts-with", "$x-amz-meta-tag", ""]"#))
        // A name without its `$` tests no field, and fails as on S3.
        let noDollar = Self.demoPolicy(#"["eq", "success_action_status", "201"]"#)
        #expect(
            Self.refusal { () throws(PostPolicyRefusal) in
                _ = try Self.verifyDemo(
                    Self.signedForm(policyJSON: noDollar, extra: [("success_action_status", "201")])
                )
            } == .conditionFailed(#"["eq", "success_action_status", "201"]"#)
        )
    }

    @Test("a field no condition covers is an extra input field, named as the form spelled it")
    func extraField() {
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            try Self.verify(Self.awsFields + [("X-Amz-Meta-Extra", "1"), ("Filename", "MyPhoto.jpg")])
        }
        #expect(refused == .extraInputFields(["X-Amz-Meta-Extra", "Filename"]))
        #expect(refused?.message == "Invalid according to Policy: Extra input fields: X-Amz-Meta-Extra, Filename")
        #expect(refused?.code == "AccessDenied")
    }

    /// A policy with boto3's expiration around `conditions`.
    static func expiring(_ conditions: String) -> String {
        #"{"expiration": "2026-11-21T14:02:25Z", "conditions": [\#(conditions)]}"#
    }

    /// Policies S3 cannot read, each with the reason MockCDN gives (S3's where one was recorded).
    static let malformedPolicies: [(json: String, reason: String)] = [
        (#"{"expiration": "2026-11-21T14:02:25Z", "conditions": ["#, "Invalid JSON."),
        ("[]", "Invalid JSON."),
        (#"{"expiration": "2026-11-21T14:02:25Z", "conditions": [], "conditions": []}"#, "Invalid JSON."),
        (expiring(#""a\u0000""#), "Invalid condition test: must be a List or Object."),
        (#"{"Statement": [], "expiration": "2026-11-21T14:02:25Z", "conditions": []}"#, "Unexpected: 'statement'"),
        (#"{"conditions": []}"#, "Policy missing expiration."),
        (#"{"expiration": "2026-11-21T14:02:25Z"}"#, "Policy missing conditions."),
        (#"{"expiration": "2026-11-21T14:02:25Z", "conditions": {}}"#, "Invalid 'conditions' value: must be a List."),
        (
            #"{"expiration": "2026-11-21T16:02:25+02:00", "conditions": []}"#,
            "Invalid 'expiration' value: '2026-11-21T16:02:25+02:00'"
        ),
        (
            #"{"expiration": "2026-11-21 14:02:25 UTC", "conditions": []}"#,
            "Invalid 'expiration' value: '2026-11-21 14:02:25 UTC'"
        ),
        (#"{"expiration": 1795356145, "conditions": []}"#, "Invalid 'expiration' value: '1795356145'"),
        (
            expiring(#"{"acl": "a", "key": "b"}"#),
            "Invalid Simple-Condition: Simple-Conditions must have exactly one property specified."
        ),
        (expiring(#"{"Content-Length": 6199034}"#), "Invalid Simple-Condition: value must be a string."),
        (expiring(#"{"success_action_redirect": null}"#), "Invalid JSON."),
        (expiring(#"["content-length-range", 0, 512.0]"#), "Invalid JSON."),
        (expiring(#"["content-length-range", 0]"#), "Invalid content-length-range: wrong number of arguments."),
        (
            expiring(#"["content-length-range", -1, 0]"#),
            "Invalid content-length-range: the bounds must be 0 or more, the first no larger."
        ),
        (
            expiring(#"["content-length-range", 1, 5], ["content-length-range", 6, 9]"#),
            "Invalid content-length-range: no length is within every range."
        ),
        (expiring("[]"), "Invalid Condition: missing operation identifier."),
        (expiring(#"["between", "$key", "a"]"#), "Invalid Condition: unknown operation 'between'."),
        (expiring(#"["eq", "$key", 1]"#), "Invalid JSON."),
        (expiring(#"["starts-with", "$key"]"#), "Invalid starts-with: wrong number of arguments."),
        // An escape neither JSON nor S3's policy language has.
        (expiring(#"["eq", "$key", "\%foo"]"#), "Invalid JSON."),
        // Deeper than `PolicyJSON.maximumDepth`.
        (expiring(String(repeating: "[", count: 40) + String(repeating: "]", count: 40)), "Invalid JSON."),
    ]

    @Test("a policy S3 cannot read is InvalidPolicyDocument with S3's reason", arguments: malformedPolicies)
    func malformedPolicy(json: String, reason: String) {
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.signedForm(policyJSON: json))
        }
        #expect(refused == .invalidPolicy(reason))
        #expect(refused?.code == "InvalidPolicyDocument")
        #expect(refused?.message == "Invalid Policy: " + reason)
        #expect(refused?.category == .invalidInput)
    }

    @Test("a policy that is not base64 is refused once its signature holds")
    func malformedBase64() {
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.signedForm(base64Policy: "eyJleHBpcmF0aW9uIjo*"))
        }
        #expect(refused == .invalidPolicy("invalid Base64 encoding."))
        let notUTF8 = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.signedForm(base64Policy: Base64.encode([0x7b, 0xff, 0x7d], .standard)))
        }
        #expect(notUTF8 == .invalidPolicy("Invalid JSON."))
    }

    @Test("a content-length-range with strings of digits is read; other strings make a condition no form meets")
    func lengthRangeStrings() throws {
        let digits = Self.demoPolicy(#"["content-length-range", "5", "10"]"#)
        let policy = try Self.verifyDemo(Self.signedForm(policyJSON: digits))
        #expect(policy.contentLengthRange == 5...10)
        let words = Self.demoPolicy(#"["content-length-range", "test", "10"]"#)
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.signedForm(policyJSON: words))
        }
        #expect(refused == .conditionFailed(#"["content-length-range", "test", "10"]"#))
        // Several ranges hold at once.
        let two = Self.demoPolicy(#"["content-length-range", 1, 100], ["content-length-range", 50, 200]"#)
        #expect(try Self.verifyDemo(Self.signedForm(policyJSON: two)).contentLengthRange == 50...100)
    }

    @Test("a policy or a form over S3's 20 KiB of fields is MaxPostPreDataLengthExceeded")
    func oversize() {
        let huge = String(repeating: "A", count: PostPolicy.maximumFormLength + 4)
        #expect(Self.refusal { () throws(PostPolicyRefusal) in _ = try PostPolicy.parse(huge) } == .formTooLarge)
        let refused = Self.refusal { () throws(PostPolicyRefusal) in
            _ = try Self.verifyDemo(Self.signedForm(base64Policy: huge))
        }
        #expect(refused == .formTooLarge)
        #expect(refused?.code == "MaxPostPreDataLengthExceeded")
        #expect(refused?.message == "Your POST request fields preceeding the upload file was too large.")
        #expect(refused?.details == [.init("MaxPostPreDataLengthBytes", "20480")])
        #expect(refused?.category == .tooLarge)
        // The policy fits, but not with the other fields.
        let padded = Self.boto3Fields + [("x-ignore-padding", String(repeating: "x", count: 20_000))]
        #expect(Self.refusal { () throws(PostPolicyRefusal) in _ = try Self.verifyDemo(padded) } == .formTooLarge)
    }

    // MARK: - Helpers of the server's

    @Test(
        "${filename} becomes the file's name without its path; no filename parameter leaves it",
        arguments: [
            ("uploads/${filename}", "photo.png" as String?, "uploads/photo.png"),
            ("uploads/${filename}", #"C:\Users\mary\photo.png"#, "uploads/photo.png"),
            ("uploads/${filename}", "dir/sub/photo.png", "uploads/photo.png"),
            ("uploads/${filename}", "", "uploads/"),
            ("uploads/${filename}", nil, "uploads/${filename}"),
            ("${filename}/${filename}", "a.txt", "a.txt/a.txt"),
            ("plain", "a.txt", "plain"),
        ]
    )
    func filenameExpansion(value: String, filename: String?, expected: String) {
        #expect(PostPolicy.expandingFilename(value, filename: filename) == expected)
    }

    @Test(
        "a policy's expiration reads with or without milliseconds, and nothing else",
        arguments: [
            ("2015-12-30T12:00:00.000Z", AmzDate.parseCompact("20151230T120000Z")),
            ("2026-11-21T14:02:25Z", AmzDate.parseCompact("20261121T140225Z")),
            ("2026-11-21T14:02:25.123456789Z", AmzDate.parseCompact("20261121T140225Z")),
            ("2026-11-21T14:02:25.Z", nil),
            ("2026-11-21T14:02:25.1234567890Z", nil),
            ("2026-11-21T14:02:25+00:00", nil),
            ("2026-11-21 14:02:25Z", nil),
            ("2026-02-30T14:02:25Z", nil),
            ("20261121T140225Z", nil),
        ]
    )
    func expirationFormats(text: String, expected: Int64?) {
        #expect(AmzDate.parseISO8601(text) == expected)
    }
}
