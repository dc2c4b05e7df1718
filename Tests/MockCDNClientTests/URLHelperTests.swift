import Foundation
import MockCDNClient
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Client URL helpers")
struct URLHelperTests {
    /// A FAT whose text needs encoding: `+`, `/`, `=`.
    static let fat = "eyJhcHAiOiJkZW1vIn0+/x=.c2ln+/y=="
    static let encodedFAT = "eyJhcHAiOiJkZW1vIn0%2B%2Fx%3D.c2ln%2B%2Fy%3D%3D"

    static func configuration(
        _ mode: SecureMediaMode,
        fat: String? = URLHelperTests.encodedFAT,
        host: String? = nil
    ) -> MockCDNClientConfiguration {
        MockCDNClientConfiguration(
            baseURL: URL(string: "http://127.0.0.1:8080")!,
            secureMediaHost: host,
            secureMediaMode: mode,
            fatProvider: { fat }
        )
    }

    static func url(_ text: String) -> URL { URL(string: text)! }

    @Test(
        "stripping fat keeps every other parameter and the fragment",
        arguments: [
            ("http://127.0.0.1:8080/demo/a.png?fat=\(encodedFAT)", "http://127.0.0.1:8080/demo/a.png"),
            ("http://127.0.0.1:8080/demo/a.png?x=1&fat=abc&y=2", "http://127.0.0.1:8080/demo/a.png?x=1&y=2"),
            ("http://127.0.0.1:8080/demo/a.png?x=1?fat=\(encodedFAT)", "http://127.0.0.1:8080/demo/a.png?x=1"),
            ("http://127.0.0.1:8080/demo/a.png?fat=a&w=3&fat=b", "http://127.0.0.1:8080/demo/a.png?w=3"),
            ("http://127.0.0.1:8080/demo/a.png?fat=a#frag", "http://127.0.0.1:8080/demo/a.png#frag"),
            ("http://127.0.0.1:8080/demo/a.png?fatty=1&f%61t=2", "http://127.0.0.1:8080/demo/a.png?fatty=1"),
            ("http://127.0.0.1:8080/demo/a.png?next=a?b", "http://127.0.0.1:8080/demo/a.png?next=a?b"),
            ("http://127.0.0.1:8080/demo/a.png", "http://127.0.0.1:8080/demo/a.png"),
        ]
    )
    func strip(_ input: String, _ expected: String) {
        let helper = SecureMedia(configuration: Self.configuration(.headerBased))
        #expect(helper.stripFatQueryParam(from: Self.url(input)).absoluteString == expected)
        #expect(helper.hasFatQueryParam(in: Self.url(input)) == (input != expected))
    }

    @Test("header mode: the request loses every fat parameter and gains the decoded FAT header")
    func headerRequest() {
        let helper = SecureMedia(configuration: Self.configuration(.headerBased))
        #expect(helper.isHeaderModeEnabled)
        let request = helper.createHeaderBasedMediaRequest(
            for: Self.url("http://127.0.0.1:8080/demo/a.png?w=5?fat=old")
        )
        #expect(request.url?.absoluteString == "http://127.0.0.1:8080/demo/a.png?w=5")
        #expect(request.value(forHTTPHeaderField: "fat") == Self.fat)
    }

    @Test("no header in embedded mode, on another host, without a FAT, or without a secure host")
    func noHeader() {
        let cases: [(MockCDNClientConfiguration, String)] = [
            (Self.configuration(.embedded), "http://127.0.0.1:8080/demo/a.png?fat=x"),
            (Self.configuration(.headerBased), "http://cdn.example.com/demo/a.png?fat=x"),
            (Self.configuration(.headerBased), "http://127.0.0.1:9999/demo/a.png?fat=x"),
            (Self.configuration(.headerBased, fat: nil), "http://127.0.0.1:8080/demo/a.png?fat=x"),
            (Self.configuration(.headerBased, fat: ""), "http://127.0.0.1:8080/demo/a.png?fat=x"),
            (Self.configuration(.headerBased, host: ""), "http://127.0.0.1:8080/demo/a.png?fat=x"),
        ]
        for (configuration, text) in cases {
            let helper = SecureMedia(configuration: configuration)
            let request = helper.createHeaderBasedMediaRequest(for: Self.url(text))
            #expect(request.value(forHTTPHeaderField: "fat") == nil, "\(text)")
            #expect(request.url?.absoluteString == text, "\(text)")
            #expect(!helper.shouldInjectFatHeader(for: Self.url(text)), "\(text)")
        }
    }

    @Test("a default port written out or left out names the same secure host")
    func defaultPorts() {
        for (host, url) in [
            ("cdn.example.com", "https://cdn.example.com:443/demo/a.png"),
            ("cdn.example.com:443", "https://cdn.example.com/demo/a.png"),
            ("cdn.example.com:80", "http://cdn.example.com/demo/a.png"),
            ("CDN.example.com", "http://cdn.example.com:80/demo/a.png"),
        ] {
            let helper = SecureMedia(configuration: Self.configuration(.headerBased, host: host))
            #expect(helper.shouldInjectFatHeader(for: Self.url(url)), "\(host) vs \(url)")
        }
        let helper = SecureMedia(configuration: Self.configuration(.headerBased, host: "cdn.example.com"))
        #expect(!helper.shouldInjectFatHeader(for: Self.url("https://cdn.example.com:8443/demo/a.png")))
    }

