import Foundation
import Logging
import MockCDNCore
import MockCDNTestImages
import MockCDNTesting
import NIOCore
import Testing

@testable import MockCDNServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP answer, read whole.
struct Reply: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    var text: String { String(decoding: self.body, as: UTF8.self) }

    func header(_ name: String) -> String? { self.headers[name.lowercased()] }

    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: self.body)) as? [String: Any] ?? [:] }

    /// The body's image header, read by libvips; nil when the body is not an image.
    var image: ImageHeader? { try? Vips.probe(ByteBuffer(bytes: self.body)) }

    /// Stream's error code from the envelope.
    var streamCode: Int? { self.json["code"] as? Int }

    /// The `<Code>` and `<Message>` of an S3-style XML error.
    var xmlError: (code: String, message: String)? {
        func element(_ name: String) -> String? {
            guard let start = self.text.range(of: "<\(name)>"), let end = self.text.range(of: "</\(name)>") else {
                return nil
            }
            return String(self.text[start.upperBound..<end.lowerBound])
        }
        guard let code = element("Code"), let message = element("Message") else { return nil }
        return (code, message)
    }
}

/// Real HTTP against a running server, with no cache in between (a 304 must reach the test as 304).
enum HTTP {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    static func send(
        _ method: String,
        _ url: URL,
        headers: [String: String] = [:],
        body: Data? = nil,
        bodyStream: InputStream? = nil
    ) async throws -> Reply {
        var request = URLRequest(url: url)
        request.httpMethod = method
        // URLSession would label a body form-encoded; the control routes take JSON only.
        if body != nil, !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let bodyStream { request.httpBodyStream = bodyStream } else { request.httpBody = body }
        let (data, response) = try await self.session.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            fields[String(describing: name).lowercased()] = String(describing: value)
        }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    static func get(_ url: URL, headers: [String: String] = [:]) async throws -> Reply {
        try await self.send("GET", url, headers: headers)
    }

    static func get(_ url: String, headers: [String: String] = [:]) async throws -> Reply {
        try await self.send("GET", try #require(URL(string: url)), headers: headers)
    }
}

/// Stream tokens for the demo app.
enum Tokens {
    static let secret = AppConfiguration.demo.apiSecret

    static func user(_ id: String, extra: [String: any Sendable] = [:]) -> String {
        JWT.sign(extra.merging(["user_id": id]) { a, _ in a }, secret: secret)
    }

    static var server: String { JWT.sign(["server": true], secret: secret) }

    static func headers(_ token: String) -> [String: String] {
        ["Authorization": "Bearer " + token, "stream-auth-type": "jwt"]
    }
}

/// One part of a multipart/form-data body.
struct Part {
    var name: String
    var fileName: String?
    var contentType: String?
    var data: Data

    static func file(_ data: Data, name: String = "photo.png", type: String? = nil) -> Part {
        Part(name: "file", fileName: name, contentType: type, data: data)
    }

    static func field(_ name: String, _ value: String) -> Part {
        Part(name: name, data: Data(value.utf8))
    }
}

enum Multipart {
    static let boundary = "mockcdn-test-boundary-7d9a"

    static func body(_ parts: [Part], boundary: String = boundary) -> Data {
        var body = Data()
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let fileName = part.fileName { head += "; filename=\"\(fileName)\"" }
            head += "\r\n"
            if let type = part.contentType { head += "Content-Type: \(type)\r\n" }
            body += Data((head + "\r\n").utf8) + part.data + Data("\r\n".utf8)
        }
        return body + Data("--\(boundary)--\r\n".utf8)
    }

    static var contentType: String { "multipart/form-data; boundary=\(boundary)" }
}

/// Test media, drawn with libvips.
enum Media {
    static let pngSize = (width: 64, height: 48)
    static let png: Data = {
        let pixels = TestImages.Pixels(
            width: 64,
            height: 48,
            bands: 3,
            bytes: (0..<(64 * 48 * 3)).map { UInt8($0 % 251) }
        )
        return Data(try! TestImages.encode(pixels, format: .png).readableBytesView)
    }()

