import Hummingbird
import MockCDNCore

/// What a PUT's signature promises about its body, from the signed `x-amz-content-sha256`: its SHA-256,
/// nothing (`UNSIGNED-PAYLOAD`, and every presigned PUT), or aws-chunked framing (`STREAMING-*`).
enum PayloadPromise: Sendable, Equatable {
    case unsigned
    /// The body's SHA-256, lower-case hex: checked once the body arrived, before it is stored.
    case sha256(String)
    /// aws-chunked framing, its chunks (and trailer) signed in a chain from the header's signature, or not.
    case streaming(AWSChunkedMode, seed: SigV4.StreamingSeed)

    /// The promise of a header-signed request.
    ///
    /// - Parameter signed: the verified `Authorization` header: its `x-amz-content-sha256` and seed.
    /// - Throws: 400 `InvalidArgument` for a value that is none of S3's; `AWSChunkedError` for a `STREAMING-`
    ///   value MockCDN does not take (400 `InvalidRequest`, 501 for SigV4a).
    init(_ signed: SigV4.SignedRequest) throws {
        let payloadHash = signed.payloadHash
        if payloadHash == SigV4.unsignedPayload {
            self = .unsigned
        } else if let mode = try AWSChunkedMode.streaming(payloadHash: payloadHash) {
            self = .streaming(mode, seed: signed.streamingSeed)
        } else if payloadHash.utf8.count == 64, [UInt8](hexString: payloadHash) != nil {
            self = .sha256(payloadHash.lowercased())
        } else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-UNSIGNED-PAYLOAD-TRAILER, "
                    + "STREAMING-AWS4-HMAC-SHA256-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER, or a valid "
                    + "sha256 value.",
                details: [("ArgumentName", "x-amz-content-sha256")]
            )
        }
    }

    /// Refuses a body whose SHA-256 is not the one promised.
    ///
    /// - Parameter summary: the whole body's size and digest.
    /// - Throws: 400 `XAmzContentSHA256Mismatch`, naming both hashes as S3 does.
    func check(_ summary: ObjectIntake.Summary) throws {
        guard case .sha256(let promised) = self else { return }
        // A promised hash makes the store take the SHA-256 (`S3Payload.digest`); without one, nothing matches.
        let computed = summary.sha256?.hexString ?? ""
        guard computed == promised else {
            throw S3Error(
                status: .badRequest,
                code: "XAmzContentSHA256Mismatch",
                message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
                details: [("ClientComputedContentSHA256", promised), ("S3ComputedContentSHA256", computed)]
            )
        }
    }
}
