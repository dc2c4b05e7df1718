import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// An S3 XML answer, written element by element, every text escaped.
struct S3XML {
    static let namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

    /// The XML declaration every answer starts with.
    static let declaration = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"

    private(set) var text = Self.declaration

    /// The root element, without the declaration (for an answer whose declaration went out first).
    var root: Substring { self.text.dropFirst(Self.declaration.count) }

    /// Opens `name` (with S3's namespace on the root), runs `body` for the children, and closes it.
    mutating func element(_ name: String, root: Bool = false, _ body: (inout S3XML) -> Void) {
        self.text += root ? "<\(name) xmlns=\"\(Self.namespace)\">" : "<\(name)>"
        body(&self)
        self.text += "</\(name)>"
    }

    /// Opens `name` with `attributes` (each value escaped), runs `body` for the children, and closes it: a
    /// `Grantee` names its type in `xsi:type`.
    mutating func element(_ name: String, attributes: [(String, String)], _ body: (inout S3XML) -> Void) {
        self.text += "<\(name)" + attributes.map { " \($0.0)=\"\(XMLText.escaped($0.1))\"" }.joined() + ">"
        body(&self)
        self.text += "</\(name)>"
    }

    /// `<name>value</name>`.
    mutating func element(_ name: String, _ value: String) {
        // Appended piece by piece: a DeleteObjects answer names 1,000 keys of up to 1,024 bytes, each `&` of
        // them five bytes once escaped.
        self.text += "<\(name)>"
        self.text += XMLText.escaped(value)
        self.text += "</\(name)>"
    }

    /// The answer: 200 (or `status`) with `application/xml`; no body for a HEAD.
    func response(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], head: Bool = false) -> Response {
        var headers = headers
        headers[.contentType] = "application/xml"
        let body = head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: self.text))
        return Response(status: status, headers: headers, body: body)
    }
}

extension S3XML {
    /// Text inside the element being written.
    mutating func characters(_ value: String) {
        self.text += XMLText.escaped(value)
    }

    /// The app as the owner S3 names in its listings (ListBuckets, ListObjects' `Contents`, ListParts,
    /// ListMultipartUploads): `<Owner><ID>{app}</ID><DisplayName>{app}</DisplayName></Owner>`. S3 writes the
    /// account's canonical id and display name; a configured app is MockCDN's account, so its id stands for
    /// both, and a bucket CreateBucket made names its owner's.
    ///
    /// - Parameter app: the bucket's app.
    mutating func owner(_ app: MediaApp) {
        self.element("Owner") { xml in
            xml.element("ID", app.account.id)
            xml.element("DisplayName", app.account.id)
        }
    }
}
