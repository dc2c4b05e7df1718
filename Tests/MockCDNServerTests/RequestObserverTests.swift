import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MockCDNCore
import MockCDNTesting
import NIOCore
import Synchronization
import Testing

@testable import MockCDNServer

/// The request observers are one list that the router and the fast path both run: an observer a test adds to
/// the list (`ServerConfiguration.observers`) sees a read the fast path answers, a read the router answers, an
/// upload, a refusal and the console's own read, each with the route, the credential and the refusal the
/// request's notes hold; and the journal records the same routes, but not the console's read.
@Suite("Request observers")
struct RequestObserverTests {
    /// What the test's observer saw of one request.
    struct Seen: Sendable, Equatable {
        let method: String
        let path: String
        let status: Int
        /// Whether the fast path answered it (`observeFast`), else the router (`observe`).
        let fast: Bool
        let route: String?
        let credential: CredentialSource
        let refused: Bool
    }

    /// An observer that only writes down what it sees, innermost.
    final class Probe: RequestObserver {
        let seen = Mutex<[Seen]>([])

        func observe(
            _ request: Request,
            context: AppRequestContext,
            next: (Request, AppRequestContext) async throws -> Response
        ) async throws -> Response {
            let response = try await next(request, context)
            self.note(request, context: context, status: response.status, fast: false)
            return response
        }

        func observeFast(_ request: Request, context: AppRequestContext, response: inout Response) {
            self.note(request, context: context, status: response.status, fast: true)
        }

        private func note(_ request: Request, context: AppRequestContext, status: HTTPResponse.Status, fast: Bool) {
            let seen = Seen(
                method: request.method.rawValue,
                path: request.uri.path,
                status: Int(status.code),
                fast: fast,
                route: context.notes.route,
                credential: context.notes.credential,
                refused: context.notes.refusal != nil
            )
            self.seen.withLock { $0.append(seen) }
        }
    }

    final class StoreBox: @unchecked Sendable {
        var store: (any ObjectStore)?
    }

    @Test("an added observer runs on a fast read, a router read, an upload and a refusal, with their notes")
    func addedObserverRunsOnEveryPath() async throws {
        let probe = Probe()
        let box = StoreBox()
        var configuration = ServerConfiguration(logLevel: .warning)
        configuration.fixturesDirectory = nil
        configuration.fastReads = true
        configuration.observers = [probe]
        configuration.storeWrapper = { store in
            box.store = store
            return store
        }
        try await MockCDNTestServer.withRunning(configuration) { server in
            let store = try #require(box.store)
            let bytes = ByteBuffer(string: "anyone may read this\n")
            _ = try await store.put(
                try ObjectKey("demo/public.txt"),
                body: AsyncStream {
                    $0.yield(bytes)
                    $0.finish()
                },
                attributes: ObjectAttributes(contentType: "text/plain", extras: [ObjectACL.extra: "public-read"]),
                maxBytes: bytes.readableBytes
            )
            // A plain read of an object held in memory, written as it is (URLSession adds `Connection`): the
            // fast path's. Then the same object by part number: the router's read.
            let port = try #require(server.baseURL.port)
            let reads = [
                FastReadTests.Read(name: "plain", method: "GET", target: "/demo/public.txt", fast: true),
                FastReadTests.Read(name: "part", method: "GET", target: "/demo/public.txt?partNumber=1", fast: false),
            ]
            #expect(try await RawHTTP.exchange(port: port, reads).map(\.status) == [200, 206])
            // An upload.
            var headers = Tokens.headers(Tokens.user("alice"))
            headers["Content-Type"] = Multipart.contentType
            let upload = try await HTTP.send(
                "POST",
                server.url("/channels/messaging/general/file?api_key=demo-key"),
                headers: headers,
                body: Multipart.body([.file(Data("hello\n".utf8), name: "hello.txt", type: "text/plain")])
            )
            #expect(upload.status == 201)
            // A refusal: a read with a FAT that is no FAT.
            #expect(try await HTTP.get(server.url("/demo/public.txt?fat=nope")).status == 403)
            // The console's own read, answered on the fast path: every observer runs, and the journal and the
            // metrics pass it by there as they do on the router's path.
            let console = FastReadTests.Read(
                name: "console",
                method: "GET",
                target: "/demo/public.txt",
                headers: [(ConsoleMark.header.rawName, ConsoleMark.token)],
                fast: true
            )
            #expect(try await RawHTTP.exchange(port: port, [console]).map(\.status) == [200])
            let seen = probe.seen.withLock { $0 }
            #expect(
                seen == [
                    Seen(
                        method: "GET",
                        path: "/demo/public.txt",
                        status: 200,
                        fast: true,
                        route: MediaReads.route,
                        credential: .none,
                        refused: false
                    ),
                    Seen(
                        method: "GET",
                        path: "/demo/public.txt",
                        status: 206,
                        fast: false,
                        route: MediaReads.route,
                        credential: .none,
                        refused: false
                    ),
                    Seen(
                        method: "POST",
                        path: "/channels/messaging/general/file",
                        status: 201,
                        fast: false,
                        route: "/channels/{type}/{id}/file",
                        credential: .jwt,
                        refused: false
                    ),
                    Seen(
                        method: "GET",
                        path: "/demo/public.txt",
                        status: 403,
                        fast: false,
                        route: MediaReads.route,
                        credential: .none,
                        refused: true
                    ),
                    Seen(
                        method: "GET",
                        path: "/demo/public.txt",
                        status: 200,
                        fast: true,
                        route: MediaReads.route,
                        credential: .none,
                        refused: false
                    ),
                ]
            )
            // Read after the observer's list, which the control route would join: the journal records the route
            // each was matched to, noted once for both paths, and not the console's read.
            #expect(
                try await server.journal(method: nil, path: nil, status: nil).map(\.route) == [
                    MediaReads.route, MediaReads.route, "/channels/{type}/{id}/file", MediaReads.route,
                ]
            )
        }
    }
}
