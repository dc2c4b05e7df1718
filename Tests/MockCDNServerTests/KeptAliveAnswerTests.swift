import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import MockCDNServer

/// `KeptAliveAnswer`, S3's answer to a CompleteMultipartUpload that joins for long, with work the test holds
/// until it has the answer: so the answer is seen to come before the work ends. boto3's view of the same answer
/// is `Tests/compat/test_s3_multipart.py`'s.
@Suite("A long S3 answer kept alive as S3 keeps it")
struct KeptAliveAnswerTests {
    private static let result: S3XML = {
        var xml = S3XML()
        xml.element("CompleteMultipartUploadResult", root: true) { $0.element("ETag", "\"e-2\"") }
        return xml
    }()

    private static func context() -> AppRequestContext {
        var logger = Logger(label: "kept-alive-test")
        // What Hummingbird's server sets, and `RequestContext.id` reads.
        logger[metadataKey: "hb.request.id"] = "4b1d"
        return AppRequestContext(source: .init(channel: EmbeddedChannel(), logger: logger))
    }

    @Test("work done within the wait answers as without one: the document whole, or the error thrown")
    func quickWork() async throws {
        let answer = KeptAliveAnswer(after: .seconds(3600))
        let response = try await answer.answer(context: Self.context()) { Self.result }
        #expect(response.status == .ok)
        #expect(response.body.contentLength == Self.result.text.utf8.count)
        #expect(try await Self.text(of: response) == Self.result.text)
        await #expect(throws: S3Error.self) {
            try await answer.answer(context: Self.context()) { throw S3Error.noSuchUpload("u") }
        }
    }

    @Test(
        "work that outlasts the wait: 200 before it ends, the declaration, spaces, then its document",
        arguments: [Duration.zero, .milliseconds(1)]
    )
    func keptAlive(after: Duration) async throws {
        // The work ends only once the test finishes `gate`.
        let (gate, opening) = AsyncStream<Void>.makeStream()
        let response = try await KeptAliveAnswer(after: after).answer(context: Self.context()) {
            for await _ in gate {}
            return Self.result
        }
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/xml")
        #expect(response.body.contentLength == nil)
        opening.finish()
        let text = try await Self.text(of: response)
        #expect(text.hasPrefix(S3XML.declaration))
        #expect(text.dropFirst(S3XML.declaration.count).drop { $0 == " " } == Self.result.root)
    }

    @Test("an error after the 200 is S3's <Error> inside it, and noted as the request's refusal")
    func errorInside() async throws {
        let (gate, opening) = AsyncStream<Void>.makeStream()
        let context = Self.context()
        let response = try await KeptAliveAnswer(after: .zero).answer(context: context) {
            for await _ in gate {}
            throw S3Error.noSuchUpload("upload-1")
        }
        #expect(response.status == .ok)
        #expect(context.notes.refusal == nil)
        opening.finish()
        let text = try await Self.text(of: response)
        let document = S3Error.noSuchUpload("upload-1").document(requestID: context.id)
        #expect(text.hasPrefix(S3XML.declaration))
        #expect(text.dropFirst(S3XML.declaration.count).drop { $0 == " " } == document)
        #expect(context.notes.refusal?.reason.hasPrefix("NoSuchUpload") == true)
    }

    private static func text(of response: Response) async throws -> String {
        let collected = Collected()
        try await response.body.write(CollectingWriter(collected: collected))
        return collected.text
    }
}

private final class Collected: Sendable {
    private let bytes = Mutex("")
    var text: String { self.bytes.withLock { $0 } }
    func append(_ buffer: ByteBuffer) { self.bytes.withLock { $0 += String(buffer: buffer) } }
}

private struct CollectingWriter: ResponseBodyWriter {
    let collected: Collected

    mutating func write(_ buffer: ByteBuffer) async throws { self.collected.append(buffer) }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
