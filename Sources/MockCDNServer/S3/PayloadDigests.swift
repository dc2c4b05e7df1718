import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore
import NIOCore
import Synchronization

/// What an S3 request claims about its body besides its signature, checked as S3 checks it: `Content-MD5`, and
/// one flexible checksum (`x-amz-checksum-{crc32,crc32c,crc64nvme,sha1,sha256}`, and since 2026
/// `-{sha512,md5,xxhash64,xxhash3,xxhash128}`) in a header or, under
/// aws-chunked, in the trailer `x-amz-trailer` names. The body's MD5 (S3's ETag) and its checksum (the claimed
/// algorithm's, else CRC64NVME, which S3 computes for every new object) are taken as it streams past, once.
final class PayloadDigests: Sendable {
    /// The checksum S3 keeps for an object stored without one.
    static let defaultAlgorithm = ChecksumAlgorithm.crc64nvme
    static let sdkAlgorithmHeader = HTTPField.Name("x-amz-sdk-checksum-algorithm")!
    static let trailerHeader = HTTPField.Name("x-amz-trailer")!
    static let contentMD5Header = HTTPField.Name("Content-MD5")!

    private struct State {
        /// The trailer's claim, once the trailer arrived.
        var trailerClaim: ClaimedChecksum?
        var finished: (md5: [UInt8], checksum: [UInt8])?
    }

    // Each digest behind its own lock, so that an upload can run them on two threads at once (`PayloadBody`).
    private let md5 = Mutex(MD5Hasher())
    private let checksum: Mutex<Checksummer>
    private let state = Mutex(State())
    let contentMD5: ClaimedChecksum?
    /// The claim in a header; nil when there is none, or it comes in the trailer.
    let headerClaim: ClaimedChecksum?
    /// The algorithm `x-amz-trailer` announces.
    let trailerAlgorithm: ChecksumAlgorithm?
    /// The checksum it computes: the claimed algorithm's, else CRC64NVME.
    let algorithm: ChecksumAlgorithm

    /// The claims of `request`, checked for form before any byte of the body is read. A presigned URL may
    /// carry its checksum in the query, as botocore hoists it there when it presigns with SigV2.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - query: its query.
    ///   - trailers: whether its body can carry a trailer (an aws-chunked `...-TRAILER` mode).
    ///   - unclaimedAlgorithm: the checksum to take and keep when none is claimed (an UploadPart's upload's);
    ///     nil for CRC64NVME.
    /// - Throws: `ChecksumError` (400 `InvalidDigest`, `InvalidRequest`) for a value that is no checksum of
    ///   its kind; 400 `InvalidRequest` for two checksum headers, a trailer the body cannot carry, or an
    ///   `x-amz-sdk-checksum-algorithm` with no checksum to go with it.
    convenience init(
        _ request: Request,
        query: QueryItems,
        trailers: Bool,
        unclaimedAlgorithm: ChecksumAlgorithm? = nil
    ) throws {
        try self.init(
            contentMD5: request.headers[Self.contentMD5Header],
            fields: request.headers.map { ($0.name.canonicalName, $0.value) }
                + query.decoded.map { ($0.name, $0.value) },
            trailer: request.headers[Self.trailerHeader],
            trailers: trailers,
            sdkAlgorithm: request.headers[Self.sdkAlgorithmHeader],
            unclaimedAlgorithm: unclaimedAlgorithm
        )
    }

    /// The claims, from wherever the request makes them (headers and query, or a POST form's fields).
    ///
    /// - Parameters:
    ///   - contentMD5: the `Content-MD5` claimed, if any.
    ///   - fields: names and values among which `x-amz-checksum-*` are the checksum claims.
    ///   - trailer: `x-amz-trailer`'s value, if any.
    ///   - trailers: whether the body can carry a trailer.
    ///   - sdkAlgorithm: the algorithm the client says it used (`x-amz-sdk-checksum-algorithm`), if any.
    ///   - unclaimedAlgorithm: the checksum to take and keep when none is claimed; nil for CRC64NVME.
    /// - Throws: as `init(_:query:trailers:)`.
    init(
        contentMD5: String?,
        fields: [(String, String)],
        trailer: String?,
        trailers: Bool,
        sdkAlgorithm: String?,
        unclaimedAlgorithm: ChecksumAlgorithm? = nil
    ) throws {
        self.contentMD5 = try contentMD5.map { try ClaimedChecksum(contentMD5: $0) }
        var claims: [ClaimedChecksum] = []
        for (name, value) in fields {
            guard let algorithm = ChecksumAlgorithm(headerName: name) else { continue }
            claims.append(try ClaimedChecksum(value, algorithm: algorithm))
        }
        guard claims.count <= 1 else {
            throw Self.invalidRequest(
                "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed."
            )
        }
        self.headerClaim = claims.first
        if let trailer {
            guard trailers, let algorithm = ChecksumAlgorithm(headerName: trailer.trimmingCharacters(in: .whitespaces))
            else {
                throw Self.invalidRequest("The value specified in the x-amz-trailer header is not supported")
            }
            self.trailerAlgorithm = algorithm
        } else {
            self.trailerAlgorithm = nil
        }
        if let sdkAlgorithm, self.headerClaim == nil, self.trailerAlgorithm == nil {
            throw Self.invalidRequest(
                "x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers "
                    + "were found. (\(sdkAlgorithm.prefix(32)))"
            )
        }
        let algorithm =
            self.headerClaim?.algorithm ?? self.trailerAlgorithm ?? unclaimedAlgorithm ?? Self.defaultAlgorithm
        self.algorithm = algorithm
        self.checksum = Mutex(Checksummer(algorithm))
    }

