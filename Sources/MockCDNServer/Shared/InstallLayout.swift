import Foundation

/// Where an installed MockCDN finds its files. The release tarball, the container image (under `/usr/local`)
/// and the Python wheel lay them out alike, relative to the binary:
///
///     bin/mockcdn
///     lib/mockcdn/libMockCDNVips.so          (CVipsLoader looks here first)
///     lib/mockcdn/mockcdn-imaging            (VipsWorkers.installed; it loads the module beside it)
///     share/mockcdn/MockCDN_MockCDNServer.resources
///     share/mockcdn/fixtures, share/mockcdn/keys, share/mockcdn/config, share/mockcdn/runtime-packages.txt
///     share/mockcdn/docs, share/mockcdn/clients
///
/// A build folder has none of `share/mockcdn`, and the server falls back to what sits next to the binary
/// and to the checkout's `Fixtures/` under the working directory.
public enum InstallLayout {
    /// The sample folders MockCDN ships, each found by `samples(_:)` wherever it is installed.
    public enum Samples: String, CaseIterable, Sendable {
        /// The media `mockcdn serve` preloads by default (`fixtures/{name}` of the default app).
        case media
        /// The demo app's published CloudFront key pair.
        case keys
        /// An example configuration file with two apps.
        case config

        /// Its folder in an install, under `share/mockcdn`.
        var installed: String {
            self == .media ? "fixtures" : self.rawValue
        }
    }

    /// `EXE/../share/mockcdn` of the running executable (symbolic links resolved), when that folder exists.
    static let shareFolder: URL? = {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        let folder = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/mockcdn", isDirectory: true)
        return isFolder(folder.path) ? folder : nil
    }()

    /// The folder `mockcdn serve` uses when none is configured: the installed media samples.
    static var defaultFixturesDirectory: String? {
        Self.samples(.media)
    }

    /// Where a kind of samples is: installed (`EXE/../share/mockcdn/fixtures`, `.../keys`, `.../config`), else
    /// in the checkout under the working directory (`Fixtures/media`, `Fixtures/keys`, `Fixtures/config`),
    /// whichever exists first. `mockcdn fixtures` prints it, so that the docs name samples the same way in
    /// an install and in a checkout.
    ///
    /// - Parameter samples: which folder.
    /// - Returns: its path; nil when neither exists.
    public static func samples(_ samples: Samples) -> String? {
        let candidates: [String?] = [
            InstallLayout.shareFolder?.appendingPathComponent(samples.installed).path,
            FileManager.default.currentDirectoryPath + "/Fixtures/" + samples.rawValue,
        ]
        return candidates.compactMap { $0 }.first(where: InstallLayout.isFolder)
    }

    /// Whether `path` names an existing folder.
    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
