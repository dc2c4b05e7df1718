import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The routes MockCDN registers, as `(method, path)` with Hummingbird's path syntax (`/{app}/**`): what a
/// test compares with openapi.yaml so that no route goes undocumented.
public enum RouteCatalog {
    /// Registers every route on a recorder (nothing listens) and returns them in registration order.
    ///
    /// - Throws: what building the services throws (libvips start-up).
    public static func routes() async throws -> [(method: String, path: String)] {
        let configuration = ServerConfiguration()
        let services = try await makeServices(configuration, logger: Logger(label: "mockcdn.routes"))
        let recorder = RouteRecorder()
        addSurfaces(to: recorder, services: services, configuration: configuration)
        return recorder.log.routes
    }

    /// The first path segments no app id may take (they belong to other routes).
    public static var reservedPrefixes: Set<String> { routePrefixes }
}

/// A `RouterMethods` that only writes down what is registered on it (groups included: they register on
/// their parent with the full path).
struct RouteRecorder: RouterMethods {
    typealias Context = AppRequestContext

    /// Shared by every copy of the recorder (groups hold one).
    final class Log: Sendable {
        private let entries = Mutex<[(method: String, path: String)]>([])

        func append(_ method: String, _ path: String) { self.entries.withLock { $0.append((method, path)) } }

        var routes: [(method: String, path: String)] { self.entries.withLock { $0 } }
    }

    let log = Log()

    @discardableResult
    func on<Responder: HTTPResponder>(
        _ path: RouterPath,
        method: HTTPRequest.Method,
        responder: Responder
    ) -> RouteRecorder where Responder.Context == AppRequestContext {
        self.log.append(method.rawValue, path.description)
        return self
    }

    func add(middleware: any MiddlewareProtocol<Request, Response, AppRequestContext>) -> RouteRecorder { self }
}
