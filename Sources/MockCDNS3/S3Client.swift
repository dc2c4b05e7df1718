import AsyncHTTPClient
import Foundation
import MockCDNCore
import NIOCore
import NIOHTTP1

/// The S3 operations MockCDN's store needs, over async-http-client, signed with MockCDN's own SigV4 code:
/// PutObject, CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload, GetObject
/// (with Range), DeleteObject and ListObjectsV2. Every body is in memory when it is sent, so every request
/// is signed with its payload's SHA-256.
///
/// Bounded: one connection pool for the process (`pool`: 128 connections per host, 2 s to connect, no
/// redirects), a time limit per request, and at most `retries` retries (idempotent requests only, after a
/// connection error or a 5xx). When the limit runs out the caller gets `MockCDNError.storageFailure`, which every
/// route answers as 503 in its envelope.
public final class S3Client: Sendable {
    public let location: S3Location
    let http: HTTPClient
    let timeout: TimeAmount
    let retries: Int

    /// A failure S3 answered: its status, `Code` and `Message`.
    public struct Failure: Error, Sendable {
        public let status: Int
        public let code: String
        public let message: String
    }

    /// The process's connection pool to S3, shared by every store and never shut down (it lives as long as
    /// the process, as async-http-client's own shared client does), so no server or test has to close it.
    ///
    /// A read holds one of its connections for the store's whole answer, so the limit caps reads at
    /// connections / latency a second: 16 made MockCDN 0.24x of wrk's 64 connections against a store that
    /// answers in 100 ms. 128 carry 6,400 reads a second at S3's ~20 ms, and a client with 64 connections of
    /// its own never waits for one; kept-alive connections are reused (a store that closes each one, as
    /// moto_server does, costs a connect per request either way).
    public static let pool: HTTPClient = {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = 128
        pool.idleTimeout = .seconds(30)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(2), read: .seconds(30)),
            connectionPool: pool
        )
        configuration.httpVersion = .http1Only
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// - Parameters:
    ///   - location: bucket, prefix, endpoint and credentials.
    ///   - timeout: the most one request may take to answer, retries included.
    ///   - retries: how many times an idempotent request is tried again.
    public init(location: S3Location, timeout: Duration = .seconds(10), retries: Int = 2) {
        self.location = location
        self.timeout = TimeAmount(timeout)
        self.retries = retries
        self.http = Self.pool
    }

    // MARK: - Operations

    /// Stores `bytes` under `key`. `ifMatch` (an ETag) or `ifNoneMatch: "*"` make the write conditional, where
    /// the store supports it; a failed condition throws `Failure` with status 412.
    /// - Returns: the new object's ETag.
    @discardableResult
    public func putObject(
        _ key: String,
        bytes: ByteBuffer,
        contentType: String = "application/octet-stream",
        ifMatch: String? = nil,
        ifNoneMatch: String? = nil
    ) async throws -> String? {
        var headers = ["content-type": contentType]
        if let ifMatch { headers["if-match"] = ifMatch }
        if let ifNoneMatch { headers["if-none-match"] = ifNoneMatch }
        let response = try await self.send("PUT", key: key, headers: headers, body: bytes, idempotent: true)
        return response.headers.first(name: "etag")
    }

    /// The object's whole body (for small objects: sidecars and state) and its ETag; nil when there is none.
    public func getSmallObject(_ key: String, limit: Int = 1 << 20) async throws -> (body: ByteBuffer, etag: String?)? {
        guard let response = try await self.getObject(key) else { return nil }
        let body = try await self.bounded { try await response.body.collect(upTo: limit) }
        return (body, response.headers.first(name: "etag"))
    }

    /// GetObject, optionally of a byte range; nil when there is no such object. The caller reads the body.
    public func getObject(_ key: String, range: Range<Int>? = nil) async throws -> HTTPClientResponse? {
        var headers: [String: String] = [:]
        if let range { headers["range"] = "bytes=\(range.lowerBound)-\(range.upperBound - 1)" }
        do {
            return try await self.send("GET", key: key, headers: headers, idempotent: true)
        } catch let failure as Failure where failure.status == 404 {
            return nil
        }
    }

    /// DeleteObject; deleting a missing key succeeds, as in S3.
    public func deleteObject(_ key: String) async throws {
        _ = try await self.send("DELETE", key: key, idempotent: true)
    }

    /// Every key under `prefix` (ListObjectsV2, all pages), keys as stored.
    public func listKeys(prefix: String) async throws -> [String] {
        var keys: [String] = []
        var token: String? = nil
        repeat {
            var query: [(name: String, value: String)] = [
                ("list-type", "2"), ("prefix", prefix), ("encoding-type", "url"),
            ]
            if let token { query.append(("continuation-token", token)) }
            let response = try await self.send("GET", key: "", query: query, idempotent: true)
            let document = try await self.tree(
                of: try await self.bounded { try await response.body.collect(upTo: Self.answerLimits.maximumBytes) },
                answering: "ListObjectsV2"
            )
            for contents in document.children(named: "Contents") {
                guard let encoded = contents.child(named: "Key")?.text,
                    let key = PercentEncoding.decode(Array(encoded.utf8))
                else { continue }
                keys.append(key)
            }
            token =
                document.child(named: "IsTruncated")?.text == "true"
                ? document.child(named: "NextContinuationToken")?.text : nil
        } while token != nil
        return keys
    }

    /// The multipart uploads under `prefix` that were started and neither completed nor aborted
    /// (ListMultipartUploads, first page): what a killed process leaves.
    public func incompleteUploads(prefix: String) async throws -> [(key: String, uploadID: String)] {
        let response = try await self.send(
            "GET",
            key: "",
            query: [("uploads", ""), ("prefix", prefix)],
            idempotent: true
        )
        let document = try await self.tree(
            of: try await self.bounded { try await response.body.collect(upTo: Self.answerLimits.maximumBytes) },
            answering: "ListMultipartUploads"
        )
        return document.children(named: "Upload").compactMap { upload in
            guard let key = upload.child(named: "Key")?.text, let id = upload.child(named: "UploadId")?.text
            else { return nil }
            return (key, id)
        }
    }

    /// CreateBucket in the client's region (for tests and first runs against an empty S3-compatible server);
    /// a bucket this account already owns is fine.
    public func createBucket() async throws {
        let body =
            self.location.region == "us-east-1"
            ? nil
            : ByteBuffer(
                string: "<CreateBucketConfiguration><LocationConstraint>\(self.location.region)</LocationConstraint>"
                    + "</CreateBucketConfiguration>"
            )
        do {
            _ = try await self.send("PUT", key: "", body: body, idempotent: true, bucketOnly: true)
        } catch let failure as Failure where failure.code == "BucketAlreadyOwnedByYou" {}
    }

    /// CreateMultipartUpload. - Returns: the upload id.
    public func createMultipartUpload(_ key: String) async throws -> String {
        let response = try await self.send("POST", key: key, query: [("uploads", "")], idempotent: false)
        let document = try await self.tree(
            of: try await self.bounded { try await response.body.collect(upTo: 1 << 20) },
            answering: "CreateMultipartUpload"
        )
        guard let id = document.child(named: "UploadId")?.text, !id.isEmpty else {
            throw MockCDNError.storageFailure("the S3 store answered CreateMultipartUpload without an UploadId")
        }
        return id
    }

    /// UploadPart. - Returns: the part's ETag.
    public func uploadPart(_ key: String, uploadID: String, number: Int, bytes: ByteBuffer) async throws -> String {
        let response = try await self.send(
            "PUT",
            key: key,
            query: [("partNumber", String(number)), ("uploadId", uploadID)],
            body: bytes,
            idempotent: true
        )
        guard let etag = response.headers.first(name: "etag") else {
            throw MockCDNError.storageFailure("the S3 store answered UploadPart without an ETag")
        }
        return etag
    }

    /// CompleteMultipartUpload with the parts in order.
    public func completeMultipartUpload(
        _ key: String,
        uploadID: String,
        parts: [(number: Int, etag: String)]
    ) async throws {
        var document = "<CompleteMultipartUpload>"
        for part in parts {
            document += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(XMLText.escaped(part.etag))</ETag></Part>"
        }
        document += "</CompleteMultipartUpload>"
        let response = try await self.send(
            "POST",
            key: key,
            query: [("uploadId", uploadID)],
            headers: ["content-type": "application/xml"],
            body: ByteBuffer(string: document),
            idempotent: true
        )
        // S3 may answer 200 with an error document once the completion has started.
        let answer = try await self.bounded { try await response.body.collect(upTo: 1 << 20) }
        if let error = try? await XMLReader.read(answer, limits: Self.answerLimits), error.name == "Error",
            let code = error.child(named: "Code")?.text
        {
            throw Failure(status: 500, code: code, message: error.child(named: "Message")?.text ?? "")
        }
    }

    /// AbortMultipartUpload; an upload already gone is fine.
    public func abortMultipartUpload(_ key: String, uploadID: String) async throws {
        do {
            _ = try await self.send("DELETE", key: key, query: [("uploadId", uploadID)], idempotent: true)
        } catch let failure as Failure where failure.status == 404 {}
    }

    // MARK: - Requests

    /// The bounds of an answer's XML: a listing page of 1,000 keys is well under both.
    static let answerLimits = XMLReader.Limits(maximumBytes: 16 << 20, maximumElements: 1 << 20)

    /// A 2xx answer's XML document, read on NIO's thread pool (`XMLReader`).
    ///
    /// - Parameters:
    ///   - body: the answer's body.
    ///   - operation: the operation answered, for the message.
    /// - Returns: the root element.
    /// - Throws: `MockCDNError.storageFailure` when it is no XML MockCDN reads.
    func tree(of body: ByteBuffer, answering operation: String) async throws -> XMLTree {
        do {
            return try await XMLReader.read(body, limits: Self.answerLimits)
        } catch let refusal as XMLRefusal {
            throw MockCDNError.storageFailure(
                "the S3 store at \(self.location.endpoint) answered \(operation) with \(refusal.description)"
            )
        }
    }

    /// Sends one signed request and answers its response when the status is 2xx; otherwise throws `Failure`
    /// (S3 answered) or `MockCDNError.storageFailure` (it could not be reached in time).
    func send(
        _ method: String,
        key: String,
        query: [(name: String, value: String)] = [],
        headers: [String: String] = [:],
        body: ByteBuffer? = nil,
        idempotent: Bool,
        bucketOnly: Bool = false
    ) async throws -> HTTPClientResponse {
        let deadline = NIODeadline.now() + self.timeout
        var attempt = 0
        while true {
            attempt += 1
            do {
                let response = try await self.http.execute(
                    self.request(method, key: key, query: query, headers: headers, body: body, bucketOnly: bucketOnly),
                    deadline: deadline
                )
                if (200..<300).contains(response.status.code) { return response }
                let answer = try await response.body.collect(upTo: 64 * 1024)
                // An answer that is no S3 error document (a proxy's page) is named by its status.
                let error = try? await XMLReader.read(answer, limits: Self.answerLimits)
                let failure = Failure(
                    status: Int(response.status.code),
                    code: error?.child(named: "Code")?.text ?? "HTTP\(response.status.code)",
                    message: error?.child(named: "Message")?.text ?? ""
                )
                guard failure.status >= 500, idempotent, attempt <= self.retries, NIODeadline.now() < deadline else {
                    throw failure
                }
            } catch let failure as Failure {
                throw failure
            } catch {
                guard idempotent, attempt <= self.retries, NIODeadline.now() < deadline else {
                    throw MockCDNError.storageFailure(
                        "the S3 store at \(self.location.endpoint) did not answer in time"
                    )
                }
            }
            // A short pause before the next try: 50 ms, then 100 ms.
            try await Task.sleep(for: .milliseconds(50 << (attempt - 1)))
        }
    }

    /// Reads a response body within the request time limit, as `storageFailure` when it runs out.
    func bounded<T>(_ read: () async throws -> T) async throws -> T {
        do {
            return try await read()
        } catch let error as MockCDNError {
            throw error
        } catch {
            throw MockCDNError.storageFailure("the S3 store at \(self.location.endpoint) stopped answering")
        }
    }

    func request(
        _ method: String,
        key: String,
        query: [(name: String, value: String)],
        headers: [String: String],
        body: ByteBuffer?,
        bucketOnly: Bool
    ) -> HTTPClientRequest {
        var target = self.location.target(key: key)
        // The bucket itself: `/BUCKET` path-style, `/` virtual-hosted.
        if bucketOnly, target.path.hasSuffix("/"), target.path.count > 1 { target.path.removeLast() }
        let payloadHash = Digest.sha256(body ?? ByteBuffer()).hexString
        let signed = SigV4.authorizationHeaders(
            method: method,
            host: target.host,
            path: target.path,
            query: query,
            headers: headers,
            payloadHash: payloadHash,
            credentials: self.location.credentials,
            sessionToken: self.location.sessionToken,
            date: Int64(Date.now.timeIntervalSince1970)
        )
        let queryText = query.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }
            .joined(separator: "&")
        var request = HTTPClientRequest(
            url: target.origin + PercentEncoding.encodePath(target.path) + (queryText.isEmpty ? "" : "?" + queryText)
        )
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        for (name, value) in signed { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(body)
        } else if method == "PUT" || method == "POST" {
            request.body = .bytes(ByteBuffer())
        }
        return request
    }
}
