import Hummingbird
import MockCDNCore
import MockCDNS3

/// `GET /_mockcdn/health`: 200 once the server listens and its fixtures are loaded (the ready signal), with
/// this instance's id and its store's kind. With an S3 store it also asks the bucket (within 2 s): `degraded`
/// and the reason when the bucket does not answer, still with 200, since the process itself is up and answers
/// 503 to reads and uploads until the store is back.
struct HealthController {
    let store: any ObjectStore
    let instance: String

    struct Status: ResponseEncodable {
        let status: String
        let instance: String
        let store: String
        var reason: String? = nil
    }

    func addRoutes(to group: some RouterMethods<AppRequestContext>) {
        group.get("health") { _, _ in await self.status() }
    }

    func status() async -> Status {
        guard let s3 = self.store as? S3ObjectStore else {
            return Status(
                status: "ok",
                instance: self.instance,
                store: self.store is DiskObjectStore ? "disk" : "memory"
            )
        }
        do {
            try await s3.probe()
            return Status(status: "ok", instance: self.instance, store: "s3")
        } catch let failure as S3Client.Failure {
            return Status(
                status: "degraded",
                instance: self.instance,
                store: "s3",
                reason: "S3 answered \(failure.code)"
            )
        } catch {
            return Status(status: "degraded", instance: self.instance, store: "s3", reason: "S3 does not answer")
        }
    }
}
