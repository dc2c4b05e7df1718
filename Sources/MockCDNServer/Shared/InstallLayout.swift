import Foundation

/// Where an installed MockCDN finds its files. The release tarball, the container image (under `/usr/local`)
/// and the Python wheel lay them out alike, relative to the binary:
///
///     bin/mockcdn
///     lib/mockcdn/libMockCDNVips.so          (CVipsLoader looks here first)
///     lib/mockcdn/mockcdn-imaging            (VipsWorkers.installed; it loads the module beside it)
///     share/mockcdn/MockCDN_MockCDNServer.resources
///     share/mockcdn/fixtures, share/mockcdn/keys, share/mockcdn/runtime-packages.txt
///
/// A build folder has none of `share/mockcdn`, and the server falls back to what sits next to the binary
/// and to the checkout's `Fixtures/media` under the working directory.
enum InstallLayout {
    /// `EXE/../share/mockcdn` of the running executable (symbolic links resolved), when that folder exists.
    static let shareFolder: URL? = {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        let folder = executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/mockcdn", isDirectory: true)
        return isFolder(folder.path) ? folder : nil
    }()

    /// The folder `mockcdn serve` uses when none is configured: the installed fixtures
    /// (`EXE/../share/mockcdn/fixtures`, see `InstallLayout`), else `Fixtures/media` under the working
    /// directory (a checkout of this repository), whichever exists first.
    static var defaultFixturesDirectory: String? {
        let candidates: [String?] = [
            InstallLayout.shareFolder?.appendingPathComponent("fixtures").path,
            FileManager.default.currentDirectoryPath + "/Fixtures/media",
        ]
        return candidates.compactMap { $0 }.first(where: InstallLayout.isFolder)
    }

    /// Whether `path` names an existing folder.
    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
