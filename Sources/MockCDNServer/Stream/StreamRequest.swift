import Hummingbird

/// What Stream's routes read alike: the channel a path names, in Stream's envelope when it is wrong.
enum StreamRequest {
    /// `type:id`, as Stream names a channel (its cid).
    static func channel(_ context: AppRequestContext) throws -> String {
        let type = try context.parameters.require("type")
        let id = try context.parameters.require("id")
        guard type.count <= 64, id.count <= 64, !type.contains(":"), !id.contains(":") else {
            throw StreamAPIError.input("channel type and id must be at most 64 characters without ':'")
        }
        return type + ":" + id
    }
}

/// Stream's answer when there is nothing else to say: how long the request took.
struct DurationResponse: ResponseEncodable {
    let duration: String
}
