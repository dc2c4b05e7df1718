import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// DeleteObjects (`POST /{app}?delete`): the XML batch `<Delete><Object><Key>...</Key></Object>...</Delete>`
/// (read by `DeleteRequest`), at most 1,000 keys, each deleted as DeleteObject deletes it. The answer lists
/// every key deleted (none in quiet mode) and an `<Error>` for each key that could not be (`InvalidURI` or
/// `KeyTooLongError` for a key MockCDN refuses).
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
        // A key MockCDN refuses is that key's error (S3's code for it); a store that fails fails the request.
        // By position, not by text: keys are bytes, and two keys Swift calls equal may both be named.
        var refusals: [S3Error?] = []
        for key in keys {
            do {
                try await self.remover.remove(try ObjectKey(app.id + "/" + key))
                refusals.append(nil)
            } catch let error as MockCDNError where error == .invalidObjectKey || error == .keyTooLong {
                refusals.append(S3Error.specific(error))
            }
        }
        var xml = S3XML()
        xml.element("DeleteResult", root: true) { xml in
            for (key, refusal) in zip(keys, refusals) {
                if let refusal {
                    xml.element("Error") { xml in
                        xml.element("Key", key)
                        xml.element("Code", refusal.code)
                        xml.element("Message", refusal.message)
                    }
                } else if !quiet {
                    xml.element("Deleted") { $0.element("Key", key) }
                }
            }
        }
        return xml.response()
    }
}
