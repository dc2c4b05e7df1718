import Foundation
import MockCDNCore
import NIOCore

/// Preloads a folder of media under the default app at `{app}/fixtures/{name}`: at start (before the
/// health route answers) and on every `/_mockcdn/reset`.
struct FixtureLoader: Sendable {
    let directory: String

    /// The files that are preloaded, in name order: regular files, neither hidden nor `README.md`.
    ///
    /// - Throws: `MockCDNError.storageFailure` when the folder is missing or cannot be read.
    func fileNames() throws -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: self.directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw MockCDNError.storageFailure(
                "the fixtures folder \(self.directory) does not exist (--fixtures; `none` preloads nothing)"
            )
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: self.directory).sorted()
        } catch {
            throw MockCDNError.storageFailure("cannot read the fixtures folder \(self.directory): permission denied")
        }
        return names.filter { name in
            var isDirectory: ObjCBool = false
            return !name.hasPrefix(".") && name != "README.md"
                && FileManager.default.fileExists(atPath: self.directory + "/" + name, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }

    /// Stores every regular file of the folder (not hidden, not README.md), replacing what is there.
    ///
    /// - Parameters:
    ///   - store: where to store them.
    ///   - clock: gives their creation time.
    ///   - app: the app they belong to.
    /// - Returns: the keys stored, in name order.
    /// - Throws: `MockCDNError.storageFailure` when the folder or a file cannot be read.
    @discardableResult
    func load(into store: any ObjectStore, clock: MockClock, app: MediaApp) async throws -> [ObjectKey] {
        var keys: [ObjectKey] = []
        // The folder's listing and each file's read run on NIO's thread pool (`BlockingWork`).
        for name in try await BlockingWork.run({ try self.fileNames() }) {
            let path = self.directory + "/" + name
            guard let data = await BlockingWork.run({ FileManager.default.contents(atPath: path) }) else {
                throw MockCDNError.storageFailure("cannot read fixture \(path)")
            }
            let key = try ObjectKey("\(app.id)/fixtures/\(UploadPolicy.sanitizedFileName(name))")
            let fileExtension = (name as NSString).pathExtension.lowercased()
            let contentType =
                MediaSniffer.sniff(Array(data.prefix(MediaSniffer.prefixLength)))
                ?? MediaSniffer.typeByExtension[fileExtension] ?? "application/octet-stream"
            // No image header is read here: that would load libvips at start, which a server that never
            // resizes does not need. A fixture's dimensions are read from its own header when it is first
            // resized, and the pixel bound is checked then, before any pixel is decoded.
            let bytes = ByteBuffer(bytes: data)
            let extras = ["original_name": name]
            _ = try await store.put(
                key,
                body: AsyncStream { stream in
                    stream.yield(bytes)
                    stream.finish()
                },
                attributes: ObjectAttributes(
                    contentType: contentType,
                    owner: nil,
                    extras: extras,
                    created: clock.now
                ),
                maxBytes: max(data.count, 1)
            )
            keys.append(key)
        }
        return keys
    }
}
