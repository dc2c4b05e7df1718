import Foundation
import MockCDNCore
import MockCDNTestImages
import NIOCore
import Testing

@Suite("Image transforms")
struct ImageTransformTests {
    struct Source: Sendable, CustomTestStringConvertible {
        let name: String
        let width: Int
        let height: Int
        let vertical: Bool
        var testDescription: String { self.name }
    }

    /// Landscape and square sources carry side-by-side bands, the portrait one stacked bands, so every
    /// crop anchor keeps a different pair of colours.
    static let sources: [Source] = [
        .init(name: "landscape 400x200", width: 400, height: 200, vertical: true),
        .init(name: "portrait 200x400", width: 200, height: 400, vertical: false),
        .init(name: "square 300x300", width: 300, height: 300, vertical: true),
        .init(name: "smaller than the box, 60x40", width: 60, height: 40, vertical: true),
    ]

    /// Uploads `data` as an image and returns its signed link.
    static func uploadImage(_ server: DiskServer, _ data: Data, name: String, type: String) async throws -> String {
        let reply = try await server.upload(
            "/channels/messaging/general/image",
            parts: [.file(data, name: name, type: type)]
        )
        try #require(reply.status == 201, "\(name): \(reply.text)")
        return try #require(reply.json["file"] as? String)
    }

    /// What w=100&h=100 must give for each mode, by the contract's geometry.
    static func expectedSize(_ source: Source, _ resize: ImageTransform.Resize) -> (Int, Int) {
        switch resize {
        case .clip:
            let scale = min(1, min(100 / Double(source.width), 100 / Double(source.height)))
            return (Int((Double(source.width) * scale).rounded()), Int((Double(source.height) * scale).rounded()))
        case .crop, .scale, .fill: return (100, 100)
        }
    }

    /// The band a cover-and-cut output pixel comes from, or nil near a band edge (resampling blurs edges).
    static func coverBand(_ source: Source, anchor: ImageTransform.Crop, outputX: Int, outputY: Int) -> Int? {
        let scale = max(100 / Double(source.width), 100 / Double(source.height))
        let coverWidth = max(100, Int((Double(source.width) * scale).rounded()))
        let coverHeight = max(100, Int((Double(source.height) * scale).rounded()))
        let left = anchor == .left ? 0 : anchor == .right ? coverWidth - 100 : (coverWidth - 100) / 2
        let top = anchor == .top ? 0 : anchor == .bottom ? coverHeight - 100 : (coverHeight - 100) / 2
        let position =
            source.vertical
            ? (Double(outputX + left) + 0.5) * Double(source.width) / Double(coverWidth)
            : (Double(outputY + top) + 0.5) * Double(source.height) / Double(coverHeight)
        let bandSize = Double(source.vertical ? source.width : source.height) / 4
        let band = Int(position / bandSize)
        let distance = min(position - Double(band) * bandSize, Double(band + 1) * bandSize - position)
        return distance < 3 ? nil : band
    }

    static func close(_ pixel: ArraySlice<UInt8>, _ colour: [UInt8]) -> Bool {
        zip(pixel, colour).allSatisfy { abs(Int($0) - Int($1)) <= 48 }
    }

