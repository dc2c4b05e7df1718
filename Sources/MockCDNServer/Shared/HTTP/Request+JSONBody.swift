import Foundation
import Hummingbird
import MockCDNCore

/// A small JSON request body that is too large or not of the expected shape; each API renders the message
/// in its own envelope.
struct JSONBodyError: CategorizedError {
    let message: String

    var category: ErrorCategory { .invalidInput }
    var publicMessage: String { self.message }
}

extension Request {
    /// The most bytes of a JSON request body read (settings, member lists, presign requests).
    static let maximumJSONBytes = 64 * 1024

    /// Collects and decodes a small JSON body, bounded by `maximumJSONBytes` unless told otherwise.
    ///
    /// - Parameters:
    ///   - type: the expected type.
    ///   - shape: the members the body may have; nil takes any (and ignores the ones `type` does not read).
    ///   - limit: the most bytes read.
    /// - Returns: the decoded value.
    /// - Throws: `JSONBodyError` naming what was wrong.
    func decodeJSONBody<Value: Decodable>(
        _ type: Value.Type,
        shape: MemberShape? = nil,
        upTo limit: Int = Self.maximumJSONBytes
    ) async throws(JSONBodyError) -> Value {
        let body: ByteBuffer
        do {
            body = try await self.body.collect(upTo: limit)
        } catch {
            throw JSONBodyError(message: "request body is larger than \(limit) bytes")
        }
        let data = Data(body.readableBytesView)
        if let shape, let json = try? JSONSerialization.jsonObject(with: data),
            let unknown = shape.unknownMember(inJSON: json)
        {
            throw JSONBodyError(message: "unknown member \(unknown)")
        }
        return try JSONBodyError.decode(type, from: data, naming: "request body")
    }
}

extension JSONBodyError {
    /// Decodes small JSON bytes (a body, a multipart field), naming what they were in the refusal.
    ///
    /// - Parameters:
    ///   - type: the expected type.
    ///   - data: the JSON.
    ///   - what: what the bytes were, as the message names them (`request body`, `user field`).
    /// - Returns: the decoded value.
    /// - Throws: `JSONBodyError` when the bytes are not JSON of the expected shape.
    static func decode<Value: Decodable>(
        _ type: Value.Type,
        from data: Data,
        naming what: String
    ) throws(JSONBodyError) -> Value {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch let error as JSONBodyError {
            // A type's own decoding said what was wrong (`now` that is no date).
            throw error
        } catch let refusal as FieldRefusal {
            // A type's own decoding named the member that was wrong (`expectations[1].status: ...`).
            throw JSONBodyError(message: refusal.publicMessage)
        } catch {
            throw JSONBodyError(message: "\(what) is not valid JSON of the expected shape")
        }
    }
}
