import Foundation
import Hummingbird
import NIOCore

// `BareHummingbird PORT FILE`: serves FILE's bytes from memory at GET /object on 127.0.0.1:PORT, with the
// framework's defaults, and prints one line once it listens.
let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]), let bytes = FileManager.default.contents(atPath: arguments[2])
else {
    print("usage: BareHummingbird PORT FILE")
    exit(2)
}
let body = ByteBuffer(bytes: bytes)
let router = Router()
router.get("object") { _, _ in
    Response(
        status: .ok,
        headers: [.contentType: "application/octet-stream"],
        body: ResponseBody(byteBuffer: body)
    )
}
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    onServerRunning: { _ in print("ready") }
)
try await app.runService()
