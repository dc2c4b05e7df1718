import Foundation

/// A `multipart/form-data` body built in memory: text fields, then one file part.
///
/// For the uploads that send a whole file in one request body (CometChat's media route, an S3 POST form);
/// ``MockCDNStorage`` streams its larger Stream uploads through a file instead.
struct MultipartBody {
    let boundary = "mockcdn-client-" + UUID().uuidString
    private(set) var data = Data()

    /// The `Content-Type` header the body goes with.
    var contentType: String { "multipart/form-data; boundary=\(self.boundary)" }

    /// Appends a text field.
    ///
    /// - Parameters:
    ///   - name: the field's name.
    ///   - value: its value.
    mutating func append(field name: String, value: String) {
        self.data.append(
            Data("--\(self.boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(name))\"".utf8)
        )
        self.data.append(Data("\r\n\r\n\(value)\r\n".utf8))
    }

    /// Appends the file part and closes the body; nothing may follow it.
    ///
    /// - Parameters:
    ///   - name: the field's name (`file`).
    ///   - fileName: the file name sent; quotes and line breaks become `_`.
    ///   - mimeType: the part's declared type.
    ///   - content: the file's bytes.
    mutating func appendFile(name: String, fileName: String, mimeType: String, content: Data) {
        var head = "--\(self.boundary)\r\nContent-Disposition: form-data; name=\"\(Self.quoted(name))\"; "
        head += "filename=\"\(Self.quoted(fileName))\"\r\nContent-Type: \(mimeType)\r\n\r\n"
        self.data.append(Data(head.utf8))
        self.data.append(content)
        self.data.append(Data("\r\n--\(self.boundary)--\r\n".utf8))
    }

    /// A name safe inside a quoted header parameter.
    private static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "_").replacingOccurrences(of: "\r", with: "_")
            .replacingOccurrences(of: "\n", with: "_")
    }
}
