import Hummingbird

/// `POST|GET|DELETE /_mockcdn/faults`, `DELETE /_mockcdn/faults/{id}`.
struct FaultsController {
    let faults: FaultInjector

    struct NewRule: Decodable {
        var match: FaultInjector.Match?
        var times: Int?
        var probability: Double?
        var action: FaultInjector.Action?
    }

    /// Every member a rule may have: a misspelt one is refused rather than read as absent (a `match`
    /// without its `method` would catch every request).
    static let shape = MemberShape.object([
        "match": .object(["method": .value, "path": .value, "query": .value, "scope": .value]),
        "times": .value,
        "probability": .value,
        "action": .object([
            "status": .value, "body": .value, "delay_ms": .value, "throttle_bytes_per_sec": .value,
            "reset_after_bytes": .value, "truncate_after_bytes": .value, "drop": .value,
        ]),
    ])

    struct Created: ResponseEncodable {
        let id: String
    }

    struct Listing: ResponseEncodable {
        let faults: [FaultInjector.Rule]
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.post("faults") { request, context in
            let body = try await request.decodeJSONBody(NewRule.self, shape: Self.shape)
            guard let action = body.action, action != FaultInjector.Action() else {
                throw HTTPError(
                    .badRequest,
                    message: "action must set status, body, delay_ms, throttle_bytes_per_sec, reset_after_bytes, "
                        + "truncate_after_bytes or drop"
                )
            }
            let id = try self.faults.add(
                match: body.match ?? .init(),
                times: body.times,
                probability: body.probability,
                action: action
            )
            return EditedResponse(status: .created, response: Created(id: id))
        }
        group.get("faults") { _, _ in
            Listing(faults: self.faults.rules)
        }
        group.delete("faults") { _, _ in
            self.faults.clear()
            return Response(status: .noContent)
        }
        group.delete("faults/:id") { _, context in
            let id = try context.parameters.require("id")
            guard self.faults.remove(id: id) else {
                throw HTTPError(.notFound, message: "no fault rule \(id.prefix(32))")
            }
            return Response(status: .noContent)
        }
    }
}
