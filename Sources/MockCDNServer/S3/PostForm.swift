import Hummingbird
import MockCDNCore
import NIOCore

/// The part of an S3 POST form that S3 reads before it takes any byte of the file: the fields before the
/// `file` part, the file part's `filename`, and the file's bytes still to come. The fields after the file
/// are never read as fields: S3 ignores them.
struct PostForm {
    /// The fields before the file, in order, names and values as sent (`${filename}` not yet expanded).
    private(set) var fields: [(name: String, value: String)] = []
    /// The file part's `filename` parameter; nil when it has none or when no file part came.
    private(set) var fileName: String?
    /// The file's bytes, as they arrive; nil when the body had no `file` part.
    private(set) var file: MultipartPartBody.AsyncIterator?

    /// The fields with every `${filename}` replaced by the file's name, as S3 expands them before it checks the
    /// policy (`PostPolicy.expandingFilename(_:filename:)`).
    var expandedFields: [(name: String, value: String)] {
        self.fields.map { (name: $0.name, value: PostPolicy.expandingFilename($0.value, filename: self.fileName)) }
    }

    /// Reads the body up to the `file` part (its name matched without regard to case, as every field's).
    ///
    /// - Parameter reader: the multipart body, at its start.
    /// - Returns: the fields and, when the body has one, the file part ready to stream.
    /// - Throws: `PostPolicyRefusal.formTooLarge` once the fields' names and values pass S3's 20 KiB
    ///   (`PostPolicy.maximumFormLength`); `UploadFailure.input` for a body that is not multipart.
    static func read(_ reader: MultipartReader) async throws -> PostForm {
        var form = PostForm()
        var budget = PostPolicy.maximumFormLength
        while let next = try await reader.nextPart() {
            let part = next.headers
            var body = next.body
            let name = part.name ?? ""
            if name.lowercased() == "file" {
                form.fileName = part.fileName
                form.file = body
                return form
            }
            budget -= name.utf8.count
            var value = ByteBuffer()
            while var chunk = try await body.next() {
                budget -= chunk.readableBytes
                guard budget >= 0 else { throw PostPolicyRefusal.formTooLarge }
                value.writeBuffer(&chunk)
            }
            guard budget >= 0 else { throw PostPolicyRefusal.formTooLarge }
            // A part without a name is no field S3 could name in a condition; it counts towards the bound.
            if part.name != nil { form.fields.append((name: name, value: String(buffer: value))) }
        }
        return form
    }
}
