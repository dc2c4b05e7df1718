import Foundation

/// An S3 presigned POST: the form URL and the fields a backend signed (boto3's `generate_presigned_post`
/// answers `{"url","fields"}`), for ``PresignedUploads/post(_:fileName:mimeType:form:)``.
///
/// The policy and its signature stay as the backend made them; the app adds only the file. The secret that
/// signs them never reaches the app.
public struct PresignedPostForm: Sendable, Equatable {
    /// One form field, sent before the file in the order given.
    public struct Field: Sendable, Equatable {
        /// The field's name (`key`, `policy`, `x-amz-signature`, `Content-Type`, ...).
        public var name: String
        /// Its value, as the backend gave it.
        public var value: String

        /// A field.
        ///
        /// - Parameters:
        ///   - name: the field's name.
        ///   - value: its value.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Where the form is posted: the bucket's URL (`{base}/{app}`).
    public var url: URL
    /// The fields, in the order they are sent.
    public var fields: [Field]

    /// A form with its fields in order.
    ///
    /// - Parameters:
    ///   - url: where the form is posted.
    ///   - fields: the fields, sent in this order before the file.
    public init(url: URL, fields: [Field]) {
        self.url = url
        self.fields = fields
    }

    /// A form from a backend's `{"url","fields"}` answer, its fields sent in name order.
    ///
    /// - Parameters:
    ///   - url: where the form is posted.
    ///   - fields: the fields by name, as boto3 answers them.
    public init(url: URL, fields: [String: String]) {
        self.init(url: url, fields: fields.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) })
    }
}
