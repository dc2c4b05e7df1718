package dev.mockcdn;

import static dev.mockcdn.TestSupport.SAMPLE;
import static dev.mockcdn.TestSupport.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rest of the test-control contract against the run-wide server: upload events (long poll, notification
 * targets, webhook deliveries to a local receiver), vendor-shaped webhooks and the coverage report.
 */
class ContractApiTest {
    @RegisterExtension
    static final MockCDNExtension MOCKCDN = TestSupport.sharedServer();

    /** The default app's secret (the server's start-up line), which signs webhook bodies. */
    private static final String DEMO_SECRET = "demo-secret-for-local-testing-only";
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    @Test
    void anUploadIsLongPolledFilteredAndDeliveredToItsWebhook(MockCDN cdn) throws Exception {
        try (Receiver receiver = new Receiver(1)) {
            Map<String, Object> kept = cdn.setNotificationTargets("demo", Map.of(
                    "webhooks", List.of(Map.of("id", "thumbs", "url", receiver.url("/hooks/s3"),
                            "events", List.of("s3:ObjectCreated:*"), "prefix", "media/")),
                    "queues", List.of(Map.of("id", "pngs", "arn", "arn:aws:sqs:us-east-1:000000000000:pngs",
                            "events", List.of("s3:ObjectCreated:*"), "suffix", ".png"))));
            assertEquals(List.of("thumbs"), ids(kept, "webhooks"));
            assertEquals(List.of("pngs"), ids(kept, "queues"));
            assertEquals(kept, cdn.notificationTargets("demo"));

            // A reset queued the fixtures' deletes: wait only for what comes after them.
            String after = String.valueOf(cdn.events().get("last_id"));
            CompletableFuture<Map<String, Object>> poll =
                    CompletableFuture.supplyAsync(() -> cdn.events(after, 30, "demo", "thumbs"));
            awaitWaitingPoll(cdn, poll, after);
            String key = upload(cdn, "hello.txt", "hello\n");

            Map<String, Object> answer = poll.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            List<Map<String, Object>> events = list(answer.get("events"));
            assertEquals(1, events.size(), answer.toString());
            Map<String, Object> event = events.get(0);
            long id = ((Number) event.get("id")).longValue();
            assertTrue(id > Long.parseLong(after), answer.toString());
            assertEquals(id, ((Number) answer.get("last_id")).longValue());
            assertEquals("demo", event.get("app"));
            assertEquals(List.of("thumbs"), event.get("targets")); // not .png: the queue's filter left it out
            assertEquals(List.of(), event.get("arns"));
            Map<String, Object> record = map(event.get("record"));
            assertEquals("ObjectCreated:Put", record.get("eventName"));
            assertEquals("thumbs", map(record.get("s3")).get("configurationId"));
            assertEquals(key, map(map(record.get("s3")).get("object")).get("key"));
            // Without a target the queue holds it too, with no configurationId; the queue target passed nothing.
            Map<String, Object> unfiltered = list(cdn.events(after, null, null, null).get("events")).get(0);
            assertEquals("", map(map(unfiltered.get("record")).get("s3")).get("configurationId"));
            assertEquals(List.of(), cdn.events(after, null, "demo", "pngs").get("events"));

            // The webhook: {"Records":[record]}, signed with the app's secret, its delivery journaled.
            Received delivery = receiver.await().get(0);
            assertEquals("/hooks/s3", delivery.path());
            Map<String, Object> sent = map(Json.read(delivery.text()));
            assertEquals(record.get("s3"), map(list(sent.get("Records")).get(0)).get("s3"));
            assertEquals(hmac(delivery.body()), delivery.header("X-Signature"));
            assertEquals(String.valueOf(id), delivery.header("X-MockCDN-Event"));
            assertEquals("1", delivery.header("X-MockCDN-Attempt"));
            Map<String, Object> attempt = awaitAttempt(cdn, "demo", "thumbs");
            assertEquals(delivery.header("X-MockCDN-Delivery"), attempt.get("delivery"));
            assertEquals(List.of(id, "ObjectCreated:Put", key, 1, 200, "delivered"),
                    List.of(((Number) attempt.get("event_id")).longValue(), attempt.get("event_name"),
                            attempt.get("key"), attempt.get("attempt"), attempt.get("status"), attempt.get("outcome")));
            assertEquals(List.of(), cdn.deliveries().get("pending"));
            assertEquals(List.of(), cdn.deliveries("demo", "pngs").get("attempts"));
            assertEquals(1, list(cdn.deliveries().get("attempts")).size());
        }
    }