    static let jpeg: Data = {
        let pixels = TestImages.Pixels(
            width: 40,
            height: 30,
            bands: 3,
            bytes: Array(repeating: 128, count: 40 * 30 * 3)
        )
        return Data(try! TestImages.encode(pixels, format: .jpeg).readableBytesView)
    }()

    static let text = Data("plain text, not an image at all\n".utf8)

    /// The band colours of `bands`: red, green, blue, yellow.
    static let bandColours: [[UInt8]] = [[220, 30, 30], [30, 200, 30], [30, 30, 220], [230, 220, 30]]

    /// Four equal bands of `bandColours`, side by side (`vertical`) or stacked, as RGB pixels.
    static func bandPixels(width: Int, height: Int, vertical: Bool, frames: Int = 1) -> TestImages.Pixels {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * frames * 3)
        for _ in 0..<frames {
            for y in 0..<height {
                for x in 0..<width {
                    bytes += bandColours[vertical ? x * 4 / width : y * 4 / height]
                }
            }
        }
        return TestImages.Pixels(width: width, height: height * frames, bands: 3, bytes: bytes)
    }

    /// `bandPixels` encoded; several frames make an animation (GIF, WebP).
    static func bands(
        width: Int,
        height: Int,
        vertical: Bool = true,
        format: Vips.OutputFormat = .png,
        frames: Int = 1
    ) -> Data {
        let pixels = bandPixels(width: width, height: height, vertical: vertical, frames: frames)
        let encoded = try! TestImages.encode(pixels, format: format, frameHeight: frames > 1 ? height : nil)
        return Data(encoded.readableBytesView)
    }

    /// A 24-bit BMP, written by hand: libvips reads BMP but cannot write it.
    static func bmp(width: Int, height: Int) -> Data {
        let rowBytes = (width * 3 + 3) / 4 * 4
        let pixelBytes = rowBytes * height
        var data = Data()
        func le32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        func le16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("BM".utf8))
        le32(54 + pixelBytes)
        le32(0)
        le32(54)
        le32(40)
        le32(width)
        le32(height)
        le16(1)
        le16(24)
        le32(0)
        le32(pixelBytes)
        le32(2835)
        le32(2835)
        le32(0)
        le32(0)
        for _ in 0..<height {
            var row = [UInt8](repeating: 0, count: rowBytes)
            for x in 0..<width {
                let colour = bandColours[x * 4 / width]
                row[x * 3] = colour[2]
                row[x * 3 + 1] = colour[1]
                row[x * 3 + 2] = colour[0]
            }
            data.append(contentsOf: row)
        }
        return data
    }

    /// A PNG whose header claims `width` x `height` and whose pixel data is a few bytes: a decompression
    /// bomb as far as any reader that trusts the header is concerned.
    static func craftedPNG(width: Int, height: Int) -> Data {
        func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + payload
            return bigEndian(payload.count) + body + bigEndian(Int(crc32(body)))
        }
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        let bytes: [UInt8] =
            [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
        return Data(bytes)
    }

    /// A baseline JPEG header (SOI, SOF0, SOS) claiming `width` x `height`, with no real scan data.
    static func craftedJPEG(width: Int, height: Int) -> Data {
        var bytes: [UInt8] = [0xff, 0xd8]
        bytes += [0xff, 0xc0, 0x00, 0x0b, 0x08] + bigEndian(height, bytes: 2) + bigEndian(width, bytes: 2)
        bytes += [0x01, 0x01, 0x11, 0x00]
        bytes += [0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x00, 0xff, 0xd9]
        return Data(bytes)
    }

    private static func bigEndian(_ value: Int, bytes: Int = 4) -> [UInt8] {
        (0..<bytes).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// A server on a fresh data directory, so tests can see exactly what was stored.
struct DiskServer: Sendable {
    let server: RunningMockCDN
    let folder: URL

    /// Objects committed to the store (metadata files).
    func storedCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: self.folder.appendingPathComponent("meta").path).count
    }

    /// Temporary files of writes in progress or abandoned.
    func temporaryCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: self.folder.appendingPathComponent("tmp").path).count
    }

    func url(_ path: String) -> URL { self.server.url(path) }

    static func run<Result: Sendable>(
        apps: [AppConfiguration] = [.demo],
        fixtures: String? = nil,
        journalCapacity: Int = 1000,
        storeWrapper: (@Sendable (any ObjectStore) -> any ObjectStore)? = nil,
        _ body: @Sendable (DiskServer) async throws -> Result
    ) async throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mockcdn-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration(dataDirectory: folder.path, apps: apps, logLevel: .warning)
        configuration.fixturesDirectory = fixtures
        configuration.journalCapacity = journalCapacity
        configuration.storeWrapper = storeWrapper
        return try await MockCDNTestServer.withRunning(configuration) { server in
            try await body(DiskServer(server: server, folder: folder))
        }
    }

    /// Uploads to a Stream endpoint and returns the reply.
    func upload(
        _ path: String = "/channels/messaging/general/image",
        token: String? = Tokens.user("alice"),
        apiKey: String? = "demo-key",
        parts: [Part],
        headers extra: [String: String] = [:]
    ) async throws -> Reply {
        var headers = token.map(Tokens.headers) ?? [:]
        headers["Content-Type"] = Multipart.contentType
        headers.merge(extra) { _, new in new }
        let query = apiKey.map { "?api_key=\($0)" } ?? ""
        return try await HTTP.send("POST", self.url(path + query), headers: headers, body: Multipart.body(parts))
    }

    /// The server's clock now, in Unix seconds.
    func clockNow() async throws -> Int64 {
        try #require(try await HTTP.get(self.url("/_mockcdn/clock")).json["now"] as? Int64)
    }

    /// What `body` returns, with the server's clock read just before and just after it: whatever the server
    /// stamped inside `body` lies in that range, however loaded the machine is.
    func bracketed<Result>(_ body: () async throws -> Result) async throws -> (Result, ClosedRange<Int64>) {
        let before = try await self.clockNow()
        let result = try await body()
        return (result, before...(try await self.clockNow()))
    }

    func setClock(_ now: Int64) async throws {
        let reply = try await HTTP.send("PUT", self.url("/_mockcdn/clock"), body: Data(#"{"now":\#(now)}"#.utf8))
        try #require(reply.status == 200)
    }

    /// The journal's entries, oldest first, filtered by a query such as `method=GET&status=200`.
    func journal(_ filter: String = "") async throws -> [[String: Any]] {
        let reply = try await HTTP.get(self.url("/_mockcdn/requests" + (filter.isEmpty ? "" : "?" + filter)))
        try #require(reply.status == 200, "\(reply.text)")
        return try #require(reply.json["requests"] as? [[String: Any]])
    }

    /// Installs a fault rule (JSON) and returns its id.
    func addFault(_ json: String) async throws -> String {
        let reply = try await HTTP.send("POST", self.url("/_mockcdn/faults"), body: Data(json.utf8))
        try #require(reply.status == 201, "\(reply.text)")
        return try #require(reply.json["id"] as? String)
    }

    func advanceClock(_ seconds: Int64) async throws {
        let reply = try await HTTP.send(
            "POST",
            self.url("/_mockcdn/clock/advance"),
            body: Data(#"{"seconds":\#(seconds)}"#.utf8)
        )
        try #require(reply.status == 200)
    }
}

/// What a CloudFront link MockCDN issued says about itself.
enum Links {
    /// A query parameter's value.
    static func parameter(_ name: String, of url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }

    /// The custom policy a Stream-shaped link carries.
    static func policy(of url: String) throws -> CloudFrontPolicy {
        let encoded = try #require(parameter("Policy", of: url))
        return try CloudFrontPolicy.parse(try #require(Base64.decode(encoded, .cloudFront)))
    }

    /// The Unix time the link stops working: its canned `Expires`, or its policy's `DateLessThan`.
    static func expiry(of url: String) throws -> Int64 {
        if let expires = parameter("Expires", of: url) { return try #require(Int64(expires)) }
        return try policy(of: url).dateLessThan
    }

    /// The link with its policy's expiry changed and the signature kept: a tampering.
    static func withPolicyExpiry(_ url: String, _ expiry: Int64) throws -> String {
        let encoded = try #require(parameter("Policy", of: url))
        var policy = try self.policy(of: url)
        policy.dateLessThan = expiry
        return url.replacingOccurrences(of: encoded, with: Base64.encode(Array(policy.json.utf8), .cloudFront))
    }
}
