// swift-tools-version:6.2
import PackageDescription

// MARK: - Settings shared by every Swift target

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "MockCDN",
    // Platforms are per package. iOS 15 is MockCDNClient's floor (an app links that product only); the server
    // targets run on macOS and Linux, and SwiftPM checks a dependency's floor only for the targets it builds.
    platforms: [.macOS(.v15), .iOS(.v15)],
    products: [
        .executable(name: "mockcdn", targets: ["mockcdn"]),
        .library(name: "MockCDNCore", targets: ["MockCDNCore"]),
        .library(name: "MockCDNServer", targets: ["MockCDNServer"]),
        .library(name: "MockCDNClient", targets: ["MockCDNClient"]),
        .library(name: "MockCDNTesting", targets: ["MockCDNTesting"]),
    ],
    // MARK: - Dependencies
    dependencies: [
        // HTTP server (routing, request/response, graceful shutdown) on SwiftNIO. Only the Foundation trait:
        // we read configuration ourselves, so swift-configuration is not pulled in.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0", traits: []),
        // HTTPField names for the headers MockCDN defines (`fat`, `stream-auth-type`); Hummingbird speaks it.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.3.0"),
        // TLS for `--tls-certificate` (async-http-client depends on it already, for the S3 store).
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        // ByteBuffer, the async file system (NIOFS) the stores stream through, and the thread pool
        // (NIOPosix) resizes run on, off the event loops.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // NIOHTTPTypes: the request parts Hummingbird's HTTP/1 pipeline carries, for FramingErrorJournal (a
        // channel handler). Hummingbird depends on it already, so it adds nothing to the build.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.20.0"),
        // The `mockcdn` command line.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        // Structured logging; the server never logs a token, signature or secret.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // The YAML config file (`mockcdn serve --config`).
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
        // `GET /metrics` in Prometheus' text format.
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.1.0"),
        // Runs the server and stops it gracefully, within a bound, on a signal or at a test's end (Hummingbird
        // already runs on it).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // The S3 store's HTTP client (connection pool, time limits); requests are signed with MockCDN's SigV4.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // `make docs`: the DocC archives of MockCDNClient and MockCDNTesting (`swift package generate-documentation`).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    // MARK: - Targets
    targets: [
        // libcrypto, found through pkg-config (no bare -lcrypto, so Homebrew's keg-only openssl@3 is found too).
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // libcrypto behind a tiny C API: HMAC, SHA, RSA, RAND, constant-time compare; and xxHash, its header
        // (Debian's libxxhash-dev) compiled in with XXH_INLINE_ALL, so nothing more is linked.
        .target(
            name: "CMockCDNCrypto",
            dependencies: ["CLibCrypto"]
        ),
        // libxml2, found through pkg-config.
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // libxml2's push parser behind a tiny C API: the XML documents S3 clients send and an S3 store answers,
        // read with no DTD, no entity expansion and a nesting bound (XMLReader).
        .target(
            name: "CMockCDNXML",
            dependencies: ["CLibXML2"]
        ),
        // The allocator setting `mockcdn serve` makes at start (large blocks mapped and unmapped), the trim of
        // free memory a quiet server makes (glibc only), and the early writeback of a large upload's dirty pages
        // (Linux only).
        .target(name: "CMockCDNMemory"),
        // libvips, found through pkg-config.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // Fixed-arity wrappers over libvips' variadic API, which Swift cannot call. The test harness links it
        // in; for `mockcdn`, scripts/build-server.sh compiles the same file with the C compiler into the
        // loadable module libMockCDNVips (C only, no Swift runtime), which the image worker
        // (`mockcdn-imaging`) loads, so the server never maps libvips. Its API header is CVipsLoader's.
        .target(
            name: "CVipsShim",
            dependencies: ["CVips"],
            cSettings: [.headerSearchPath("../CVipsLoader/include")],
            // `round`: a Swift binary has libm already, the C worker does not.
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        // CVipsShim's API, loading the shim on first use (dlopen); links neither libvips nor glib. Also both
        // ends of the wire to `mockcdn-imaging` (CVipsWorker.h).
        .target(
            name: "CVipsLoader",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // libvips in a child process of the server (CVipsWorker.h). This build links the shim in; the release's
        // copy is compiled by scripts/build-server.sh with the C compiler, and loads libMockCDNVips beside it.
        .executableTarget(
            name: "mockcdn-imaging",
            dependencies: ["CVipsLoader", "CVipsShim"]
        ),
        .target(
            name: "MockCDNCore",
            dependencies: [
                "CMockCDNCrypto",
                "CMockCDNMemory",
                "CMockCDNXML",
                "CVipsLoader",
                .product(name: "NIOCore", package: "swift-nio"),
                // NIOThreadPool: XML documents are read on it, off the event loops and the cooperative pool.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // Objects in an S3-compatible bucket (`--store s3://...`), shared by several instances.
        .target(
            name: "MockCDNS3",
            dependencies: [
                "MockCDNCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MockCDNServer",
            dependencies: [
                "MockCDNCore",
                "MockCDNS3",
                // malloc_trim once the server is quiet (IdleMemoryTrim).
                "CMockCDNMemory",
                // Webhook deliveries of upload events (the client the S3 store already uses).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                // HTTPS (`--tls-certificate`) on swift-nio-ssl, which async-http-client already brings.
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // The HTTP/1 codec's conversion to HTTP types, for MockCDN's own HTTP/1 connection
                // (PlainHTTP1Channel); Hummingbird depends on it already.
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            // The OpenAPI document the server serves at /_mockcdn/openapi.yaml (the repository's openapi.yaml
            // is a link to it).
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/console")],
            swiftSettings: swiftSettings
        ),
        // Foundation only, so an iOS app can use it.
        .target(
            name: "MockCDNClient",
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MockCDNTesting",
            dependencies: [
                // Linked in, so a test's server resizes without the loadable module being built.
                "CVipsShim",
                "MockCDNClient",
                "MockCDNCore",
                "MockCDNServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "mockcdn",
            dependencies: [
                "CMockCDNMemory",
                "MockCDNCore",
                "MockCDNServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                // `--server`'s clock is read over NIO: URLSession would link FoundationNetworking and libcurl's
                // thirty libraries into the server binary, and every start would load them.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // MARK: - Tests
        // Test images from raw pixels and back, which the server never needs: C over libvips, and Swift.
        .target(
            name: "CTestImages",
            dependencies: ["CVips"],
            path: "Tests/CTestImages"
        ),
        .target(
            name: "MockCDNTestImages",
            dependencies: [
                "CTestImages",
                "MockCDNCore",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/MockCDNTestImages",
            swiftSettings: swiftSettings
        ),
        // The pool watchdog of the test process (MOCKCDN_POOL_WATCHDOG, issue 48): Swift that probes the
        // cooperative pool, and the C constructor that starts it as the test binary loads.
        .target(
            name: "CPoolWatchdog",
            path: "Tests/CPoolWatchdog"
        ),
        .target(
            name: "MockCDNPoolWatchdog",
            dependencies: ["CPoolWatchdog"],
            path: "Tests/MockCDNPoolWatchdog",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockCDNCoreTests",
            dependencies: [
                "MockCDNCore",
                // The CRC64NVME tests call both of its paths, the fast one and the portable one.
                "CMockCDNCrypto",
                "MockCDNS3",
                "MockCDNTestImages",
                "MockCDNPoolWatchdog",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockCDNServerTests",
            dependencies: [
                "MockCDNCore",
                "MockCDNServer",
                "MockCDNTestImages",
                "MockCDNTesting",
                "MockCDNPoolWatchdog",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Request heads as NIO's decoder makes them, and a pipeline without a socket (EmbeddedChannel),
                // for UpgradeDecliner.
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MockCDNClientTests",
            dependencies: [
                "MockCDNClient",
                "MockCDNCore",
                "MockCDNServer",
                "MockCDNTesting",
                "MockCDNPoolWatchdog",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "mockcdnTests",
            dependencies: ["mockcdn", "MockCDNServer", "MockCDNPoolWatchdog"],
            swiftSettings: swiftSettings
        ),
    ]
)
