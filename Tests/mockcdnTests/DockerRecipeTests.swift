import Foundation
import Testing

/// No Docker engine runs here, so the recipe is checked as text: the files it copies exist, it builds and
/// runs the real binary, and it has the health check the contract's ready signal calls for.
@Suite("docker/ recipe")
struct DockerRecipeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Instruction lines with continuations joined, comments dropped.
    static func instructions(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    @Test("the Dockerfile copies files that exist, builds and runs the mockcdn product, and checks health")
    func dockerfile() throws {
        let lines = Self.instructions(try Self.read("docker/Dockerfile"))
        let froms = lines.filter { $0.hasPrefix("FROM ") }
        #expect(froms.count == 2, "multi-stage: build, then run")
        #expect(froms.first?.contains("swift:") == true && froms.first?.contains("bookworm") == true)
        #expect(froms.last?.contains("debian:bookworm-slim") == true)
        for line in lines where line.hasPrefix("COPY ") && !line.contains("--from=") {
            let parts = line.split(separator: " ").map(String.init)
            for source in parts.dropFirst().dropLast() {
                #expect(
                    FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(source).path),
                    "COPY source \(source) does not exist"
                )
            }
        }
        #expect(try Self.read("Package.swift").contains(#".executable(name: "mockcdn""#))
        // Dependencies resolve in a layer of their own, before the sources are copied; the build folder is a
        // cache mount, so a source change rebuilds MockCDN's modules only.
        let resolve = lines.firstIndex(of: "RUN swift package resolve")
        let manifest = lines.firstIndex(of: "COPY Package.swift ./")
        let sources = lines.firstIndex { $0.hasPrefix("COPY Sources ") }
        #expect(manifest != nil && resolve != nil && sources != nil && manifest! < resolve! && resolve! < sources!)
        let build = lines.first { $0.contains("scripts/build-server.sh -c release") }
        #expect(build?.hasPrefix("RUN --mount=type=cache,target=/src/.build ") == true)
        let buildScript = try Self.read("scripts/build-server.sh")
        #expect(buildScript.contains("--product mockcdn") && buildScript.contains("--product MockCDNVips"))
        #expect(
            lines.contains { $0.hasPrefix("RUN apt-get") && $0.contains("libvips-dev") && $0.contains("libssl-dev") }
        )
        // The libvips module and the resources ride next to the binary, where the server looks for them.
        #expect(
            lines.contains {
                $0.contains("scripts/build-server.sh") && $0.contains(#"/MockCDN_MockCDNServer.resources" /out/"#)
                    && $0.contains(#"/libMockCDNVips.so" /out/"#)
            }
        )
        #expect(lines.contains("COPY --from=build /out/ /usr/local/bin/"))
        #expect(lines.contains { $0.hasPrefix("HEALTHCHECK") && $0.contains("/_mockcdn/health") })
        #expect(lines.contains(#"ENTRYPOINT ["mockcdn"]"#))
        #expect(lines.contains(#"CMD ["serve"]"#))
        #expect(lines.contains { $0.hasPrefix("ENV") && $0.contains("MOCKCDN_FIXTURES=/usr/share/mockcdn/fixtures") })
        #expect(lines.contains { $0.hasPrefix("COPY Fixtures/media /usr/share/mockcdn/fixtures") })
        // The runtime packages are exactly what the binary needs: libvips and libcrypto (linked), ffmpeg
        // (video posters), curl (the health check), CA certificates (an https S3 store).
        let runtime = lines.last { $0.hasPrefix("RUN apt-get") }.map { line in
            line.split(separator: " ").drop { $0 != "--no-install-recommends" }.dropFirst().prefix { $0 != "&&" }
        }
        #expect(runtime.map(Array.init) == ["libvips42", "libssl3", "ffmpeg", "curl", "ca-certificates"])
    }

    @Test("the data directory exists in the image, owned by the user the server runs as, where compose mounts it")
    func dataDirectory() throws {
        let lines = Self.instructions(try Self.read("docker/Dockerfile"))
        #expect(lines.contains("USER mockcdn"))
        #expect(
            lines.contains {
                $0.hasPrefix("RUN apt-get") && $0.contains("useradd --system --home-dir /var/lib/mockcdn")
                    && $0.hasSuffix("&& install -d -o mockcdn -g mockcdn /var/lib/mockcdn/data")
            }
        )
        let compose = try Self.read("docker/compose.yaml")
        #expect(compose.contains("MOCKCDN_DATA_DIR: /var/lib/mockcdn/data"))
        #expect(compose.contains("- mockcdn-data:/var/lib/mockcdn/data"))
    }

    @Test("the README runs the image behind a port mapping, where links follow the request's Host")
    func readme() throws {
        let readme = try Self.read("README.md")
        #expect(readme.contains("docker run --rm -p 9000:8080 mockcdn"))
        #expect(try Self.read("docker/Dockerfile").contains("#   docker run --rm -p 9000:8080 mockcdn"))
    }

    @Test("compose.yaml builds that Dockerfile from the repository root and checks health")
    func compose() throws {
        let text = try Self.read("docker/compose.yaml")
        #expect(text.contains("context: .."))
        #expect(text.contains("dockerfile: docker/Dockerfile"))
        #expect(text.contains("/_mockcdn/health"))
        #expect(text.contains("8080:8080"))
        let dockerignore = try Self.read(".dockerignore")
        #expect(dockerignore.contains(".build"))
    }

    @Test("docs/containers.md: each Testcontainers recipe waits on health, maps 8080 and passes the admin token")
    func containerRecipes() throws {
        let text = try Self.read("docs/containers.md")
        #expect(Self.instructions(try Self.read("docker/Dockerfile")).contains("EXPOSE 8080"))
        let sections = text.components(separatedBy: "\n## ").dropFirst()
        let recipes = sections.filter { $0.contains("Testcontainers") || $0.contains("testcontainers") }
        #expect(recipes.count == 4, "Java and Kotlin, Node, Python, Go")
        for recipe in recipes {
            let title = recipe.prefix { $0 != "\n" }
            #expect(recipe.contains("8080") && recipe.contains("MOCKCDN_ADMIN_TOKEN"), "\(title)")
            #expect(recipe.contains("/_mockcdn/health"), "\(title)")
        }
        let android = sections.first { $0.hasPrefix("Android") } ?? ""
        #expect(android.contains("10.0.2.2") && android.contains("adb reverse tcp:8080 tcp:8080"))
        #expect(android.contains("cleartextTrafficPermitted=\"true\""))
        #expect(sections.first { $0.hasPrefix("iOS") }?.contains("NSAllowsLocalNetworking") == true)
    }

    @Test("compose.scale.yaml: two replicas on one bucket, with one public URL, behind a load balancer")
    func scaleOut() throws {
        let text = try Self.read("docker/compose.scale.yaml")
        #expect(text.contains("mockcdn-a: &mockcdn") && text.contains("mockcdn-b: *mockcdn"))
        #expect(text.contains("MOCKCDN_STORE: s3://mockcdn/team"))
        #expect(text.contains("AWS_ENDPOINT_URL_S3: http://s3:8333"))
        #expect(text.contains("MOCKCDN_PUBLIC_URL: http://localhost:8080"))
        #expect(text.contains("create-bucket") && text.contains("--bucket\", \"mockcdn"))
        #expect(text.contains("server mockcdn-a:8080;") && text.contains("server mockcdn-b:8080;"))
        #expect(text.contains("/_mockcdn/health") && text.contains("8080:80"))
        // The load balancer passes the client's Host, and streams uploads instead of buffering them.
        #expect(text.contains("proxy_set_header Host $$http_host;") && text.contains("proxy_request_buffering off;"))
    }
}
