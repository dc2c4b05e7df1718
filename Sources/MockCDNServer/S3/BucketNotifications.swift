import Foundation
import Hummingbird
import MockCDNCore
import NIOCore

/// S3's `PutBucketNotificationConfiguration` and `GetBucketNotificationConfiguration` (`PUT|GET
/// /{app}?notification`), in S3's XML, on the app's notification targets (`ObjectEvents`): its queues
/// (`QueueConfiguration`), topics (`TopicConfiguration`) and Lambda functions (`CloudFunctionConfiguration`,
/// as the wire names `LambdaFunctionConfigurations`). A PUT replaces those and keeps the app's webhooks,
/// which S3's document cannot name; a GET shows them and not the webhooks.
struct BucketNotifications {
    let events: ObjectEvents

    /// The largest document read.
    static let maximumBodyBytes = 64 * 1024
    /// The bounds of the document: the body limit, and as many elements as 64 KiB can hold (`<a/>`).
    static let limits = XMLReader.Limits(
        maximumBytes: Self.maximumBodyBytes,
        maximumElements: Self.maximumBodyBytes / 4
    )

    /// The XML element of each kind of ARN target, and the element holding its ARN.
    static let kinds: [(element: String, arn: String)] = [
        ("QueueConfiguration", "Queue"), ("TopicConfiguration", "Topic"),
        ("CloudFunctionConfiguration", "CloudFunction"),
    ]

    /// The app's configuration as S3 answers `GetBucketNotificationConfiguration`.
    ///
    /// - Parameter app: the app.
    /// - Returns: 200 with the `NotificationConfiguration` document.
    func get(_ app: MediaApp) -> Response {
        let configuration = self.events.configuration(of: app.id)
        var xml = S3XML()
        xml.element("NotificationConfiguration", root: true) { xml in
            for (kind, targets) in zip(Self.kinds, [configuration.queues, configuration.topics, configuration.lambdas])
            {
                for target in targets {
                    xml.element(kind.element) { xml in
                        xml.element("Id", target.id ?? "")
                        xml.element(kind.arn, target.arn ?? "")
                        for event in target.events { xml.element("Event", event) }
                        let rules = [("Prefix", target.prefix), ("Suffix", target.suffix)].compactMap { name, value in
                            value.map { (name, $0) }
                        }
                        if !rules.isEmpty {
                            xml.element("Filter") { xml in
                                xml.element("S3Key") { xml in
                                    for (name, value) in rules {
                                        xml.element("FilterRule") { xml in
                                            xml.element("Name", name)
                                            xml.element("Value", value)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return xml.response()
    }

    /// Sets the app's ARN targets from a `NotificationConfiguration` document.
    ///
    /// - Parameters:
    ///   - body: the request body, read and authenticated.
    ///   - app: the app.
    /// - Returns: 200 with no body, as S3 answers.
    /// - Throws: 400 `MalformedXML` for a document that is not one, 400 `InvalidArgument` for a target S3
    ///   would refuse (an unknown event, a filter rule other than prefix or suffix, a missing ARN).
    func put(_ body: ByteBuffer, app: MediaApp) async throws -> Response {
        let root = try await S3XML.tree(of: body, root: "NotificationConfiguration", limits: Self.limits)
        var parsed: [[NotificationTarget]] = []
        for kind in Self.kinds {
            parsed.append(try root.children(named: kind.element).map { try Self.target($0, arn: kind.arn) })
        }
        do {
            try self.events.changeConfiguration(of: app.id) { configuration in
                configuration.queues = parsed[0]
                configuration.topics = parsed[1]
                configuration.lambdas = parsed[2]
            }
        } catch {
            throw Self.invalid(error.message)
        }
        return Response(status: .ok)
    }

    /// One configuration element's target: its `Id`, ARN, `Event`s and `Filter/S3Key/FilterRule`s.
    private static func target(_ element: XMLTree, arn name: String) throws -> NotificationTarget {
        let id = element.child(named: "Id")?.text
        guard let arn = element.child(named: name)?.text else {
            throw Self.invalid("a \(name) configuration needs its \(name) ARN")
        }
        var target = NotificationTarget(
            id: id?.isEmpty == false ? id : nil,
            arn: arn,
            events: element.children(named: "Event").map(\.text)
        )
        let rules = element.child(named: "Filter")?.child(named: "S3Key")?.children(named: "FilterRule") ?? []
        for rule in rules {
            guard let ruleName = rule.child(named: "Name")?.text, let value = rule.child(named: "Value")?.text else {
                throw S3Error.malformedXML
            }
            switch ruleName.lowercased() {
            case "prefix": target.prefix = value
            case "suffix": target.suffix = value
            default: throw Self.invalid("filter rule name must be either prefix or suffix")
            }
        }
        for event in target.events where !EventFilter.acceptedEvents.contains(event) {
            throw S3Error(
                status: .badRequest,
                code: "InvalidArgument",
                message: "The event is not supported for notifications",
                details: [("ArgumentName", "Event"), ("ArgumentValue", String(event.prefix(256)))]
            )
        }
        return target
    }

    /// S3's 400 `InvalidArgument` with `message`.
    private static func invalid(_ message: String) -> S3Error {
        S3Error(status: .badRequest, code: "InvalidArgument", message: message)
    }
}