    @Test
    void targetsAreKeptUntilTheResetAndGivenIds(MockCDN cdn) {
        Map<String, Object> kept = cdn.setNotificationTargets("demo", Map.of("lambdas", List.of(
                Map.of("arn", "arn:aws:lambda:us-east-1:000000000000:function:thumbs",
                        "events", List.of("s3:ObjectRemoved:*")))));
        assertEquals(List.of("notification-1"), ids(kept, "lambdas"));
        assertEquals(List.of("notification-1"), ids(cdn.notificationTargets("demo"), "lambdas"));
        cdn.reset();
        Map<String, Object> startup = cdn.notificationTargets("demo");
        for (String kind : List.of("webhooks", "queues", "topics", "lambdas")) {
            assertEquals(List.of(), startup.get(kind), kind);
        }
        assertEquals(Map.of("attempts", List.of(), "pending", List.of()), cdn.deliveries());
    }

    @Test
    void aStreamMessageNewIsSentSignedAndJournaled(MockCDN cdn) throws Exception {
        try (Receiver receiver = new Receiver(1)) {
            // The backend's own set-up: Stream's PATCH /app with a server token.
            HttpRequest patch = HttpRequest.newBuilder(URI.create(cdn.url() + "/app?api_key=demo-key"))
                    .header("Authorization", cdn.token("server", null, null, null))
                    .header("Stream-Auth-Type", "jwt")
                    .header("Content-Type", "application/json")
                    .method("PATCH", HttpRequest.BodyPublishers.ofString(
                            Json.write(Map.of("webhook_url", receiver.url("/stream")))))
                    .build();
            TestSupport.Answer configured = TestSupport.send(patch);
            assertEquals(201, configured.status(), configured.text());

            Map<String, Object> answer = cdn.sendWebhook(Map.of("vendor", "stream", "event", "message.new",
                    "keys", List.of("fixtures/sample.jpg"),
                    "message", Map.of("text", "look", "user", "alice", "channel", "messaging:general")));
            List<Map<String, Object>> deliveries = list(answer.get("deliveries"));
            assertEquals(1, deliveries.size(), answer.toString());
            assertEquals("webhook_url", deliveries.get(0).get("target"));
            assertEquals(receiver.url("/stream"), deliveries.get(0).get("url"));
            Map<String, Object> payload = list(answer.get("payloads")).get(0);
            assertEquals("message.new", payload.get("type"));
            assertEquals("messaging:general", payload.get("cid"));
            Map<String, Object> attachment = list(map(payload.get("message")).get("attachments")).get(0);
            assertTrue(String.valueOf(attachment.get("image_url")).startsWith(cdn.url() + "/demo/fixtures/sample.jpg?"),
                    attachment.toString());

            Received delivery = receiver.await().get(0);
            assertEquals(payload, Json.read(delivery.text())); // the payload as answered is the one sent
            assertEquals(hmac(delivery.body()), delivery.header("X-Signature"));
            assertEquals(deliveries.get(0).get("webhook_id"), delivery.header("X-Webhook-Id"));
            assertEquals("demo-key", delivery.header("X-Api-Key"));
            Map<String, Object> attempt = awaitAttempt(cdn, "demo", "webhook_url");
            assertEquals(deliveries.get(0).get("delivery"), attempt.get("delivery"));
            assertNull(attempt.get("event_id"));
            assertEquals(List.of("message.new", "fixtures/sample.jpg", 200, "delivered"),
                    List.of(attempt.get("event_name"), attempt.get("key"), attempt.get("status"),
                            attempt.get("outcome")));
        }
    }

