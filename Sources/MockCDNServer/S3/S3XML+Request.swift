import Hummingbird
import MockCDNCore
import NIOCore

extension S3XML {
    /// A request's XML document (DeleteObjects', CompleteMultipartUpload's), read whole.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - limit: the most bytes read; checked as the body arrives.
    /// - Returns: the body.
    /// - Throws: 400 `MalformedXML` past `limit`, as S3 answers a document it will not read; a body that
    ///   fails on its own (broken framing, a cancelled request) fails with its own error.
    static func document(of request: Request, upTo limit: Int) async throws -> ByteBuffer {
        var document = ByteBuffer()
        for try await var chunk in request.body {
            guard document.readableBytes + chunk.readableBytes <= limit else { throw S3Error.malformedXML }
            document.writeBuffer(&chunk)
        }
        return document
    }

    /// A client's document read into a tree by `XMLReader`, on NIO's thread pool, and its root checked.
    ///
    /// - Parameters:
    ///   - body: the request body, read and authenticated.
    ///   - root: the root element's name. Its namespace may be S3's or none, as S3 takes either.
    ///   - limits: the document's bounds.
    /// - Returns: the root element.
    /// - Throws: 400 `MalformedXML` for a document `XMLReader` refuses or another root element.
    static func tree(of body: ByteBuffer, root: String, limits: XMLReader.Limits) async throws -> XMLTree {
        let tree: XMLTree
        do {
            tree = try await XMLReader.read(body, limits: limits)
        } catch let refusal as XMLRefusal {
            throw S3Error.malformedXML(because: refusal)
        }
        guard tree.name == root, tree.namespace == nil || tree.namespace == Self.namespace else {
            throw S3Error.malformedXML
        }
        return tree
    }
}