    @Test(
        "geometry: every mode x anchor on landscape, portrait, square and smaller-than-box sources",
        arguments: sources
    )
    func geometry(_ source: Source) async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadImage(
                server,
                Media.bands(width: source.width, height: source.height, vertical: source.vertical),
                name: "bands.png",
                type: "image/png"
            )
            for resize in ImageTransform.Resize.allCases {
                for anchor in ImageTransform.Crop.allCases {
                    let label = "\(source.name) resize=\(resize.rawValue) crop=\(anchor.rawValue)"
                    let reply = try await HTTP.get(
                        link + "&w=100&h=100&resize=\(resize.rawValue)&crop=\(anchor.rawValue)"
                    )
                    try #require(reply.status == 200, "\(label): \(reply.text)")
                    #expect(reply.header("content-type") == "image/png", "\(label)")
                    let pixels = try TestImages.decode(ByteBuffer(bytes: reply.body))
                    let (width, height) = Self.expectedSize(source, resize)
                    #expect(
                        pixels.width == width && pixels.height == height,
                        "\(label): \(pixels.width)x\(pixels.height)"
                    )
                    switch resize {
                    case .crop:
                        // The kept region is the anchored one: sample across the output.
                        for step in stride(from: 5, to: 100, by: 10) {
                            let (x, y) = source.vertical ? (step, 50) : (50, step)
                            guard let band = Self.coverBand(source, anchor: anchor, outputX: x, outputY: y) else {
                                continue
                            }
                            #expect(
                                Self.close(pixels[x, y], Media.bandColours[band]),
                                "\(label) at \(x),\(y): \(Array(pixels[x, y])) is not band \(band)"
                            )
                        }
                    case .fill where source.width != source.height:
                        // Padding is black, content is not.
                        let fitted = Self.expectedSize(source, .clip)
                        let (padX, padY) = fitted.0 < 100 ? (1, 50) : (50, 1)
                        #expect(
                            pixels[padX, padY].allSatisfy { $0 < 16 },
                            "\(label): padding \(Array(pixels[padX, padY]))"
                        )
                        #expect(pixels[50, 50].contains { $0 > 100 }, "\(label): content")
                    case .scale:
                        // Aspect ignored: the first and last bands reach the output's edges.
                        let last = source.vertical ? pixels[97, 50] : pixels[50, 97]
                        #expect(Self.close(pixels[2, 2], Media.bandColours[0]), "\(label)")
                        #expect(Self.close(last, Media.bandColours[3]), "\(label)")
                    default: break
                    }
                }
            }
        }
    }

    @Test("a missing or * side follows the aspect ratio; ro is ignored; malformed parameters are 400 naming them")
    func parameters() async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadImage(
                server,
                Media.bands(width: 400, height: 200),
                name: "l.png",
                type: "image/png"
            )
            let sizes: [(String, Int, Int)] = [
                ("w=100", 100, 50), ("w=100&h=*", 100, 50), ("h=50", 100, 50), ("w=*&h=50", 100, 50),
                ("w=100&resize=scale", 100, 50), ("w=100&resize=crop&crop=left", 100, 50),
                ("w=100&h=100&ro=0", 100, 50), ("w=800&resize=clip", 400, 200), ("w=800&resize=scale", 800, 400),
            ]
            for (query, width, height) in sizes {
                let reply = try await HTTP.get(link + "&" + query)
                #expect(reply.status == 200, "\(query): \(reply.text)")
                #expect(
                    reply.image?.width == width && reply.image?.height == height,
                    "\(query): \(String(describing: reply.image))"
                )
            }
            let original = try await HTTP.get(link + "&ro=0")
            #expect(original.body == Media.bands(width: 400, height: 200))
            let bad: [(String, String)] = [
                ("w=0", "w must be"), ("w=4097", "w must be"), ("h=-1", "h must be"), ("w=1.5", "w must be"),
                ("w=abc", "w must be"), ("h=", "h must be"), ("resize=zoom", "resize must be one of"),
                ("w=10&crop=middle", "crop must be one of"), ("h=4096&resize=scale", "each side must be at most 4096"),
            ]
            for (query, message) in bad {
                let reply = try await HTTP.get(link + "&" + query)
                #expect(reply.status == 400, "\(query)")
                #expect(reply.xmlError?.code == "InvalidArgument", "\(query)")
                #expect(reply.xmlError?.message.contains(message) == true, "\(query): \(reply.text)")
            }
        }
    }

    @Test(
        "formats: JPEG, PNG, WebP keep theirs; animated GIF stays animated; HEIC becomes JPEG, BMP PNG; SVG untouched"
    )
    func formats() async throws {
        try await DiskServer.run { server in
            let heic = try Data(contentsOf: Fixture.url("media/sample.heic"))
            let svg = Data(
                #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#
                    .utf8
            )
            let cases: [(String, Data, String, String, Int)] = [
                ("j.jpg", Media.bands(width: 200, height: 100, format: .jpeg), "image/jpeg", "image/jpeg", 1),
                ("p.png", Media.bands(width: 200, height: 100), "image/png", "image/png", 1),
                ("w.webp", Media.bands(width: 200, height: 100, format: .webp), "image/webp", "image/webp", 1),
                ("a.gif", Media.bands(width: 200, height: 100, format: .gif, frames: 3), "image/gif", "image/gif", 3),
                ("h.heic", heic, "image/heic", "image/jpeg", 1),
                ("b.bmp", Media.bmp(width: 200, height: 100), "image/bmp", "image/png", 1),
            ]
            for (name, data, type, output, frames) in cases {
                let link = try await Self.uploadImage(server, data, name: name, type: type)
                let reply = try await HTTP.get(link + "&w=50&h=*&resize=clip")
                #expect(reply.status == 200, "\(name): \(reply.text)")
                #expect(reply.header("content-type") == output, "\(name)")
                let header = try #require(reply.image, "\(name)")
                #expect(header.width == 50, "\(name)")
                #expect(header.frames == frames, "\(name): \(header.frames) frames")
            }
            let svgLink = try await Self.uploadImage(server, svg, name: "s.svg", type: "image/svg+xml")
            let svgReply = try await HTTP.get(svgLink + "&w=50&h=50&resize=crop")
            #expect(svgReply.status == 200)
            #expect(svgReply.body == svg)
            #expect(svgReply.header("content-type") == "image/svg+xml")

            let text = try await server.upload(
                "/channels/messaging/general/file",
                parts: [.file(Media.text, name: "t.txt", type: "text/plain")]
            )
            let textLink = try #require(text.json["file"] as? String)
            let refused = try await HTTP.get(textLink + "&w=50")
            #expect(refused.status == 400)
            #expect(refused.xmlError?.code == "InvalidArgument")
            #expect(refused.xmlError?.message.contains("text/plain") == true)
        }
    }

    /// An app with a small pixel bound, so animations over it stay small to encode.
    static let tight = AppConfiguration(
        appID: "tight",
        apiKey: "tight-key",
        apiSecret: "tight-secret-at-least-32-bytes-long!",
        region: "us",
        maximumSourcePixels: 100_000
    )

    @Test("pixel bound: 4000x4000 resizes, 4100x4100 is 422 naming both numbers, its original stays readable")
    func pixelBound() async throws {
        try await DiskServer.run { server in
            let fits = Media.bands(width: 4000, height: 4000, format: .jpeg)
            let over = Media.bands(width: 4100, height: 4100, format: .jpeg)
            let fitsLink = try await Self.uploadImage(server, fits, name: "fits.jpg", type: "image/jpeg")
            let overLink = try await Self.uploadImage(server, over, name: "over.jpg", type: "image/jpeg")
            let resized = try await HTTP.get(fitsLink + "&w=400&h=400")
            #expect(resized.status == 200)
            #expect(resized.image?.width == 400 && resized.image?.height == 400)
            let refused = try await HTTP.get(overLink + "&w=400&h=400")
            #expect(refused.status == 422)
            #expect(refused.xmlError?.code == "ImageTooLarge")
            let message = refused.xmlError?.message ?? ""
            #expect(message.contains("16810000") && message.contains("16800000"), "\(message)")
            let original = try await HTTP.get(overLink)
            #expect(original.status == 200)
            #expect(original.body == over)
        }
    }

    @Test("pixel bound counts frames: an animation over it is 422 though one frame would pass")
    func pixelBoundFrames() async throws {
        try await DiskServer.run(apps: [.demo, Self.tight]) { server in
            func upload(_ data: Data) async throws -> String {
                let token = JWT.sign(["user_id": "alice"], secret: Self.tight.apiSecret)
                let reply = try await server.upload(
                    "/api/v2/uploads/image",
                    token: token,
                    apiKey: Self.tight.apiKey,
                    parts: [.file(data, name: "a.gif", type: "image/gif")]
                )
                try #require(reply.status == 201, "\(reply.text)")
                return try #require(reply.json["file"] as? String)
            }
            // 100x100 is 10,000 pixels a frame: ten frames are at the bound, eleven over it.
            let atBound = try await upload(Media.bands(width: 100, height: 100, format: .gif, frames: 10))
            let overBound = try await upload(Media.bands(width: 100, height: 100, format: .gif, frames: 11))
            let single = try await upload(Media.bands(width: 100, height: 100, format: .gif))
            #expect(try await HTTP.get(atBound + "&w=50").status == 200)
            #expect(try await HTTP.get(single + "&w=50").status == 200)
            let refused = try await HTTP.get(overBound + "&w=50")
            #expect(refused.status == 422)
            #expect(refused.xmlError?.message.contains("110000") == true, "\(refused.text)")
            #expect(refused.xmlError?.message.contains("11 frames") == true, "\(refused.text)")
        }
    }

    @Test("crafted headers claiming 60000x60000 are refused from the header")
    func craftedHeaders() async throws {
        try await DiskServer.run { server in
            for (name, data, type) in [
                ("bomb.png", Media.craftedPNG(width: 60000, height: 60000), "image/png"),
                ("bomb.jpg", Media.craftedJPEG(width: 60000, height: 60000), "image/jpeg"),
            ] {
                let link = try await Self.uploadImage(server, data, name: name, type: type)
                let refused = try await HTTP.get(link + "&w=100&h=100")
                #expect(refused.status == 422, "\(name): \(refused.text)")
                #expect(refused.xmlError?.message.contains("3600000000") == true, "\(name): \(refused.text)")
            }
        }
    }

    @Test("variants: same request, same bytes and ETag; conditional and range work; delete drops them")
    func cache() async throws {
        try await DiskServer.run { server in
            let link = try await Self.uploadImage(
                server,
                Media.bands(width: 400, height: 200),
                name: "c.png",
                type: "image/png"
            )
            let variantLink = link + "&w=100&h=100&resize=crop&crop=left"
            let first = try await HTTP.get(variantLink)
            let second = try await HTTP.get(variantLink)
            #expect(first.status == 200)
            #expect(first.body == second.body)
            let etag = try #require(first.header("etag"))
            #expect(second.header("etag") == etag)
            let original = try await HTTP.get(link)
            #expect(original.header("etag") != etag)
            // Parameters in another order and with explicit defaults name the same variant.
            let reordered = try await HTTP.get(link + "&crop=left&resize=crop&h=100&w=100&ro=0")
            #expect(reordered.header("etag") == etag)
            #expect(try await HTTP.get(variantLink, headers: ["If-None-Match": etag]).status == 304)
            let range = try await HTTP.get(variantLink, headers: ["Range": "bytes=0-7"])
            #expect(range.status == 206)
            #expect(range.body == first.body.prefix(8))

            let variants = server.folder.appendingPathComponent("variants")
            let stored = try FileManager.default.contentsOfDirectory(atPath: variants.path)
            #expect(stored.count == 1, "one object's variants: \(stored)")
            let delete = try await HTTP.send(
                "DELETE",
                server.url("/channels/messaging/general/image?api_key=demo-key&url=" + PercentEncoding.encode(link)),
                headers: Tokens.headers(Tokens.user("alice"))
            )
            #expect(delete.status == 200)
            #expect(try FileManager.default.contentsOfDirectory(atPath: variants.path).isEmpty)
            #expect(try await HTTP.get(variantLink).status == 404)
        }
    }

    @Test("uploads record width, height and frames; upload_sizes are validated and answered with links")
    func uploadMetadata() async throws {
        try await DiskServer.run { server in
            let sizes = #"[{"width":100,"height":100,"resize":"crop","crop":"top"},{"width":50}]"#
            let reply = try await server.upload(
                "/channels/messaging/general/image",
                parts: [
                    .file(
                        Media.bands(width: 200, height: 100, format: .gif, frames: 2),
                        name: "m.gif",
                        type: "image/gif"
                    ),
                    .field("upload_sizes", sizes),
                ]
            )
            #expect(reply.status == 201, "\(reply.text)")
            let answered = try #require(reply.json["upload_sizes"] as? [[String: Any]])
            #expect(answered.count == 2)
            let first = try #require(answered.first?["url"] as? String)
            #expect(first.hasSuffix("&w=100&h=100&resize=crop&crop=top"))
            #expect(try await HTTP.get(first).image?.width == 100)
            let second = try #require(answered.last?["url"] as? String)
            #expect(try await HTTP.get(second).image?.height == 25)
            let thumb = try #require(reply.json["thumb_url"] as? String)
            let thumbnail = try await HTTP.get(thumb)
            #expect(thumbnail.image?.width == 150 && thumbnail.image?.height == 75)

            let metaFolder = server.folder.appendingPathComponent("meta")
            let metaFile = try #require(try FileManager.default.contentsOfDirectory(atPath: metaFolder.path).first)
            let meta = try JSONSerialization.jsonObject(
                with: Data(contentsOf: metaFolder.appendingPathComponent(metaFile))
            )
            let record = (meta as? [String: Any])?["metadata"] as? [String: Any]
            let extras = record?["extras"] as? [String: String]
            #expect(
                extras?["width"] == "200" && extras?["height"] == "100" && extras?["frames"] == "2",
                "\(String(describing: extras))"
            )

            for bad in [
                #"[{"width":0,"height":10}]"#, #"[{"width":5000}]"#, #"[{"width":10,"resize":"zoom"}]"#,
                #"[{"width":10,"crop":"middle"}]"#, #"[{"resize":"clip"}]"#,
            ] {
                let refused = try await server.upload(
                    "/channels/messaging/general/image",
                    parts: [.file(Media.png, name: "x.png", type: "image/png"), .field("upload_sizes", bad)]
                )
                #expect(refused.status == 400, "\(bad): \(refused.text)")
                #expect(refused.streamCode == 4, "\(bad)")
                #expect(
                    (refused.json["message"] as? String)?.contains("upload_sizes[0]") == true,
                    "\(bad): \(refused.text)"
                )
            }
            #expect(try server.storedCount() == 1)
        }
    }
}

/// Files under `Fixtures/` in the repository.
enum Fixture {
    static func url(_ path: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(path)
    }
}
