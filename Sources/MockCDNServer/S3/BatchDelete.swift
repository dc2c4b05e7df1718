import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// DeleteObjects (`POST /{app}?delete`): the XML batch `<Delete><Object><Key>...</Key></Object>...</Delete>`
/// (read by `DeleteRequest`), at most 1,000 keys, each deleted as DeleteObject deletes it. The answer lists
/// every key deleted (none in quiet mode) and an `<Error>` for each key that could not be (`InvalidURI` for a
/// key MockCDN refuses).
struct BatchDelete {
    let remover: ObjectRemover

    /// The most keys one request may name, as on S3.
    static let maximumKeys = 1000
    /// The most bytes of XML read: 1,000 keys of 1,024 bytes, escaped, with room to spare.
    static let maximumBodyBytes = 8 << 20

    /// Deletes each key of `app` and answers S3's `DeleteResult`.
    ///
    /// - Parameters:
    ///   - request: the document's keys and quiet flag.
    ///   - app: the bucket's app.
    /// - Returns: the `DeleteResult`.
    /// - Throws: what the store throws.
    func delete(_ request: DeleteRequest, app: MediaApp) async throws -> Response {
        let (keys, quiet) = (request.keys, request.quiet)
        // A key MockCDN refuses is that key's error; a store that fails fails the request.
        var refusals: [String: String] = [:]
        for key in keys {
            do {
                try await self.remover.remove(try ObjectKey(app.id + "/" + key))
            } catch let error as MockCDNError where error == .invalidObjectKey {
                refusals[key] = error.detail
            }
        }
        var xml = S3XML()
        xml.element("DeleteResult", root: true) { xml in
            for key in keys {
                if let message = refusals[key] {
                    xml.element("Error") { xml in
                        xml.element("Key", key)
                        xml.element("Code", "InvalidURI")
                        xml.element("Message", message)
                    }
                } else if !quiet {
                    xml.element("Deleted") { $0.element("Key", key) }
                }
            }
        }
        return xml.response()
    }
}