    @Test("embedded mode appends the percent-encoded FAT, replacing an old one; elsewhere nothing changes")
    func embedded() {
        let helper = SecureMedia(configuration: Self.configuration(.embedded))
        #expect(
            helper.embeddingFat(in: Self.url("http://127.0.0.1:8080/demo/a.png")).absoluteString
                == "http://127.0.0.1:8080/demo/a.png?fat=\(Self.encodedFAT)"
        )
        #expect(
            helper.embeddingFat(in: Self.url("http://127.0.0.1:8080/demo/a.png?w=1&fat=old#f")).absoluteString
                == "http://127.0.0.1:8080/demo/a.png?w=1&fat=\(Self.encodedFAT)#f"
        )
        #expect(
            helper.embeddingFat(in: Self.url("http://other/demo/a.png")).absoluteString == "http://other/demo/a.png"
        )
        let header = SecureMedia(configuration: Self.configuration(.headerBased))
        #expect(
            header.embeddingFat(in: Self.url("http://127.0.0.1:8080/a")).absoluteString == "http://127.0.0.1:8080/a"
        )
    }

    @Test("image requests carry Stream's resize parameters in place of old ones, and ro=0, then the FAT (embedded)")
    func imageRequests() {
        let requester = MockCDNRequester(configuration: Self.configuration(.embedded))
        let fat = "&fat=" + Self.encodedFAT
        let base = "http://127.0.0.1:8080/demo/images/u/a.png?Expires=1&Signature=s&Key-Pair-Id=K"
        let cases: [(CDNImageResize?, String)] = [
            (.init(width: 300), base + "&w=300&h=*&ro=0"),
            (.init(width: 300, height: 200, mode: .crop, crop: .top), base + "&w=300&h=200&resize=crop&crop=top&ro=0"),
            (.init(height: 50, mode: .fill), base + "&w=*&h=50&resize=fill&ro=0"),
            (nil, base),
        ]
        for (resize, expected) in cases {
            let request = requester.imageRequest(
                for: Self.url(base + "&w=10&h=10&resize=scale&ro=1"),
                options: .init(resize: resize)
            )
            if resize == nil {
                #expect(request.url.absoluteString == base + "&w=10&h=10&resize=scale&ro=1" + fat)
            } else {
                #expect(request.url.absoluteString == expected + fat)
            }
            #expect(request.headers == nil)
        }
    }

    @Test("caching keys keep only w, h, resize, crop, sorted: signature, expiry, fat and X-Amz-* do not matter")
    func cachingKeys() {
        let links = [
            "http://127.0.0.1:8080/demo/images/u/a.png?Expires=1&Signature=s1&Key-Pair-Id=K&w=300&h=*&ro=0",
            "http://127.0.0.1:8080/demo/images/u/a.png?Expires=2&Signature=s2&Key-Pair-Id=K&h=*&w=300&ro=0&fat=a%2Bb",
            "http://127.0.0.1:8080/demo/images/u/a.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ab&w=300&h=*",
        ]
        let keys = Set(links.map { MockCDNRequester.cachingKey(for: Self.url($0)) })
        #expect(keys == ["http://127.0.0.1:8080/demo/images/u/a.png?h=*&w=300"])
        #expect(
            MockCDNRequester.cachingKey(for: Self.url("http://127.0.0.1:8080/a.png?resize=crop&crop=top&w=1&h=2"))
                == "http://127.0.0.1:8080/a.png?crop=top&h=2&resize=crop&w=1"
        )
        #expect(
            MockCDNRequester.cachingKey(for: Self.url("http://127.0.0.1:8080/a.png?Signature=x"))
                == "http://127.0.0.1:8080/a.png"
        )
    }

    @Test("other hosts pass untouched; file requests carry the FAT: a header in header mode, the query in embedded")
    func passThrough() {
        let requester = MockCDNRequester(configuration: Self.configuration(.headerBased))
        let other = Self.url("https://cdn.example.com/a.png?w=1&fat=x")
        let image = requester.imageRequest(for: other, options: .init(resize: .init(width: 5)))
        #expect(image == CDNRequest(url: other))
        let file = requester.fileRequest(for: Self.url("http://127.0.0.1:8080/demo/media/u/v.mp4?fat=old"))
        #expect(file.url.absoluteString == "http://127.0.0.1:8080/demo/media/u/v.mp4")
        #expect(file.headers == ["fat": Self.fat])
        #expect(file.urlRequest.value(forHTTPHeaderField: "fat") == Self.fat)
        let embedded = MockCDNRequester(configuration: Self.configuration(.embedded))
        let plain = embedded.fileRequest(for: Self.url("http://127.0.0.1:8080/demo/media/u/v.mp4?fat=x"))
        #expect(plain.headers == nil)
        #expect(plain.url.absoluteString == "http://127.0.0.1:8080/demo/media/u/v.mp4?fat=\(Self.encodedFAT)")
        let elsewhere = embedded.fileRequest(for: other)
        #expect(elsewhere == CDNRequest(url: other), "a FAT never leaves for another host")
    }
}

@Suite("Client isolation")
struct ClientIsolationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("MockCDNClient imports Foundation only and its target depends on nothing")
    func foundationOnly() throws {
        let folder = Self.root.appendingPathComponent("Sources/MockCDNClient")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 5)
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            let imports = text.split(separator: "\n").filter { $0.hasPrefix("import ") }.map { $0.dropFirst(7) }
            #expect(imports.allSatisfy { $0 == "Foundation" || $0 == "FoundationNetworking" }, "\(file): \(imports)")
        }
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let start = try #require(manifest.range(of: #"name: "MockCDNClient","#))
        let target = manifest[start.upperBound...].prefix { $0 != ")" }
        #expect(!target.contains("dependencies"), "MockCDNClient must not depend on anything: \(target)")
    }
}
