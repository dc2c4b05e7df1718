import Foundation
import MockCDNCore

extension PayloadDigests {
    /// The claims of a POST form (PostObject) about its file, checked against it as a PutObject's headers are
    /// against its body: a `Content-MD5` field and one `x-amz-checksum-*` field (`x-amz-checksum-crc32`,
    /// `-sha256`, ...), names matched without regard to case. `x-amz-checksum-algorithm` names the algorithm
    /// of that field; without a value it picks the checksum taken and kept with the object (S3 documents the
    /// field, not what it does alone: MockCDN's reading).
    ///
    /// - Parameter fields: the form's fields before the file.
    /// - Throws: `ChecksumError` (400 `InvalidDigest`, `InvalidRequest`) for a value that is no checksum of its
    ///   kind; 400 `InvalidRequest` for two checksum fields, an algorithm S3 does not have, or one that is not
    ///   the checksum field's.
    convenience init(form fields: [(name: String, value: String)]) throws {
        func field(_ name: String) -> String? { fields.first { $0.name.lowercased() == name }?.value }
        var named: ChecksumAlgorithm?
        if let name = field("x-amz-checksum-algorithm") {
            guard let algorithm = ChecksumAlgorithm(name: name.trimmingCharacters(in: .whitespaces)) else {
                throw Self.invalidRequest(
                    "Checksum algorithm provided is unsupported. Please try again with any of the valid types: ["
                        + ChecksumAlgorithm.all.map(\.name).joined(separator: ", ") + "]"
                )
            }
            named = algorithm
        }
        try self.init(
            contentMD5: field("content-md5"),
            fields: fields.map { ($0.name, $0.value) },
            trailer: nil,
            trailers: false,
            sdkAlgorithm: nil,
            unclaimedAlgorithm: named
        )
        if let named, let claimed = self.headerClaim?.algorithm, claimed != named {
            throw Self.invalidRequest(
                "x-amz-checksum-algorithm is \(named.name), but the form's checksum field is " + claimed.headerName
            )
        }
    }
}
