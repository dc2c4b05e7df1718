import MockCDNCore
import NIOCore

private let limits = XMLReader.Limits(maximumBytes: 1 << 20, maximumDepth: 8, maximumElements: 1_000)

/// Input: a document, as S3's request bodies come. `XMLReader` must refuse it or read it without crashing, and
/// what it reads must keep to the limits (depth, elements) and read the same a second time.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let body = ByteBuffer(bytes: UnsafeRawBufferPointer(start: start, count: count))
    guard let tree = try? XMLReader.parse(body, limits: limits) else { return 0 }
    var elements = 0
    func walk(_ element: XMLTree, depth: Int) {
        precondition(depth <= limits.maximumDepth, "an element deeper than the limit was read")
        elements += 1
        for child in element.children { walk(child, depth: depth + 1) }
    }
    walk(tree, depth: 1)
    precondition(elements <= limits.maximumElements, "more elements than the limit were read")
    precondition((try? XMLReader.parse(body, limits: limits)) == tree, "a second read differs")
    return 0
}
