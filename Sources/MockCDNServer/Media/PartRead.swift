import HTTPTypes
import Hummingbird
import MockCDNCore

/// A read of one part of an object: GetObject or HeadObject with `?partNumber=N`, which S3 answers as a
/// ranged read of the part's bytes (206, the part's `Content-Range` and `Content-Length`, the whole object's
/// ETag) with `x-amz-mp-parts-count` for an object joined from parts (`ObjectParts`). An object that was not
/// is one part: part 1 is all of it. A variant (an image transform) is such an object.
struct PartRead: Equatable {
    /// How many parts the object was uploaded in, on a part read of an object uploaded in parts.
    static let partsCountHeader = HTTPField.Name("x-amz-mp-parts-count")!

    /// The part asked for, from 1.
    let number: Int

    /// The part a read asks for, checked before the object is looked up.
    ///
    /// - Parameters:
    ///   - request: the read.
    ///   - query: its query.
    /// - Returns: nil for a read without `partNumber`.
    /// - Throws: 400 `InvalidRequest` when it has a `Range` header too (before the number is looked at, as
    ///   on S3); 400 `InvalidArgument` for a number that is not an integer from 1 to 10,000.
    static func requested(_ request: Request, query: QueryItems) throws(S3Error) -> PartRead? {
        guard let text = query.first("partNumber") else { return nil }
        guard request.headers[.range] == nil else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidRequest",
                message: "Cannot specify both Range header and partNumber query parameter"
            )
        }
        return PartRead(number: try ObjectParts.number(text))
    }

    /// The part's bytes within a representation of `size` bytes.
    ///
    /// - Parameters:
    ///   - size: the representation's length.
    ///   - parts: its parts; nil when it was not joined from parts (one part).
    /// - Returns: the offsets (empty for an empty part).
    /// - Throws: 416 `InvalidPartNumber`, with `PartNumberRequested` and `ActualPartCount`, past the last part.
    func bytes(size: Int, parts: ObjectParts?) throws(S3Error) -> Range<Int> {
        let range: Range<Int>?
        if let parts {
            range = parts.range(ofPart: self.number)
        } else {
            range = self.number == 1 ? 0..<size : nil
        }
        guard let range else {
            throw S3Error(
                status: .rangeNotSatisfiable,
                code: "InvalidPartNumber",
                message: "The requested partnumber is not satisfiable",
                details: [
                    ("PartNumberRequested", String(self.number)),
                    ("ActualPartCount", String(parts?.sizes.count ?? 1)),
                ]
            )
        }
        return range
    }
}
