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

    @Test("the Dockerfile makes the tarball with make dist's script (or takes make dist's), and installs it")
    func dockerfile() throws {
        let lines = Self.instructions(try Self.read("docker/Dockerfile"))
        let froms = lines.filter { $0.hasPrefix("FROM ") }
        #expect(
            froms == [
                "FROM swift:6.2-bookworm AS build", "FROM scratch AS prebuilt", "FROM ${TARBALL_FROM} AS tarball",
                "FROM debian:bookworm-slim",
            ]
        )
        #expect(lines.first == "ARG TARBALL_FROM=build")
        for line in lines where line.hasPrefix("COPY ") && !line.contains("--from=") {
            let parts = line.split(separator: " ").map(String.init)
            for source in parts.dropFirst().dropLast() where !source.contains("*") {
                #expect(
                    FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(source).path),
                    "COPY source \(source) does not exist"
                )
            }
        }
        #expect(lines.contains("COPY dist/mockcdn-*-linux-*.tar.gz /out/"))
        #expect(try Self.read(".dockerignore").contains("!dist/mockcdn-*-linux-*.tar.gz"))
        // Dependencies resolve in a layer of their own, before the sources are copied; the build folder is a
        // cache mount, so a source change rebuilds MockCDN's modules only.
        let resolve = lines.firstIndex(of: "RUN swift package resolve")
        let manifest = lines.firstIndex(of: "COPY Package.swift ./")
        let sources = lines.firstIndex { $0.hasPrefix("COPY Sources ") }
        #expect(manifest != nil && resolve != nil && sources != nil && manifest! < resolve! && resolve! < sources!)
        let build = lines.first { $0.contains("packaging/make-dist.sh") }
        #expect(build?.hasPrefix("RUN --mount=type=cache,target=/src/.build ") == true)
        #expect(
            lines.contains { $0.hasPrefix("RUN apt-get") && $0.contains("libvips-dev") && $0.contains("libssl-dev") }
        )
        // The run stage installs exactly the list's packages (read from the list, none named here) and the
        // tarball with the install script make dist-check runs.
        let runStage = lines.drop { $0 != "FROM debian:bookworm-slim" }
        #expect(runStage.contains("COPY packaging/runtime-packages.txt packaging/install-dist.sh /tmp/mockcdn/"))
        let install = runStage.first { $0.hasPrefix("RUN apt-get") } ?? ""
        let packages = install.components(separatedBy: "--no-install-recommends").last?
            .components(separatedBy: " && rm ").first?.trimmingCharacters(in: .whitespaces)
        #expect(packages == #"$(awk '!/^#/ && NF { print $1 }' /tmp/mockcdn/runtime-packages.txt)"#)
        #expect(runStage.contains("COPY --from=tarball /out/ /tmp/mockcdn/"))
        #expect(
            runStage.contains(
                "RUN sh /tmp/mockcdn/install-dist.sh /tmp/mockcdn/mockcdn-*.tar.gz /usr/local && rm -rf /tmp/mockcdn"
            )
        )
        // The binary finds its fixtures, module and resources under /usr/local: no path is configured.
        #expect(!lines.contains { $0.contains("MOCKCDN_FIXTURES") })
        #expect(lines.contains { $0.hasPrefix("HEALTHCHECK") && $0.contains("/_mockcdn/health") })
        #expect(lines.contains(#"ENTRYPOINT ["mockcdn"]"#))
        #expect(lines.contains(#"CMD ["serve"]"#))
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

    @Test("the containers guide runs the image behind a port mapping, where links follow the request's Host")
    func guide() throws {
        let guide = try Self.read("docs/guides/containers-and-ci.md")
        #expect(guide.contains("docker run --rm -p 9000:8080 mockcdn"))
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
        // The Python recipe is the helper's module, which does each of them.
        let module = try Self.read("clients/python/mockcdn/testcontainers.py")
        #expect(module.contains("PORT = 8080") && module.contains("\"MOCKCDN_ADMIN_TOKEN\""))
        #expect(module.contains("/_mockcdn/health\"") && module.contains("answer.status == 200"))
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
