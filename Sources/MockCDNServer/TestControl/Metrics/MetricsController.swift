import Hummingbird

/// `GET /metrics`: Prometheus text exposition.
struct MetricsController {
    let metrics: ServerMetrics

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("metrics") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.text))
            )
        }
    }
}
