import Foundation
import MockCDNCore

extension ObjectKey {
    /// The store key of a path `/{app}/{key}` as it appears on the wire (percent-encoded), by S3's rules for
    /// keys: what S3 requests address.
    ///
    /// - Parameters:
    ///   - app: the app the path must belong to.
    ///   - path: the URL path, still percent-encoded.
    /// - Throws: `MockCDNError.invalidObjectKey` when the path is not the app's, is not valid percent-encoded
    ///   UTF-8, or the key it names is not a valid key; `MockCDNError.keyTooLong` past S3's length.
    init(app: String, percentEncodedPath path: String) throws(MockCDNError) {
        let prefix = "/" + app + "/"
        guard path.hasPrefix(prefix) else { throw MockCDNError.invalidObjectKey("not a path of app \(app)") }
        let rest = path.dropFirst(prefix.count)
        guard rest.utf8.count <= ObjectKey.maximumLength * 3, let decoded = PercentEncoding.decode(rest.utf8) else {
            throw MockCDNError.invalidObjectKey("the object key is not valid percent-encoded UTF-8")
        }
        try self.init(app + "/" + decoded)
    }

    /// The store key of a media path `/{app}/{key}` on the wire: what MockCDN's links, FAT and CloudFront
    /// reads, and Stream's and CometChat's routes address (no dot or empty segments, no backslash).
    ///
    /// - Parameters:
    ///   - app: the app the path must belong to.
    ///   - path: the URL path, still percent-encoded.
    /// - Throws: `MockCDNError.invalidObjectKey` as `init(app:percentEncodedPath:)`, and for a key that is no
    ///   media path.
    init(app: String, mediaPath path: String) throws(MockCDNError) {
        try self.init(app: app, percentEncodedPath: path)
        try self.requireMediaPath()
    }
}
