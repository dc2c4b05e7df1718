import MockCDNCore

private let credentials = SigV4Credentials(
    accessKeyID: "demo-key",
    secretAccessKey: "demo-secret-for-local-testing-only",
    region: "us"
)

/// Input: a query string. The verifier must refuse (or accept) it without crashing, and never accept one
/// that was not signed with the credentials.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSigV4(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = UnsafeRawBufferPointer(start: start, count: count)
    let items = text.split(separator: UInt8(ascii: "&")).prefix(100).map { pair -> (name: String, value: String) in
        let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
        let name = PercentEncoding.decode(parts[0]) ?? String(decoding: parts[0], as: UTF8.self)
        let value =
            parts.count > 1 ? (PercentEncoding.decode(parts[1]) ?? String(decoding: parts[1], as: UTF8.self)) : ""
        return (name, value)
    }
    _ = try? SigV4.verify(
        query: items,
        method: "GET",
        path: "/demo/a b.png",
        header: { $0 == "host" ? "127.0.0.1:8080" : nil },
        credentials: credentials,
        now: 1_795_268_845
    )
    if let date = items.first(where: { $0.name == "X-Amz-Date" })?.value, let unix = AmzDate.parseCompact(date) {
        precondition(AmzDate.compact(unix) == date, "X-Amz-Date does not round trip")
    }
    return 0
}
