import Foundation
import MockCDNServer
import Testing
import Yams

@Suite("openapi.yaml covers the router")
struct OpenAPICoverageTests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head"]

    /// `(METHOD, path)` of every operation in openapi.yaml, CORS preflights aside.
    static func documented() throws -> [(method: String, path: String)] {
        let url = Fixture.url("../openapi.yaml").standardizedFileURL
        let document = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: Any])
        return paths.flatMap { path, item -> [(method: String, path: String)] in
            let operations = (item as? [String: Any])?.keys.filter { Self.methods.contains($0) } ?? []
            return operations.map { ($0.uppercased(), path) }
        }
    }

    /// Whether a router path (`/channels/{type}/{id}/image`, `/{app}/**`) and a documented path template
    /// name the same route: constant segments equal, a parameter matches a parameter, `**` the rest.
    static func same(router: String, document: String) -> Bool {
        let routerSegments = router.split(separator: "/")
        let documentSegments = document.split(separator: "/")
        func isParameter(_ segment: Substring) -> Bool { segment.hasPrefix("{") && segment.hasSuffix("}") }
        for (index, segment) in routerSegments.enumerated() {
            if segment == "**" {
                return documentSegments.count > index && documentSegments[index...].allSatisfy(isParameter)
            }
            guard index < documentSegments.count else { return false }
            let other = documentSegments[index]
            if isParameter(segment) || segment == "*" {
                guard isParameter(other) else { return false }
            } else if segment != other {
                return false
            }
        }
        return routerSegments.count == documentSegments.count
    }

    @Test("every route in the router is in the document, and every documented operation is routed")
    func coverage() async throws {
        let routes = try await RouteCatalog.routes()
        #expect(routes.count >= 30)
        let documented = try Self.documented()
        for route in routes {
            #expect(
                documented.contains { $0.method == route.method && Self.same(router: route.path, document: $0.path) },
                "\(route.method) \(route.path) is routed but not in openapi.yaml"
            )
        }
        for operation in documented {
            #expect(
                routes.contains {
                    $0.method == operation.method && Self.same(router: $0.path, document: operation.path)
                },
                "\(operation.method) \(operation.path) is in openapi.yaml but not routed"
            )
        }
    }

    @Test("the matcher tells routes apart")
    func matcher() {
        #expect(Self.same(router: "/{app}/**", document: "/{app}/{folder}/{uuid}/{name}"))
        #expect(Self.same(router: "/channels/{type}/{id}/image", document: "/channels/{type}/{id}/image"))
        #expect(!Self.same(router: "/channels/{type}/{id}/image", document: "/channels/{type}/{id}/file"))
        #expect(!Self.same(router: "/{app}/media", document: "/{app}/{folder}/{uuid}/{name}"))
        #expect(!Self.same(router: "/app", document: "/app/extra"))
    }

    @Test("the route prefixes no app id may take are exactly the first segments of the other routes")
    func reservedPrefixes() async throws {
        let firstSegments = try await RouteCatalog.routes().compactMap { route -> String? in
            let segment = route.path.split(separator: "/").first.map(String.init) ?? ""
            return segment.hasPrefix("{") || segment.isEmpty ? nil : segment
        }
        #expect(Set(firstSegments) == RouteCatalog.reservedPrefixes)
    }
}
