import Foundation
import MockCDNCore

/// Files shipped with the server target (`Sources/MockCDNServer/Resources`), found without SwiftPM's
/// `Bundle.module`, which stops the process when its bundle is missing: a binary copied away from its
/// resources answers 404 for them and keeps serving everything else.
enum ServerResources {
    /// The resource bundle's folder names: `.resources` on Linux, `.bundle` on Apple platforms.
    static let bundleNames = ["MockCDN_MockCDNServer.resources", "MockCDN_MockCDNServer.bundle"]

    /// The bundle, looked up once: in the install layout (`EXE/../share/mockcdn`), next to the running
    /// executable (a build folder), or next to a loaded bundle (a test bundle on macOS).
    static let bundle: Bundle? = {
        let places =
            [InstallLayout.shareFolder].compactMap { $0 }
            + ([Bundle.main] + Bundle.allBundles).flatMap {
                [$0.bundleURL, $0.bundleURL.deletingLastPathComponent()]
            }
        for place in places {
            for name in Self.bundleNames {
                if let bundle = Bundle(url: place.appendingPathComponent(name)) { return bundle }
            }
        }
        return nil
    }()

    /// The bytes of a resource, or nil when it is not installed; read on NIO's thread pool, for a request.
    static func read(_ name: String) async -> Data? {
        await BlockingWork.run { Self.data(name) }
    }

    /// The bytes of a resource, or nil when it is not installed.
    static func data(_ name: String) -> Data? {
        guard let bundle = self.bundle else { return nil }
        let url = bundle.resourceURL?.appendingPathComponent(name) ?? bundle.bundleURL.appendingPathComponent(name)
        return FileManager.default.contents(atPath: url.path)
    }
}
