import Foundation
import MockCDNCore
import NIOCore
import Testing

/// Posters of the committed sample videos, and ffmpeg kept inside its bounds: undecodable and mislabelled
/// files, the time, memory and output limits, cancellation, and playlists that would make a probing ffmpeg
/// read other files. One at a time: each test starts ffmpeg, and the time bounds should measure ffmpeg, not
/// a queue for two cores.
@Suite("VideoPoster", .serialized)
struct VideoPosterTests {
    /// A file of `Fixtures/media`.
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures/media/\(name)").path
    }

    /// Writes `bytes` to `name` in a fresh folder, runs `body` with the path, and removes the folder.
    static func withFile<Result>(
        _ name: String,
        _ bytes: [UInt8],
        _ body: (String, URL) async throws -> Result
    ) async throws -> Result {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try await body(path, folder)
    }

    static func bytes(of fixture: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture(fixture))))
    }

    /// Whether `body` throws `MockCDNError.imageFailure`; returns its detail.
    static func failure(_ body: () async throws -> ByteBuffer) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch let error as MockCDNError where error == .imageFailure {
            return error.detail
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test(
        "a poster of each sample video is a JPEG of the video's size",
        arguments: [
            ("sample.mp4", VideoPoster.Container.quickTime), ("sample.mov", .quickTime), ("sample.webm", .matroska),
        ]
    )
    func samplePoster(name: String, container: VideoPoster.Container) async throws {
        let jpeg = try await VideoPoster.poster(ofFileAt: Self.fixture(name), container: container)
        #expect(try Vips.probe(jpeg) == ImageHeader(width: 160, height: 120, frames: 1, format: .jpeg))
    }

    @Test("the same video gives the same bytes (no encoder version or metadata in them)")
    func deterministic() async throws {
        let first = try await VideoPoster.poster(ofFileAt: Self.fixture("sample.mp4"), container: .quickTime)
        let second = try await VideoPoster.poster(ofFileAt: Self.fixture("sample.mp4"), container: .quickTime)
        #expect(first == second)
    }

    @Test(
        "posters fit inside maximumSide keeping the aspect ratio, and are never enlarged",
        arguments: [(4096, 160, 120), (160, 160, 120), (120, 120, 90), (75, 75, 56), (40, 40, 30)]
    )
    func fits(side: Int, width: Int, height: Int) async throws {
        let jpeg = try await VideoPoster.poster(
            ofFileAt: Self.fixture("sample.webm"),
            container: .matroska,
            maximumSide: side
        )
        let header = try Vips.probe(jpeg, as: .jpeg)
        #expect((header.width, header.height) == (width, height))
    }

    @Test("a maximumSide outside 1...8192 is refused before ffmpeg runs", arguments: [0, -1, 8193])
    func badSide(side: Int) async {
        let detail = await Self.failure {
            try await VideoPoster.poster(ofFileAt: Self.fixture("sample.mp4"), container: .quickTime, maximumSide: side)
        }
        #expect(detail?.contains("outside 1...8192") == true, "\(detail ?? "no error")")
    }

    /// Bytes no demuxer accepts: random, a text file, and sample.mp4 cut inside its `moov` box.
    static let undecodable: [(String, [UInt8])] = {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<64 * 1024).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let text = Array("Not a video at all, just a line of text.\n".utf8)
        let mp4 = try! VideoPosterTests.bytes(of: "sample.mp4")
        return [("random bytes", random), ("a text file", text), ("an MP4 cut at 600 bytes", Array(mp4.prefix(600)))]
    }()

    @Test(
        "an undecodable file throws ffmpeg's error, not the time limit's, with either demuxer",
        arguments: [0, 1, 2],
        VideoPoster.Container.allCases
    )
    func undecodable(index: Int, container: VideoPoster.Container) async throws {
        let (label, bytes) = Self.undecodable[index]
        // ffmpeg's own error (the detail starts "ffmpeg "), never "video poster took longer than": it gave up on
        // the bytes rather than waiting on them. No time is measured: a loaded machine stretches any figure.
        let detail = try await Self.withFile("upload.bin", bytes) { path, _ in
            await Self.failure { try await VideoPoster.poster(ofFileAt: path, container: container) }
        }
        #expect(detail?.hasPrefix("ffmpeg ") == true, "\(label): \(detail ?? "no error")")
    }

    @Test(
        "a video read with the other container's demuxer throws",
        arguments: [
            ("sample.mp4", VideoPoster.Container.matroska), ("sample.mov", .matroska), ("sample.webm", .quickTime),
        ]
    )
    func wrongDemuxer(name: String, container: VideoPoster.Container) async {
        let detail = await Self.failure {
            try await VideoPoster.poster(ofFileAt: Self.fixture(name), container: container)
        }
        #expect(detail?.hasPrefix("ffmpeg exited with status") == true, "\(detail ?? "no error")")
    }

    @Test("a video cut after its first frames still gives a poster: only an early frame is decoded")
    func earlyFrame() async throws {
        // sample.mp4 is faststart: its index comes first, so half the file holds the first frames.
        let mp4 = try Self.bytes(of: "sample.mp4")
        let jpeg = try await Self.withFile("half.mp4", Array(mp4.prefix(mp4.count / 2))) { path, _ in
            try await VideoPoster.poster(ofFileAt: path, container: .quickTime)
        }
        #expect(try Vips.probe(jpeg).format == .jpeg)
    }

    @Test("a video that says it is turned a quarter gives an upright poster")
    func rotated() async throws {
        let ffmpeg = try #require(VideoPoster.ffmpegPath, "ffmpeg is not installed: make video-deps")
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The same frames, with a display matrix of 90 degrees (as phones record portrait video).
        let path = folder.appendingPathComponent("turned.mp4").path
        let arguments = ["-loglevel", "error", "-i", Self.fixture("sample.mp4"), "-c", "copy", "-metadata:s:v"]
        try #require(try await runTool([ffmpeg, "-nostdin"] + arguments + ["rotate=90", path]).status == 0)
        let jpeg = try await VideoPoster.poster(ofFileAt: path, container: .quickTime, maximumSide: 80)
        let header = try Vips.probe(jpeg, as: .jpeg)
        #expect((header.width, header.height) == (60, 80))
    }

    @Test("a time limit of zero kills ffmpeg and throws the time limit's error")
    func timeLimit() async {
        let detail = await Self.failure {
            try await VideoPoster.poster(ofFileAt: Self.fixture("sample.mp4"), container: .quickTime, timeLimit: .zero)
        }
        #expect(detail?.hasPrefix("video poster took longer than") == true, "\(detail ?? "no error")")
    }

    @Test("a cancelled poster kills ffmpeg and throws CancellationError")
    func cancelled() async {
        let task = Task {
            try await VideoPoster.poster(ofFileAt: Self.fixture("sample.webm"), container: .matroska)
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("an address-space limit too small for ffmpeg's libraries stops it: the rlimit is applied")
    func memoryLimit() async {
        let detail = await Self.failure {
            try await VideoPoster.poster(
                ofFileAt: Self.fixture("sample.mp4"),
                container: .quickTime,
                memoryLimitBytes: 16 << 20
            )
        }
        #expect(detail?.hasPrefix("ffmpeg exited with status") == true, "\(detail ?? "no error")")
    }

    @Test("output past the limit kills ffmpeg and throws")
    func outputLimit() async {
        let detail = await Self.failure {
            try await VideoPoster.poster(
                ofFileAt: Self.fixture("sample.mp4"),
                container: .quickTime,
                outputLimitBytes: 1000
            )
        }
        #expect(detail == "video poster is larger than 1000 bytes")
    }

    @Test("a path with spaces, quotes, a colon and shell syntax reaches ffmpeg as one argument, uninterpreted")
    func hostilePath() async throws {
        let name = #"it's a "video"; $(touch pwned) `touch pwned` http:x.mp4"#
        let jpeg = try await Self.withFile(name, try Self.bytes(of: "sample.mp4")) { path, folder in
            defer {
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("pwned").path))
                #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/pwned"))
            }
            return try await VideoPoster.poster(ofFileAt: path, container: .quickTime)
        }
        #expect(try Vips.probe(jpeg).width == 160)
    }

    /// Text files named `.mp4` that ffmpeg, left to probe, reads as an HLS playlist or a concat script and
    /// follows to other local files; `leaks` marks the ones whose target is a video, which a probing ffmpeg
    /// turns into a JPEG (the test checks it does, so that the file is a real attack).
    static func playlists(in folder: URL) -> [(name: String, text: String, leaks: Bool)] {
        let video = fixture("sample.mp4")
        let hls = { (target: String) in
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n\(target)\n#EXT-X-ENDLIST\n"
        }
        return [
            ("HLS playlist naming a local video", hls(video), true),
            ("HLS playlist naming /etc/hostname", hls("/etc/hostname"), false),
            ("HLS playlist naming file:/etc/hostname", hls("file:/etc/hostname"), false),
            ("ffconcat script naming a video beside it", "ffconcat version 1.0\nfile 'copy.mp4'\n", true),
            ("ffconcat script naming /etc/hostname", "ffconcat version 1.0\nfile '/etc/hostname'\n", false),
        ]
    }

    @Test("a playlist or concat script named .mp4 never produces an image: the demuxer is never probed")
    func playlistsAreNotFollowed() async throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(
            atPath: Self.fixture("sample.mp4"),
            toPath: folder.appendingPathComponent("copy.mp4").path
        )
        let ffmpeg = try #require(VideoPoster.ffmpegPath, "ffmpeg is not installed: make video-deps")
        for (index, playlist) in Self.playlists(in: folder).enumerated() {
            let path = folder.appendingPathComponent("upload\(index).mp4").path
            try Data(playlist.text.utf8).write(to: URL(fileURLWithPath: path))
            if playlist.leaks {
                // ffmpeg without the restrictions: it probes, follows the playlist and makes a JPEG.
                let jpeg = folder.appendingPathComponent("naive\(index).jpg").path
                let naive = try await runTool([
                    ffmpeg, "-nostdin", "-loglevel", "error", "-i", path, "-frames:v", "1", jpeg,
                ])
                #expect(naive.status == 0 && FileManager.default.fileExists(atPath: jpeg), "\(playlist.name)")
            }
            for container in VideoPoster.Container.allCases {
                let detail = await Self.failure { try await VideoPoster.poster(ofFileAt: path, container: container) }
                #expect(detail?.hasPrefix("ffmpeg exited with status") == true, "\(playlist.name): \(detail ?? "")")
            }
        }
    }

    @Test(
        "stored content types map to the demuxer that reads them, and others to none",
        arguments: [
            ("video/mp4", "mov"), ("Video/MP4; codecs=avc1", "mov"), ("video/quicktime", "mov"),
            ("video/webm", "matroska"), ("video/x-matroska", "matroska"), ("audio/mp4", nil), ("audio/webm", nil),
            ("video/ogg", nil), ("image/jpeg", nil), ("application/octet-stream", nil), ("video/mp4\u{0B}", nil),
        ] as [(String, String?)]
    )
    func containers(contentType: String, demuxer: String?) {
        #expect(VideoPoster.Container(contentType: contentType)?.demuxer == demuxer)
    }
}