    /// Digests of a body that claims nothing (a copy's source read back): its MD5 and a checksum.
    ///
    /// - Parameter algorithm: the checksum to take: CRC64NVME unless a multipart upload has another.
    init(unclaimed algorithm: ChecksumAlgorithm = PayloadDigests.defaultAlgorithm) {
        self.contentMD5 = nil
        self.headerClaim = nil
        self.trailerAlgorithm = nil
        self.algorithm = algorithm
        self.checksum = Mutex(Checksummer(algorithm))
    }

    static func invalidRequest(_ message: String) -> S3Error {
        S3Error(status: .badRequest, code: "InvalidRequest", message: message)
    }

    /// Whether the request claims any digest of its body.
    var claimsAny: Bool { self.contentMD5 != nil || self.headerClaim != nil || self.trailerAlgorithm != nil }

    /// Takes the next piece of the body.
    func update(_ chunk: ByteBuffer) {
        self.updateMD5([chunk])
        self.updateChecksum([chunk])
    }

    /// Takes the next pieces of the body into the MD5 only; `updateChecksum(_:)` must see the same pieces.
    func updateMD5(_ chunks: [ByteBuffer]) {
        self.md5.withLock { md5 in
            for chunk in chunks { md5.update(chunk) }
        }
    }

    /// Takes the next pieces of the body into the checksum only; `updateMD5(_:)` must see the same pieces.
    func updateChecksum(_ chunks: [ByteBuffer]) {
        self.checksum.withLock { checksum in
            for chunk in chunks { checksum.update(chunk) }
        }
    }

    /// Takes the trailer of an aws-chunked body: the checksum `x-amz-trailer` announced must be in it.
    ///
    /// - Throws: 400 `MalformedTrailerError` when it is not; `ChecksumError` for a value that is no checksum.
    func take(_ trailers: AWSChunkedDecoder.Trailers) throws {
        guard let algorithm = self.trailerAlgorithm else { return }
        guard let value = trailers[algorithm.headerName] else {
            throw S3Error(
                status: .badRequest,
                code: "MalformedTrailerError",
                message: "The request contained trailing data that was not well-formed or did not conform to our "
                    + "published schema."
            )
        }
        let claim = try ClaimedChecksum(value, algorithm: algorithm)
        self.state.withLock { $0.trailerClaim = claim }
    }

    /// Checks every claim against the whole body.
    ///
    /// - Returns: the body's MD5 and checksum.
    /// - Throws: `ChecksumError` (400 `BadDigest`) for a claim the body does not meet.
    @discardableResult
    func verify() throws -> (md5: [UInt8], checksum: [UInt8]) {
        let (digests, trailerClaim) = self.state.withLock { state in
            if state.finished == nil {
                state.finished = (self.md5.withLock { $0.finalize() }, self.checksum.withLock { $0.finalize() })
            }
            return (state.finished!, state.trailerClaim)
        }
        try self.contentMD5?.check(digests.md5)
        try (self.headerClaim ?? trailerClaim)?.check(digests.checksum)
        return digests
    }

    /// Checks the claims and names what to store and answer: the MD5 ETag, the checksum among the object's
    /// extras, and the `x-amz-checksum-*` header S3 answers when one was claimed.
    ///
    /// - Parameter attributes: the object's attributes, to which the ETag and the checksum are added.
    /// - Throws: what `verify` throws.
    func seal(_ attributes: inout ObjectAttributes) throws {
        let digests = try self.verify()
        attributes.etag = "\"" + digests.md5.hexString + "\""
        attributes.extras[ObjectHeaders.checksumExtra(self.algorithm.name)] = Base64.encode(digests.checksum, .standard)
    }

    /// The `x-amz-checksum-*` header of the answer: the checksum, when the request claimed one.
    func answerHeaders() -> HTTPFields {
        guard self.headerClaim != nil || self.trailerAlgorithm != nil,
            let name = HTTPField.Name(self.algorithm.headerName),
            let digests = self.state.withLock({ $0.finished })
        else { return [:] }
        return [name: Base64.encode(digests.checksum, .standard)]
    }
}

extension PayloadDigests {
    /// Checks the checksum a document's request claims (`Content-MD5`, `x-amz-checksum-*`): botocore sends
    /// one, as S3's model requires; a claim is checked, and none is required unless `missing` is given. A
    /// large document is hashed off the cooperative pool (`Digest.taken`).
    ///
    /// - Parameters:
    ///   - body: the document, read whole.
    ///   - request: its request.
    ///   - query: its query.
    ///   - missing: the refusal of a request that claims no checksum, for an operation S3 takes only with one
    ///     (DeleteObjects); nil where none is required.
    /// - Throws: `missing`; S3's refusal of a claim the body does not match.
    static func checkDocument(
        _ body: ByteBuffer,
        of request: Request,
        query: QueryItems,
        missing: S3Error? = nil
    ) async throws {
        let digests = try PayloadDigests(request, query: query, trailers: false)
        if let missing, !digests.claimsAny { throw missing }
        try await Digest.taken(over: body.readableBytes) {
            digests.update(body)
            _ = try digests.verify()
        }
    }
}