    @Test
    void reportCountsWhatRanAndMergesTwo(MockCDN cdn) {
        String fat = cdn.fileAccessToken("alice", 600);
        assertEquals(200, get(cdn.url() + SAMPLE, Map.of("fat", fat)).status());
        assertEquals(401, get(cdn.url() + SAMPLE, Map.of()).status());
        List<Map<String, Object>> journal = cdn.requests();

        Map<String, Object> first = cdn.report();
        assertEquals(2, first.get("entries"));
        assertNull(first.get("since"));
        assertEquals(List.of(true, 1, journal.get(0).get("id")), countOf(first, "media.status.200"));
        assertEquals(List.of(true, 1, journal.get(1).get("id")), countOf(first, "media.refused.missing"));
        assertEquals(Arrays.asList(false, 0, null), countOf(first, "stream.upload.image"));
        long covered = rows(first).stream().filter(row -> Boolean.TRUE.equals(row.get("covered"))).count();
        assertEquals(covered, ((Number) first.get("rows_covered")).longValue());
        assertEquals(rows(first).size(), first.get("rows_total"));

        String second = String.valueOf(journal.get(1).get("id"));
        Map<String, Object> tail = cdn.report(second);
        assertEquals(Arrays.asList(second, 1), Arrays.asList(tail.get("since"), tail.get("entries")));
        assertEquals(Arrays.asList(false, 0, null), countOf(tail, "media.status.200"));

        String markdown = cdn.reportText("markdown", null);
        assertTrue(markdown.startsWith("# MockCDN contract coverage\n"), markdown);
        assertTrue(markdown.contains(covered + " of " + first.get("rows_total") + " behaviours covered"), markdown);
        assertTrue(markdown.contains("from 2 journal entries"), markdown);
        assertTrue(markdown.contains("| ✅ | `media.status.200` |"), markdown);
        String junit = cdn.reportText("junit", since(journal.get(0)));
        assertTrue(junit.startsWith("<?xml"), junit);
        assertTrue(junit.contains("name=\"media.status.200\""), junit);
        assertEquals(first, parsedJson(cdn.reportText(null, null)));

        // A reset empties the journal: a session fetches a report before it and adds them up at the end.
        cdn.reset();
        assertEquals(200, get(cdn.url() + SAMPLE, Map.of("fat", cdn.fileAccessToken("bob", 600))).status());
        Map<String, Object> later = cdn.report();
        Map<String, Object> merged = cdn.mergeReports(List.of(first, later));
        assertEquals(3, merged.get("entries"));
        assertEquals(List.of(true, 2, journal.get(0).get("id")), countOf(merged, "media.status.200"));
        assertEquals(List.of(true, 1, journal.get(1).get("id")), countOf(merged, "media.refused.missing"));
        String mergedMarkdown = cdn.mergeReportsText(List.of(first, later), "markdown");
        assertTrue(mergedMarkdown.contains("from 3 journal entries"), mergedMarkdown);
        assertTrue(cdn.mergeReportsText(List.of(first, later), "junit").startsWith("<?xml"));
    }

    @Test
    void badInputsThrowWithTheServersStatus(MockCDN cdn) {
        assertRefused(404, "no app nosuch", () -> cdn.notificationTargets("nosuch"));
        assertRefused(404, "no app nosuch", () -> cdn.setNotificationTargets("nosuch", Map.of()));
        Map<String, Object> kept = cdn.setNotificationTargets("demo", Map.of("queues", List.of(
                Map.of("id", "index", "arn", "arn:aws:sqs:us-east-1:000000000000:index",
                        "events", List.of("s3:ObjectRemoved:*")))));
        assertRefused(400, "webhooks: url must be an http:// or https:// URL with a host",
                () -> cdn.setNotificationTargets("demo", Map.of("webhooks", List.of(
                        Map.of("url", "ftp://example.com/hooks", "events", List.of("s3:ObjectCreated:*"))))));
        assertRefused(400, "is MockCDN's own control route",
                () -> cdn.setNotificationTargets("demo", Map.of("webhooks", List.of(
                        Map.of("url", cdn.url() + "/_mockcdn/reset", "events", List.of("s3:ObjectCreated:*"))))));
        assertRefused(400, "unknown member webhook",
                () -> cdn.setNotificationTargets("demo", Map.of("webhook", List.of())));
        assertEquals(kept, cdn.notificationTargets("demo")); // nothing of a refused document is kept

        assertRefused(400, "wait must be 0...60 seconds", () -> cdn.events(null, 61, null, null));
        assertRefused(400, "after must be an event id", () -> cdn.events("-1", null, null, null));
        assertRefused(404, "no app nosuch", () -> cdn.events(null, 0, "nosuch", null));

        Map<String, Object> message = Map.of("user", "alice", "channel", "messaging:general");
        assertRefused(400, "vendor must be stream or cometchat",
                () -> cdn.sendWebhook(Map.of("vendor", "nope", "event", "message.new", "message", message)));
        assertRefused(422, "no Stream webhook for message.new",
                () -> cdn.sendWebhook(Map.of("vendor", "stream", "event", "message.new", "message", message)));
        assertRefused(404, "no app nosuch", () -> cdn.sendWebhook(
                Map.of("app", "nosuch", "vendor", "stream", "event", "message.new", "message", message)));

        assertRefused(400, "format must be json, markdown or junit", () -> cdn.reportText("xml", null));
        assertRefused(400, "since must be a journal entry id", () -> cdn.report("12"));
        assertRefused(400, "format must be json, markdown or junit",
                () -> cdn.mergeReportsText(List.of(cdn.report()), "html"));
        assertRefused(400, "expected shape", () -> cdn.mergeReports(List.of(Map.of("entries", 1))));
    }

    // -- helpers -------------------------------------------------------------------------------------------

