// swift-tools-version:6.2
// libFuzzer targets for MockCDN's parsers. Not part of the main package: they build with
// `swift build --package-path Fuzz --sanitize=fuzzer --sanitize=address` (see run.sh).
import Foundation
import PackageDescription

// A path dependency is named by its folder, which differs between checkouts (main, ci, ...).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let mockcdn = root.lastPathComponent.lowercased()

let package = Package(
    name: "MockCDNFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "..")],
    targets: [
        // RFC 9110 Range headers against object sizes.
        .executableTarget(name: "FuzzRange", dependencies: [.product(name: "MockCDNCore", package: mockcdn)]),
        // CloudFront custom policies (JSON) as a signed link carries them.
        .executableTarget(name: "FuzzPolicy", dependencies: [.product(name: "MockCDNCore", package: mockcdn)]),
        // SigV4 presigned queries through the verifier.
        .executableTarget(name: "FuzzSigV4", dependencies: [.product(name: "MockCDNCore", package: mockcdn)]),
        // multipart/form-data: boundary from Content-Type, then the streaming reader over the body.
        .executableTarget(name: "FuzzMultipart", dependencies: [.product(name: "MockCDNServer", package: mockcdn)]),
        // XML documents (S3's request bodies) through XMLReader, whole and in chunks.
        .executableTarget(name: "FuzzXML", dependencies: [.product(name: "MockCDNCore", package: mockcdn)]),
    ]
)
