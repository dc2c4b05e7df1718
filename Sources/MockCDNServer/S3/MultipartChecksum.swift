import Foundation
import HTTPTypes
import Hummingbird
import MockCDNCore

/// The checksum a multipart upload was created with (CreateMultipartUpload's `x-amz-checksum-algorithm` and
/// `x-amz-checksum-type`), and S3's rules for it: each UploadPart carries that algorithm's checksum, the
/// completion names each part's, and the object gets a `COMPOSITE` checksum (the checksum of the parts'
/// binary checksums one after another, `-N` after it) or, for a CRC, a `FULL_OBJECT` one (the CRC of every
/// byte). CRC64NVME is full-object only; SHA-1, SHA-256 and the 2026 algorithms (SHA-512, MD5, the xxHashes)
/// are composite only, as their values for parts cannot be combined into the whole's.
struct MultipartChecksum: Sendable, Equatable {
    /// How an object's checksum is made from its parts: S3's `ChecksumType`.
    enum Kind: String, Sendable {
        case composite = "COMPOSITE"
        case fullObject = "FULL_OBJECT"
    }

    static let algorithmHeader = HTTPField.Name("x-amz-checksum-algorithm")!
    static let typeHeader = HTTPField.Name("x-amz-checksum-type")!

    let algorithm: ChecksumAlgorithm
    let kind: Kind

    /// An upload's checksum, S3's default type for the algorithm when none is named.
    ///
    /// - Parameters:
    ///   - algorithm: the algorithm.
    ///   - kind: the type; nil for S3's default (`FULL_OBJECT` for CRC64NVME, else `COMPOSITE`).
    /// - Throws: 400 `InvalidRequest` for a type the algorithm does not have.
    init(_ algorithm: ChecksumAlgorithm, kind: Kind? = nil) throws(S3Error) {
        let kind = kind ?? (algorithm.makesComposite ? .composite : .fullObject)
        let allowed = kind == .composite ? algorithm.makesComposite : algorithm.combinesFullObject
        guard allowed else {
            throw PayloadDigests.invalidRequest(
                "The \(kind.rawValue) checksum type cannot be used with the \(algorithm.name.lowercased()) checksum "
                    + "algorithm."
            )
        }
        self.algorithm = algorithm
        self.kind = kind
    }

    /// The checksum a CreateMultipartUpload asks for.
    ///
    /// - Parameter request: the request.
    /// - Returns: nil when it names no algorithm.
    /// - Throws: 400 `InvalidRequest` for an algorithm or type S3 does not have, a type without an algorithm,
    ///   or a type the algorithm does not have.
    static func requested(by request: Request) throws(S3Error) -> MultipartChecksum? {
        let typeName = request.headers[Self.typeHeader]?.trimmingCharacters(in: .whitespaces)
        var kind: Kind?
        if let typeName {
            guard let named = Kind(rawValue: typeName.uppercased()) else {
                throw PayloadDigests.invalidRequest("Value for x-amz-checksum-type header is invalid.")
            }
            kind = named
        }
        guard let name = request.headers[Self.algorithmHeader]?.trimmingCharacters(in: .whitespaces) else {
            guard kind == nil else {
                throw PayloadDigests.invalidRequest(
                    "The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header."
                )
            }
            return nil
        }
        guard let algorithm = ChecksumAlgorithm(name: name) else { throw Self.unsupported }
        return try MultipartChecksum(algorithm, kind: kind)
    }

    /// S3's refusal of an algorithm it does not have, naming those it has.
    static var unsupported: S3Error {
        PayloadDigests.invalidRequest(
            "Checksum algorithm provided is unsupported. Please try again with any of the valid types: ["
                + ChecksumAlgorithm.all.map(\.name).joined(separator: ", ") + "]"
        )
    }

    /// `x-amz-checksum-algorithm` and `x-amz-checksum-type`, as CreateMultipartUpload and
    /// CompleteMultipartUpload answer them.
    var answerHeaders: HTTPFields {
        [Self.algorithmHeader: self.algorithm.name, Self.typeHeader: self.kind.rawValue]
    }

    /// Checks the algorithm an UploadPart claims against the upload's, as S3 does: another algorithm is
    /// refused; no claim at all is refused for a composite checksum (made of the parts' own) and computed
    /// for a full-object one. An upload created without a checksum takes a part's claim of one of the five
    /// algorithms S3 had before 2026 (checked, not kept), and refuses the 2026 ones.
    ///
    /// - Parameters:
    ///   - claimed: the algorithm the part's header or trailer claims, if any.
    ///   - upload: the upload's checksum, if any.
    /// - Throws: 400 `InvalidRequest` (`Checksum Type mismatch occurred, ...`).
    static func checkPart(claimed: ChecksumAlgorithm?, upload: MultipartChecksum?) throws(S3Error) {
        guard let upload else {
            if let claimed, ChecksumAlgorithm.added2026.contains(claimed) {
                throw Self.mismatch(expected: nil, actual: claimed)
            }
            return
        }
        if claimed == nil, upload.kind == .fullObject { return }
        guard claimed != upload.algorithm else { return }
        throw Self.mismatch(expected: upload.algorithm, actual: claimed)
    }

    private static func mismatch(expected: ChecksumAlgorithm?, actual: ChecksumAlgorithm?) -> S3Error {
        let name = { (algorithm: ChecksumAlgorithm?) in algorithm.map { $0.name.lowercased() } ?? "null" }
        return PayloadDigests.invalidRequest(
            "Checksum Type mismatch occurred, expected checksum Type: \(name(expected)), actual checksum Type: "
                + name(actual)
        )
    }

    /// The composite checksum of an object made of parts: the algorithm's checksum of the parts' binary
    /// checksums one after another, base64, then `-` and the number of parts.
    ///
    /// - Parameters:
    ///   - algorithm: the upload's algorithm.
    ///   - parts: the parts' checksums in base64, in part order.
    /// - Returns: the object's checksum, as `x-amz-checksum-*` carries it; nil when a part's is not base64.
    static func composite(_ algorithm: ChecksumAlgorithm, ofParts parts: [String]) -> String? {
        var joined: [UInt8] = []
        for part in parts {
            guard let digest = Base64.decode(part, .standard) else { return nil }
            joined += digest
        }
        return Base64.encode(algorithm.checksum(of: joined), .standard) + "-" + String(parts.count)
    }
}