    /** A request a {@link Receiver} took: its path, headers (first values, any case) and body. */
    record Received(String path, Map<String, String> headers, byte[] body) {
        String header(String name) {
            return headers.get(name);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** A local webhook target on loopback: records each request and answers 200 with no body. */
    static final class Receiver implements AutoCloseable {
        private final HttpServer server;
        private final CountDownLatch expected;
        private final ConcurrentLinkedQueue<Received> received = new ConcurrentLinkedQueue<>();

        Receiver(int requests) throws IOException {
            expected = new CountDownLatch(requests);
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", exchange -> {
                Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
                exchange.getRequestHeaders().forEach((name, values) -> headers.put(name, values.get(0)));
                byte[] body = exchange.getRequestBody().readAllBytes();
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
                received.add(new Received(exchange.getRequestURI().getPath(), headers, body));
                expected.countDown();
            });
            server.start();
        }

        String url(String path) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + path;
        }

        /** Waits for the expected requests (a latch, no sleep) and returns them in arrival order. */
        List<Received> await() throws InterruptedException {
            assertTrue(expected.await(PATIENCE.toSeconds(), TimeUnit.SECONDS),
                    "the receiver got " + received.size() + " requests in " + PATIENCE);
            return List.copyOf(received);
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }

    /**
     * Returns once the server counts {@code poll} among its waiting long polls, so the upload after it is what
     * wakes it (each check is an answer given at once; no sleep). Fails when the poll answered first.
     */
    private static void awaitWaitingPoll(MockCDN cdn, CompletableFuture<?> poll, String after) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (((Number) cdn.events(after, null, "demo", "thumbs").get("waiting")).intValue() < 1) {
            if (poll.isDone()) {
                fail("the long poll answered before any upload: " + poll.join());
            }
            if (System.nanoTime() > deadline) {
                fail("the long poll is not waiting after " + PATIENCE);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * The first journaled attempt of a target. The receiver has the request before the server reads its answer
     * and journals the attempt, so this asks again (each an answer given at once; no sleep) until it is there.
     */
    private static Map<String, Object> awaitAttempt(MockCDN cdn, String app, String target) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            List<Map<String, Object>> attempts = list(cdn.deliveries(app, target).get("attempts"));
            if (!attempts.isEmpty()) {
                return attempts.get(0);
            }
            if (System.nanoTime() > deadline) {
                fail("no delivery attempt to " + target + " journaled after " + PATIENCE);
            }
            Thread.onSpinWait();
        }
    }

    /** Uploads a text file through CometChat's media route with a FAT; returns its key within the app. */
    private static String upload(MockCDN cdn, String name, String content) throws Exception {
        String boundary = "mockcdn-java-test";
        String body = "--" + boundary + "\r\n"
                + "Content-Disposition: form-data; name=\"file\"; filename=\"" + name + "\"\r\n"
                + "Content-Type: text/plain\r\n\r\n" + content + "\r\n--" + boundary + "--\r\n";
        HttpRequest request = HttpRequest.newBuilder(URI.create(cdn.url() + "/demo/media"))
                .header("fat", cdn.fileAccessToken("alice", 600))
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        TestSupport.Answer stored = TestSupport.send(request);
        assertEquals(201, stored.status(), stored.text());
        String url = String.valueOf(map(Json.read(stored.text())).get("url"));
        String prefix = cdn.url() + "/demo/";
        assertTrue(url.startsWith(prefix) && url.endsWith("/" + name), url);
        return url.substring(prefix.length());
    }

    private static String hmac(byte[] body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(DEMO_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body));
    }

    private static void assertRefused(int status, String message, Runnable call) {
        MockCDNException refused = assertThrows(MockCDNException.class, call::run);
        assertEquals(status, refused.status(), refused.getMessage());
        assertTrue(refused.serverMessage().contains(message), refused.serverMessage());
    }

    private static Map<String, Object> parsedJson(String text) {
        try {
            return map(Json.read(text));
        } catch (IOException notJson) {
            throw new AssertionError("not JSON: " + text, notJson);
        }
    }

    private static String since(Map<String, Object> entry) {
        return String.valueOf(entry.get("id"));
    }

    private static List<Object> ids(Map<String, Object> targets, String kind) {
        return list(targets.get(kind)).stream().map(target -> target.get("id")).toList();
    }

    private static List<Map<String, Object>> rows(Map<String, Object> report) {
        return list(report.get("surfaces")).stream().flatMap(surface -> list(surface.get("rows")).stream()).toList();
    }

    /** A row's {@code covered}, {@code count} and {@code example}. */
    private static List<Object> countOf(Map<String, Object> report, String row) {
        for (Map<String, Object> candidate : rows(report)) {
            if (row.equals(candidate.get("id"))) {
                return Arrays.asList(candidate.get("covered"), candidate.get("count"), candidate.get("example"));
            }
        }
        throw new AssertionError("no row " + row + " in " + report);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertNotNull(value);
        assertTrue(value instanceof Map, String.valueOf(value));
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object value) {
        assertNotNull(value);
        assertTrue(value instanceof List, String.valueOf(value));
        return (List<Map<String, Object>>) value;
    }
}
