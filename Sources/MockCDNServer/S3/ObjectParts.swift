import HTTPTypes
import MockCDNCore

/// The parts an object was joined from by CompleteMultipartUpload: their sizes, in the order joined, kept
/// among the object's extras (`part_sizes`: `5242880,5242880,1024`) wherever the store keeps its metadata, so
/// that a read with `?partNumber=N` finds part N's bytes after a restart too. Parts are numbered from 1 in
/// that order, whatever numbers they were uploaded under, as on S3. An object stored any other way (PutObject,
/// a form, CopyObject) has none: it is one part.
struct ObjectParts: Equatable, Sendable {
    /// The extra that keeps the sizes.
    static let extra = "part_sizes"
    /// S3's highest part number, and most parts.
    static let maximumNumber = 10_000

    /// Each part's size, in order.
    let sizes: [Int]

    /// Parts of these sizes, in order.
    init(sizes: [Int]) {
        self.sizes = sizes
    }

    /// The parts `metadata` keeps.
    ///
    /// - Parameter metadata: a stored object.
    /// - Returns: nil for an object not joined from parts, and for kept sizes that are no list of sizes or do
    ///   not add up to the object's size (such parts would name bytes the object does not have).
    init?(of metadata: ObjectMetadata) {
        guard let text = metadata.extras[Self.extra] else { return nil }
        var sizes: [Int] = []
        for field in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let size = Int(field), size >= 0, sizes.count < Self.maximumNumber else { return nil }
            sizes.append(size)
        }
        guard !sizes.isEmpty, sizes.reduce(0, +) == metadata.size else { return nil }
        self.sizes = sizes
    }

    /// The value of the extra.
    var extraValue: String {
        self.sizes.map(String.init).joined(separator: ",")
    }

    /// The bytes of part `number` within the object.
    ///
    /// - Parameter number: counted from 1.
    /// - Returns: the offsets; nil for a number outside the parts.
    func range(ofPart number: Int) -> Range<Int>? {
        guard (1...self.sizes.count).contains(number) else { return nil }
        let start = self.sizes[..<(number - 1)].reduce(0, +)
        return start..<(start + self.sizes[number - 1])
    }

    /// A part number as S3 takes one in a query (UploadPart, and reads): an integer from 1 to 10,000.
    ///
    /// - Parameter text: the `partNumber` parameter, or nil when there is none.
    /// - Returns: the number.
    /// - Throws: 400 `InvalidArgument` (with `ArgumentName` `partNumber` and the value) for anything else.
    static func number(_ text: String?) throws(S3Error) -> Int {
        guard let text, let number = Int(text), (1...Self.maximumNumber).contains(number) else {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "Part number must be an integer between 1 and 10000, inclusive",
                details: [
                    ("ArgumentName", "partNumber"), ("ArgumentValue", text.map { String($0.prefix(64)) } ?? "null"),
                ]
            )
        }
        return number
    }
}
