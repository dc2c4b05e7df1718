package dev.mockcdn;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A MockCDN server and a client of its {@code /_mockcdn} test-control routes: the clock every expiry reads,
 * tokens minted at that clock, fault rules, the request journal, verification and reset; upload events (their
 * queue, notification targets and webhook deliveries), vendor-shaped webhooks and the contract coverage report.
 *
 * <p>Make one with {@link #start()} (runs the {@code mockcdn} binary on a free port; {@link #close()} stops it,
 * so it fits try-with-resources) or {@link #connect(String, String)} (attaches to a server already running, such
 * as a container). Every failed call throws {@link MockCDNException} with the HTTP status and body.
 *
 * <pre>{@code
 * try (MockCDN cdn = MockCDN.start("--fixtures", "Fixtures/media")) {
 *     String fat = cdn.fileAccessToken("alice", 60);   // minted at the server's clock
 *     cdn.advance(61);                                   // that FAT has now expired
 * }
 * }</pre>
 *
 * <p>Safe to share between threads, but {@link #reset()} and the clock are global to the server.
 */
public final class MockCDN implements AutoCloseable {
    /** Maven group id of this library. */
    public static final String GROUP_ID = "dev.mockcdn";
    /** Maven artifact id of this library. */
    public static final String ARTIFACT_ID = "mockcdn-junit5";
    /** This library's version: the MockCDN release it is made for. */
    public static final String VERSION = "0.6.0";

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final String url;
    private final String adminToken;
    private final ServerProcess server;
    private final Thread stopAtExit;
    // Control requests go straight to the server: no proxy, and HTTP/1.1 without an h2c upgrade attempt.
    private final HttpClient http = HttpClient.newBuilder()
            .proxy(HttpClient.Builder.NO_PROXY)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(REQUEST_TIMEOUT)
            .build();

    private MockCDN(String url, String adminToken, ServerProcess server) {
        this.url = url.replaceAll("/+$", "");
        this.adminToken = adminToken == null || adminToken.isEmpty() ? null : adminToken;
        this.server = server;
        // A JVM exiting with the server still running would leave it behind, listening.
        this.stopAtExit = server == null ? null : new Thread(server.process::destroy, "mockcdn-stop-at-exit");
        if (stopAtExit != null) {
            Runtime.getRuntime().addShutdownHook(stopAtExit);
        }
    }

    // -- lifecycle -----------------------------------------------------------------------------------------

    /**
     * Runs {@code mockcdn serve --port 0 --log-level warning} with the looked-up binary and returns it once ready.
     *
     * @throws MockCDNException when the binary is missing or the server did not become ready
     */
    public static MockCDN start() {
        return start(LaunchOptions.defaults());
    }

    /** {@link #start()} with more {@code serve} flags, e.g. {@code start("--fixtures", "none")}. */
    public static MockCDN start(String... args) {
        return start(LaunchOptions.defaults().withArgs(args));
    }

    /** {@link #start()} with more flags and environment variables for the server. */
    public static MockCDN start(List<String> args, Map<String, String> env) {
        LaunchOptions options = LaunchOptions.defaults().withArgs(args.toArray(String[]::new));
        for (Map.Entry<String, String> variable : env.entrySet()) {
            options = options.withEnv(variable.getKey(), variable.getValue());
        }
        return start(options);
    }

    /**
     * Runs {@code mockcdn serve --port 0 --log-level warning ARGS} as the options say and returns it once its
     * ready line is printed. Off loopback ({@code --host 0.0.0.0}) the admin token the server prints is read, so
     * control calls carry it.
     *
     * @throws MockCDNException when the binary is missing or the server did not become ready
     */
    public static MockCDN start(LaunchOptions options) {
        ServerProcess server = ServerProcess.launch(options);
        return new MockCDN(server.url, server.adminToken, server);
    }

    /** Attaches to a server already running at {@code url} ({@code http://HOST:PORT}) on loopback; nothing is sent yet. */
    public static MockCDN connect(String url) {
        return connect(url, null);
    }

    /**
     * Attaches to a server already running at {@code url}; nothing is sent yet. {@link #close()} leaves that server
     * running.
     *
     * @param adminToken sent as {@code Authorization: Bearer} on control calls, which a server off loopback (a
     *     container) needs; {@code null} for none
     */
    public static MockCDN connect(String url, String adminToken) {
        return new MockCDN(url, adminToken, null);
    }

    /**
     * Waits until {@code GET /_mockcdn/health} answers, for a server or container that may still be starting.
     *
     * @return this client
     * @throws MockCDNException when it has not answered after {@code timeout}
     */
    public MockCDN awaitHealthy(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                health();
                return this;
            } catch (MockCDNException error) {
                if (System.nanoTime() >= deadline) {
                    throw new MockCDNException("MockCDN at " + url + " is not healthy after " + timeout.toSeconds()
                            + " s: " + error.getMessage(), error.status(), error.body(), error);
                }
                pause(Duration.ofMillis(200));
            }
        }
    }

    /** Base URL, {@code http://HOST:PORT}, without a trailing slash. */
    public String url() {
        return url;
    }

    /** The bearer token sent on control calls, when there is one (needed off loopback). */
    public Optional<String> adminToken() {
        return Optional.ofNullable(adminToken);
    }

    /** The server's process when {@link #start()} ran it; empty for an attached server. */
    public Optional<Process> process() {
        return server == null ? Optional.empty() : Optional.of(server.process);
    }

    /**
     * Stops a server {@link #start()} ran (SIGTERM, then waits up to 20 s) and returns its exit code, 0 for a clean
     * stop; empty for an attached server, which keeps running. Safe to call twice.
     *
     * @throws MockCDNException when the server did not exit after SIGTERM (it is then killed)
     */
    public OptionalInt stop() {
        if (server == null) {
            return OptionalInt.empty();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running or has run: stopping here as well is harmless.
        }
        return OptionalInt.of(server.stop(STOP_TIMEOUT));
    }

    /** {@link #stop()}, for try-with-resources. */
    @Override
    public void close() {
        stop();
    }

    /** {@code MockCDN(http://127.0.0.1:PORT, pid N)} or {@code MockCDN(URL, attached)}. */
    @Override
    public String toString() {
        return "MockCDN(" + url + ", " + (server == null ? "attached" : "pid " + server.process.pid()) + ")";
    }

    // -- control API ---------------------------------------------------------------------------------------

    /** {@code GET /_mockcdn/health}: {@code status} ({@code ok} or {@code degraded}), {@code instance}, {@code store}. */
    public Map<String, Object> health() {
        return object(call("GET", "/_mockcdn/health", null));
    }

    /**
     * Mints a credential at the server's clock ({@code POST /_mockcdn/tokens}), so moving the clock never makes it
     * fail early or late.
     *
     * @param kind {@code "fat"} (a File Access Token), {@code "user"} (a Stream user JWT) or {@code "server"}
     * @param userId required for {@code fat} and {@code user}; {@code null} otherwise
     * @param appId the app; {@code null} for the server's default app ({@code demo})
     * @param ttlSeconds validity, 1-2,592,000; {@code null} for the server's default (a FAT lives 3600 s, a JWT
     *     without it never expires)
     * @return the token
     */
    public String token(String kind, String userId, String appId, Integer ttlSeconds) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("kind", kind);
        putIfPresent(body, "user_id", userId);
        putIfPresent(body, "app_id", appId);
        putIfPresent(body, "ttl", ttlSeconds);
        return String.valueOf(object(call("POST", "/_mockcdn/tokens", body)).get("token"));
    }

    /** A File Access Token of the default app for {@code userId}, valid {@code ttlSeconds} of server time. */
    public String fileAccessToken(String userId, int ttlSeconds) {
        return token("fat", userId, null, ttlSeconds);
    }

    /** The server's clock, Unix seconds ({@code GET /_mockcdn/clock}). */
    public long now() {
        return clock(call("GET", "/_mockcdn/clock", null));
    }

    /** Sets the server's clock (Unix seconds, {@code PUT /_mockcdn/clock}); it keeps running from there. Returns it. */
    public long setClock(long unixSeconds) {
        return clock(call("PUT", "/_mockcdn/clock", Map.of("now", unixSeconds)));
    }

    /** {@link #setClock(long)} at an instant (its fraction of a second dropped). */
    public long setClock(Instant instant) {
        return setClock(instant.getEpochSecond());
    }

    /** Moves the server's clock by {@code seconds} (negative moves it back); returns the clock after. */
    public long advance(long seconds) {
        return clock(call("POST", "/_mockcdn/clock/advance", Map.of("seconds", seconds)));
    }

    /**
     * Adds a fault rule ({@code POST /_mockcdn/faults}, see {@code FaultRuleRequest} in {@code openapi.yaml}) and
     * returns its id ({@code f1}, {@code f2}, ...). A misspelt member is a 400. Example:
     * {@code Map.of("match", Map.of("method", "GET", "path", "/demo/fixtures/"), "times", 1,
     * "action", Map.of("status", 503, "body", "try again"))}.
     */
    public String addFault(Map<String, ?> rule) {
        return String.valueOf(object(call("POST", "/_mockcdn/faults", rule)).get("id"));
    }

    /** The fault rules in the order they are tried, each with {@code hits} and {@code remaining}. */
    public List<Map<String, Object>> faults() {
        return listOf(object(call("GET", "/_mockcdn/faults", null)).get("faults"));
    }

    /** Deletes one fault rule; an unknown id throws (404). */
    public void removeFault(String id) {
        call("DELETE", "/_mockcdn/faults/" + URLEncoder.encode(id, StandardCharsets.UTF_8), null);
    }

    /** Deletes every fault rule. */
    public void clearFaults() {
        call("DELETE", "/_mockcdn/faults", null);
    }

    /** The whole request journal, oldest first. */
    public List<Map<String, Object>> requests() {
        return requests(null, null, null);
    }

    /**
     * The request journal, oldest first ({@code GET /_mockcdn/requests}), filtered by all the given criteria. Each
     * entry has {@code method}, {@code path}, {@code query} (redacted), {@code credential}, {@code status},
     * {@code fault}, {@code reason}, {@code expired_at} (when a credential refused for its time expired, by the
     * server's clock), {@code clock}, byte counts and timing.
     *
     * @param method an HTTP method, or {@code null} for any
     * @param pathPrefix a path prefix such as {@code /demo/fixtures/}, or {@code null} for any
     * @param status an HTTP status (100-599, else 400), or {@code null} for any
     */
    public List<Map<String, Object>> requests(String method, String pathPrefix, Integer status) {
        List<String> filters = new ArrayList<>();
        addFilter(filters, "method", method);
        addFilter(filters, "path", pathPrefix);
        addFilter(filters, "status", status);
        String query = filters.isEmpty() ? "" : "?" + String.join("&", filters);
        return listOf(object(call("GET", "/_mockcdn/requests" + query, null)).get("requests"));
    }

    /** Empties the request journal. */
    public void clearRequests() {
        call("DELETE", "/_mockcdn/requests", null);
    }

    /**
     * Checks the request journal against expectations ({@code POST /_mockcdn/verify}) and returns, for each, the ids
     * of the entries it matched. Each expectation has any of {@code method}, {@code path} (a glob: {@code *} within
     * a segment, a {@code **} segment across segments), {@code query} (text the query contains), {@code credential}
     * ({@code fat-header}, {@code presigned}, {@code cloudfront}...), {@code status} (a number, or a class such as
     * {@code "4xx"}) and {@code count} (a number, or {@code Map.of("min", N, "max", M)}; at least once by default):
     * {@code cdn.verify(List.of(Map.of("method", "GET", "path", "/demo/**", "credential", "fat-header")))}.
     *
     * @throws VerificationError when an expectation is unmet; its message is the server's near-miss report
     * @throws MockCDNException when the document is refused (400, naming the member) or the server is not reachable
     */
    public List<List<String>> verify(List<? extends Map<String, ?>> expectations) {
        return verify(expectations, false, null);
    }

    /**
     * {@link #verify(List)}, in order (each expectation met after the previous one's last match) and only over the
     * journal entries after {@code since} (an id such as {@code r12}; {@code null} for all).
     *
     * @throws VerificationError when an expectation is unmet; its message is the server's near-miss report
     * @throws MockCDNException when the document is refused (400, naming the member) or the server is not reachable
     */
    public List<List<String>> verify(List<? extends Map<String, ?>> expectations, boolean ordered, String since) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("expectations", expectations);
        if (ordered) {
            document.put("ordered", true);
        }
        putIfPresent(document, "since", since);
        Map<String, Object> answer;
        try {
            answer = object(call("POST", "/_mockcdn/verify", document));
        } catch (MockCDNException refused) {
            if (refused.status() != 409) {
                throw refused;
            }
            Map<String, Object> result;
            try {
                result = object(Json.read(refused.body()));
            } catch (JsonProcessingException notJson) {
                throw refused;
            }
            throw new VerificationError(String.valueOf(result.get("report")), result);
        }
        List<List<String>> matched = new ArrayList<>();
        for (Map<String, Object> outcome : listOf(answer.get("expectations"))) {
            List<String> ids = new ArrayList<>();
            for (Object id : (List<?>) outcome.get("matched")) {
                ids.add(String.valueOf(id));
            }
            matched.add(ids);
        }
        return matched;
    }

    /**
     * Back to the startup state ({@code POST /_mockcdn/reset}): objects and fixtures, journal, faults, clock at
     * system time, channel members, upload settings.
     */
    public void reset() {
        call("POST", "/_mockcdn/reset", null);
    }

    // -- upload events, webhooks, coverage ------------------------------------------------------------------

    /** The whole upload event queue, oldest first, at once: {@link #events(String, Integer, String, String)}. */
    public Map<String, Object> events() {
        return events(null, null, null, null);
    }

    /**
     * The upload event queue, oldest first ({@code GET /_mockcdn/events}, {@code docs/events.md}), as the server
     * answers it: {@code events} (each {@code id}, {@code app}, {@code targets}, {@code arns} and {@code record}, an
     * S3 event notification record whose {@code eventName} is e.g. {@code ObjectCreated:Put}), {@code last_id} (the
     * newest event's id whatever the filters: the next poll's {@code after}) and {@code waiting} (the long polls
     * waiting now, this one not counted). A reset empties the queue but does not restart the ids. Only the
     * arguments given are sent:
     * {@code cdn.events(String.valueOf(cdn.events().get("last_id")), 30, "demo", null)}.
     *
     * @param after only events with a greater id, such as the previous answer's {@code last_id}; {@code null} for all
     * @param waitSeconds the long poll, 0-60 seconds: the answer comes as soon as one event passes the filters, or
     *     with an empty list when the wait runs out; this call's time limit is stretched by it. {@code null} (or 0)
     *     answers at once
     * @param app only that app's events (an unknown app is a 404); {@code null} for every app
     * @param target only the events a notification target (its id or ARN) passed, each record's
     *     {@code s3.configurationId} then that target's id; {@code null} for all
     * @throws MockCDNException on a bad parameter (400: {@code after} not a whole number from 0, a wait outside
     *     0-60) or an unknown app (404)
     */
    public Map<String, Object> events(String after, Integer waitSeconds, String app, String target) {
        List<String> filters = new ArrayList<>();
        addFilter(filters, "after", after);
        addFilter(filters, "wait", waitSeconds);
        addFilter(filters, "app", app);
        addFilter(filters, "target", target);
        String query = filters.isEmpty() ? "" : "?" + String.join("&", filters);
        // A wait outside 0-60 is the server's 400 to give; only a wait it takes stretches the time limit.
        Duration timeout = waitSeconds != null && waitSeconds > 0 && waitSeconds <= 60
                ? REQUEST_TIMEOUT.plusSeconds(waitSeconds) : REQUEST_TIMEOUT;
        return object(call("GET", "/_mockcdn/events" + query, null, timeout));
    }

    /**
     * An app's upload event targets ({@code GET /_mockcdn/apps/{app}/notifications}, {@code docs/events.md}):
     * {@code webhooks}, {@code queues}, {@code topics} and {@code lambdas}, each a list of targets ({@code id},
     * {@code url} or {@code arn}, {@code events}, {@code prefix}, {@code suffix}).
     *
     * @throws MockCDNException for an unknown app (404)
     */
    public Map<String, Object> notificationTargets(String app) {
        return object(call("GET", notificationsPath(app), null));
    }

    /**
     * Replaces every upload event target of an app until the next reset ({@code PUT
     * /_mockcdn/apps/{app}/notifications}, {@code NotificationConfiguration} in {@code openapi.yaml}) and returns
     * them as kept, a target without an {@code id} given one ({@code notification-1}, ...). The document is the
     * config file's {@code notifications}: {@code webhooks} (each with a {@code url}), {@code queues},
     * {@code topics} and {@code lambdas} (each with an {@code arn}); every target has {@code events} and optional
     * {@code id}, {@code prefix} and {@code suffix}; {@code Map.of()} removes them all. Example:
     * {@code Map.of("webhooks", List.of(Map.of("id", "thumbs", "url", "http://127.0.0.1:9000/hooks/s3",
     * "events", List.of("s3:ObjectCreated:*"))))}.
     *
     * @throws MockCDNException for a bad target (400, naming the kind and member; a webhook on MockCDN's own
     *     control routes too) or an unknown app (404); nothing of a refused document is kept
     */
    public Map<String, Object> setNotificationTargets(String app, Map<String, ?> targets) {
        return object(call("PUT", notificationsPath(app), targets));
    }

    /** The whole webhook delivery journal: {@link #deliveries(String, String)} without filters. */
    public Map<String, Object> deliveries() {
        return deliveries(null, null);
    }

    /**
     * The webhook delivery journal ({@code GET /_mockcdn/deliveries}, {@code docs/events.md}): {@code attempts},
     * oldest first, each with {@code delivery}, {@code app}, {@code target}, {@code url}, {@code event_id},
     * {@code event_name}, {@code key}, {@code attempt}, {@code at}, {@code status}, {@code outcome}
     * ({@code delivered}, {@code failed}, {@code timeout}, {@code unreachable}, {@code dropped}), {@code error},
     * {@code fault}, {@code duration_ms} and {@code next_attempt_at}; and {@code pending}, the deliveries waiting
     * for their next attempt (retried on the server's clock: {@link #advance(long)} past {@code due_at} runs one).
     * Upload events' deliveries and vendor webhooks' ({@link #sendWebhook(Map)}) alike.
     *
     * @param app only that app's; {@code null} for every app
     * @param target only that target's (a target id; {@code webhook_url}, an event hook's or a CometChat webhook's
     *     id for a vendor webhook); {@code null} for all
     * @throws MockCDNException for an app no configuration names (404)
     */
    public Map<String, Object> deliveries(String app, String target) {
        List<String> filters = new ArrayList<>();
        addFilter(filters, "app", app);
        addFilter(filters, "target", target);
        String query = filters.isEmpty() ? "" : "?" + String.join("&", filters);
        return object(call("GET", "/_mockcdn/deliveries" + query, null));
    }

    /**
     * Sends the vendor-shaped webhook a message with the app's objects attached would cause ({@code POST
     * /_mockcdn/webhooks}, {@code docs/webhooks.md}) to each URL the app configured the vendor's way (Stream's
     * {@code webhook_url} or {@code event_hooks} of {@code PATCH /app}; CometChat's webhooks with the
     * {@code message_sent} trigger), and returns {@code deliveries} (each {@code delivery}, {@code target},
     * {@code url} and Stream's {@code webhook_id}) and {@code payloads}, each as signed, in the same order. The
     * body has {@code app} (default the first app), {@code vendor} ({@code stream} or {@code cometchat}),
     * {@code event} ({@code message.new} or {@code message_sent}), {@code message} ({@code user}; Stream's
     * {@code channel}, CometChat's {@code receiver} and {@code receiver_type}; optional {@code text} and
     * {@code id}) and {@code keys} (the app's object keys to attach, at most 30). Example:
     * {@code Map.of("vendor", "stream", "event", "message.new", "keys", List.of("fixtures/sample.jpg"),
     * "message", Map.of("text", "look", "user", "alice", "channel", "messaging:general"))}.
     *
     * @throws MockCDNException for a bad member (400), an unknown app or key (404; nothing is sent), or an app
     *     with no URL for the event (422)
     */
    public Map<String, Object> sendWebhook(Map<String, ?> body) {
        return object(call("POST", "/_mockcdn/webhooks", body));
    }

    /** The contract coverage report of the whole journal as JSON: {@link #report(String)}. */
    public Map<String, Object> report() {
        return report(null);
    }

    /**
     * The contract coverage report of the journal ({@code GET /_mockcdn/report}, {@code docs/report.md}): which
     * contract behaviours (rows) the journaled requests exercised, per API surface: {@code since},
     * {@code entries} (journal entries read), {@code rows_total}, {@code rows_covered}, {@code percent} and
     * {@code surfaces}, each with its {@code rows} ({@code id} such as {@code media.status.200}, {@code title},
     * {@code covered}, {@code count}, {@code example}: the first entry's id). The journal holds the requests since
     * the last reset, so fetch a report before each reset and add them up with {@link #mergeReports(List)}.
     *
     * @param since read the journal from this entry on, inclusive ({@code r12}); {@code null} for all of it
     * @throws MockCDNException for a malformed {@code since} (400)
     */
    public Map<String, Object> report(String since) {
        return object(call("GET", reportPath("json", since), null));
    }

    /**
     * {@link #report(String)} rendered by the server as text: {@code "markdown"} (a summary line and a table per
     * surface), {@code "junit"} (JUnit XML: a {@code testsuite} per surface, a {@code testcase} per row, a row
     * never exercised {@code skipped}) or {@code "json"} (the JSON text).
     *
     * @param format {@code markdown}, {@code junit} or {@code json}; {@code null} for the server's default (json)
     * @param since read the journal from this entry on, inclusive ({@code r12}); {@code null} for all of it
     * @throws MockCDNException for an unknown format or a malformed {@code since} (400)
     */
    public String reportText(String format, String since) {
        return send("GET", reportPath(format, since), null, REQUEST_TIMEOUT).body();
    }

    /**
     * Several JSON reports of {@link #report()} (fetched before resets, which empty the journal) added up row by
     * row by the server ({@code POST /_mockcdn/report}): counts and entries summed, each row's first example kept.
     * The server reads at most 8 MiB of body, several hundred whole reports.
     *
     * @throws MockCDNException when a report is not of the report's shape (400)
     */
    public Map<String, Object> mergeReports(List<? extends Map<String, ?>> reports) {
        return object(call("POST", reportPath("json", null), Map.of("reports", reports)));
    }

    /**
     * {@link #mergeReports(List)} rendered by the server as text, as {@link #reportText(String, String)} renders
     * one report: {@code "markdown"}, {@code "junit"} or {@code "json"}.
     *
     * @param format {@code markdown}, {@code junit} or {@code json}; {@code null} for the server's default (json)
     * @throws MockCDNException for an unknown format, or a report not of the report's shape (400)
     */
    public String mergeReportsText(List<? extends Map<String, ?>> reports, String format) {
        return send("POST", reportPath(format, null), Map.of("reports", reports), REQUEST_TIMEOUT).body();
    }

    // -- transport -----------------------------------------------------------------------------------------

    /** Sends one control request and returns its decoded JSON ({@code null} for an empty answer). */
    private Object call(String method, String path, Object body) {
        return call(method, path, body, REQUEST_TIMEOUT);
    }

    /** {@link #call(String, String, Object)} with its own time limit (a long poll's wait on top of the usual one). */
    private Object call(String method, String path, Object body, Duration timeout) {
        HttpResponse<String> response = send(method, path, body, timeout);
        String text = response.body();
        if (text.isBlank()) {
            return null;
        }
        try {
            return Json.read(text);
        } catch (JsonProcessingException error) {
            throw new MockCDNException(method + " " + path + ": answer is not JSON", response.statusCode(), text,
                    error);
        }
    }

    /**
     * Sends one control request and returns its answer, the body as text whatever its type (JSON, Markdown, XML);
     * an error status throws {@link MockCDNException} with it.
     */
    private HttpResponse<String> send(String method, String path, Object body, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + path))
                .timeout(timeout)
                .header("Accept", "application/json");
        if (method.equals("POST") || method.equals("PUT")) {
            // Every control POST/PUT needs this type, even one without a body (the server answers 415).
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body == null ? "" : Json.write(body)));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        if (adminToken != null) {
            request.header("Authorization", "Bearer " + adminToken);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException error) {
            throw new MockCDNException(method + " " + path + ": MockCDN at " + url + " not reachable: " + error,
                    0, "", error);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new MockCDNException(method + " " + path + ": interrupted", 0, "", interrupted);
        }
        String text = response.body();
        if (response.statusCode() >= 400) {
            String message = (method + " " + path + ": " + response.statusCode() + " "
                    + MockCDNException.serverMessageOf(text)).strip();
            throw new MockCDNException(message, response.statusCode(), text, null);
        }
        return response;
    }

    private static long clock(Object answer) {
        return ((Number) object(answer).get("now")).longValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object answer) {
        if (answer instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        throw new MockCDNException("expected a JSON object, got " + answer, 0, String.valueOf(answer), null);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> listOf(Object answer) {
        if (answer instanceof List<?> list) {
            return (List<Map<String, Object>>) list;
        }
        throw new MockCDNException("expected a JSON array, got " + answer, 0, String.valueOf(answer), null);
    }

    private static void putIfPresent(Map<String, Object> body, String name, Object value) {
        if (value != null) {
            body.put(name, value);
        }
    }

    private static String notificationsPath(String app) {
        Objects.requireNonNull(app, "app");
        // One path segment: URLEncoder writes a space as '+', which a path reads as itself.
        return "/_mockcdn/apps/" + URLEncoder.encode(app, StandardCharsets.UTF_8).replace("+", "%20")
                + "/notifications";
    }

    private static String reportPath(String format, String since) {
        List<String> filters = new ArrayList<>();
        addFilter(filters, "format", format);
        addFilter(filters, "since", since);
        return "/_mockcdn/report" + (filters.isEmpty() ? "" : "?" + String.join("&", filters));
    }

    private static void addFilter(List<String> filters, String name, Object value) {
        if (value != null) {
            filters.add(name + "=" + URLEncoder.encode(String.valueOf(value), StandardCharsets.UTF_8));
        }
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new MockCDNException("interrupted while waiting for MockCDN", 0, "", interrupted);
        }
    }
}
