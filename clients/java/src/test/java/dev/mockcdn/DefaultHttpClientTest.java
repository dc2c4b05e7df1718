package dev.mockcdn;

import static dev.mockcdn.TestSupport.SAMPLE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The JDK's own {@code HttpClient} at its defaults, as the README's example makes it: HTTP/2 preferred, so on a
 * cleartext connection it offers an {@code h2c} upgrade ({@code Connection: Upgrade, HTTP2-Settings},
 * {@code Upgrade: h2c}). MockCDN answers in HTTP/1.1 and keeps reading the connection, so a test's calls on one
 * client follow each other at once. Shares the run-wide server, whose fast reads answer the fixture reads.
 */
class DefaultHttpClientTest {
    @RegisterExtension
    static final MockCDNExtension MOCKCDN = TestSupport.sharedServer();

    /**
     * Ten calls take well under a second; a server that stopped reading after the upgrade offer makes each call
     * after the first wait for its idle timeout (35 s), so the generous bound below fails at once: it checks for
     * a hang, not a speed.
     */
    private static final Duration TEN_CALLS = Duration.ofSeconds(10);

    @Test
    void tenCallsOnOneDefaultClientAreAnsweredWithoutWaiting(MockCDN cdn) {
        HttpClient http = HttpClient.newHttpClient();
        assertEquals(HttpClient.Version.HTTP_2, http.version());
        String fat = cdn.fileAccessToken("alice", 600);
        HttpRequest health = HttpRequest.newBuilder(URI.create(cdn.url() + "/_mockcdn/health")).build();
        HttpRequest read = HttpRequest.newBuilder(URI.create(cdn.url() + SAMPLE)).header("fat", fat).build();
        byte[] sample = TestSupport.samplePng();
        assertTimeoutPreemptively(TEN_CALLS, () -> {
            for (int call = 0; call < 10; call++) {
                boolean reading = call % 2 == 1;
                HttpResponse<byte[]> answer =
                        http.send(reading ? read : health, HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, answer.statusCode(), "call " + call);
                assertEquals(HttpClient.Version.HTTP_1_1, answer.version(), "call " + call);
                if (reading) {
                    assertArrayEquals(sample, answer.body(), "call " + call);
                }
            }
        }, "ten calls on one default HttpClient");
        // Each read reached the server once: no call was sent again after a connection went quiet.
        assertEquals(List.of(200, 200, 200, 200, 200),
                cdn.requests("GET", SAMPLE, null).stream().map(entry -> entry.get("status")).toList());
    }
}
