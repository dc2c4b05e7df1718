// swift-tools-version:6.2
import PackageDescription

// A package as a MockCDN user writes one: it depends on MockCDN and imports only MockCDNTesting and
// MockCDNClient. `make test` builds and runs it, so what the README promises a user keeps compiling.
let package = Package(
    name: "ExampleConsumer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "MockCDN", path: "../..")
    ],
    targets: [
        .testTarget(
            name: "ExampleConsumerTests",
            dependencies: [
                .product(name: "MockCDNTesting", package: "MockCDN"),
                .product(name: "MockCDNClient", package: "MockCDN"),
            ]
        )
    ]
)
