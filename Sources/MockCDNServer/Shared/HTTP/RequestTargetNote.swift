import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// Keeps the host an absolute-form request target names (`GET http://host:port/path HTTP/1.1`, the form a
/// proxy is sent), which the HTTP types leave out: the codec after this handler keeps only the target's path
/// and takes the authority from `Host`. Such a target's `scheme://authority` goes on as the internal header
/// `x-mockcdn-internal-request-target`, so that a route that cares which host was asked for (the control
/// routes' `AuthorityCheck`) can see it; a client's own header of that name is removed first. One per HTTP/1
/// connection, before the codec; an origin-form target (`/path`) passes untouched.
final class RequestTargetNote: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// The internal header's name, as NIO and HTTP types both spell it.
    static let headerName = "x-mockcdn-internal-request-target"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = self.unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let originForm = head.uri.utf8.first == UInt8(ascii: "/") || head.uri == "*"
        // Every request asks: a first byte and a scan of the names, and the head is copied only when it changes.
        guard !originForm || head.headers.contains(name: Self.headerName) else {
            context.fireChannelRead(data)
            return
        }
        head.headers.remove(name: Self.headerName)
        if !originForm { head.headers.add(name: Self.headerName, value: Self.schemeAndAuthority(of: head.uri)) }
        context.fireChannelRead(self.wrapInboundOut(.head(head)))
    }

    /// `scheme://authority` of an absolute-form target; the whole target when it has no `://` (an
    /// authority-form target, or none that HTTP knows), which then names no host a check accepts.
    static func schemeAndAuthority(of target: String) -> String {
        guard let separator = target.range(of: "://") else { return target }
        let authorityEnd =
            target[separator.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? target.endIndex
        return String(target[..<authorityEnd])
    }
}

extension HTTPField.Name {
    /// `RequestTargetNote`'s internal header: the `scheme://authority` of an absolute-form request target.
    static let requestTarget = HTTPField.Name(RequestTargetNote.headerName)!
}
