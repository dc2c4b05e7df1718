import HTTPTypes
import Hummingbird
import MockCDNCore

/// What marks the console's own reads (its thumbnails): a header holding a random token of this process,
/// which only the console's listing (`GET /_mockcdn/objects`, behind the admin guard) hands out.
///
/// A marked request is answered as any other, but it is no request of the app under test: the journal, the
/// metrics and the faults pass it by, so that opening the console changes nothing that verify, the coverage
/// report or an armed fault sees. The token is random, so a client does not hide a request by accident.
enum ConsoleMark {
    /// The header the console sends its token in.
    static let header = HTTPField.Name("x-mockcdn-console")!

    /// This process's token: 16 random bytes, hexadecimal.
    static let token = SecureBytes.random(count: 16).hexString

    /// Whether `fields` carry this process's token.
    ///
    /// - Parameter fields: a request's header fields.
    /// - Returns: true for the console's own request.
    static func marks(_ fields: HTTPFields) -> Bool {
        guard let value = fields[Self.header] else { return false }
        return SecureBytes.constantTimeEqual(Array(value.utf8), Array(Self.token.utf8))
    }

    /// Whether the journal, the metrics and the faults pass `request` by: a control route (by the route noted
    /// for it), or the console's own read. The three observers ask it alike, on both paths.
    ///
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context, the route noted.
    /// - Returns: true when the request is none of the app under test.
    static func isUnobserved(_ request: Request, context: AppRequestContext) -> Bool {
        TestControl.isControl(route: context.notes.route) || Self.marks(request.headers)
    }
}
