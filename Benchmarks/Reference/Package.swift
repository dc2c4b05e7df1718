// swift-tools-version:6.2
import PackageDescription

// The reference MockCDN's reads are measured against: Hummingbird 2 alone, serving the same bytes from memory
// on one route. Not part of the product; `make bench` builds it.
let package = Package(
    name: "BenchmarkReference",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0", traits: [])
    ],
    targets: [
        .executableTarget(
            name: "BareHummingbird",
            dependencies: [.product(name: "Hummingbird", package: "hummingbird")]
        )
    ]
)
