package dev.mockcdn.testcontainers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.mockcdn.MockCDN;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container module's settings, without a container engine: the environment, the URLs, and the waiting
 * entrypoint plus start script run for real with the real binary, as the container would run them.
 */
class MockCDNContainerSettingsTest {

    @Test
    void defaultsGenerateATokenAndTakeThePublicUrlFromTheMapping() {
        MockCDNContainerSettings settings = new MockCDNContainerSettings();
        assertTrue(settings.adminToken().matches("[0-9a-f]{48}"), settings.adminToken());
        assertNotEquals(settings.adminToken(), new MockCDNContainerSettings().adminToken());
        assertEquals(Map.of("MOCKCDN_ADMIN_TOKEN", settings.adminToken()), settings.environment());
        assertTrue(settings.publicUrlFromMapping());
        assertEquals(8080, MockCDNContainerSettings.PORT);
        assertEquals("/_mockcdn/health", MockCDNContainerSettings.HEALTH_PATH);
    }

    @Test
    void aChosenTokenAndCopiedFixturesReachTheEnvironment() {
        MockCDNContainerSettings settings = new MockCDNContainerSettings()
                .withAdminToken("a-chosen-admin-token-123").withFixtures(true);
        assertEquals(Map.of("MOCKCDN_ADMIN_TOKEN", "a-chosen-admin-token-123",
                "MOCKCDN_FIXTURES", MockCDNContainerSettings.FIXTURES_PATH), settings.environment());
        assertThrows(IllegalArgumentException.class, () -> settings.withAdminToken("too-short"));
        assertThrows(IllegalArgumentException.class, () -> settings.withAdminToken("has a space in the token"));
        assertFalse(settings.withPublicUrlFromMapping(false).publicUrlFromMapping());
    }

    @Test
    void urlsNameTheMappedHostAndPort() {
        MockCDNContainerSettings settings = new MockCDNContainerSettings().withAdminToken("a-chosen-admin-token-123");
        assertEquals("http://localhost:32768", settings.baseUrl("localhost", 32768));
        assertEquals("http://[::1]:32768", settings.baseUrl("::1", 32768));
        assertEquals("http://[::1]:32768", settings.baseUrl("[::1]", 32768));
        MockCDN client = settings.client("10.1.2.3", 40000);
        assertEquals("http://10.1.2.3:40000", client.url());
        assertEquals("a-chosen-admin-token-123", client.adminToken().orElseThrow());
        assertTrue(settings.starterScript("localhost", 32768)
                .contains("MOCKCDN_PUBLIC_URL='http://localhost:32768'\nexport MOCKCDN_PUBLIC_URL\nexec mockcdn serve\n"));
    }

    /**
     * The entrypoint waits for the script; once it is written, the server starts with the container's environment
     * and signs links on the public URL, whatever host the request named.
     */
    @Test
    void entrypointAndStartScriptRunTheServerOnThePublicUrl(@TempDir Path folder) throws Exception {
        MockCDNContainerSettings settings = new MockCDNContainerSettings();
        Path bin = Files.createDirectories(folder.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("mockcdn"), Path.of(requiredVariable("MOCKCDN_BINARY")).toAbsolutePath());
        Path script = folder.resolve("start.sh");

        ProcessBuilder container = new ProcessBuilder(settings.waitingEntrypoint(script.toString()))
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        container.environment().putAll(settings.environment());
        container.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        // What the image sets, but port 0 (a free port) for this machine and a quiet log.
        container.environment().put("MOCKCDN_HOST", "0.0.0.0");
        container.environment().put("MOCKCDN_PORT", "0");
        container.environment().put("MOCKCDN_LOG_LEVEL", "warning");
        container.environment().put("MOCKCDN_FIXTURES", requiredVariable("MOCKCDN_FIXTURES")); // the image's own, here
        Process server = container.start();
        try {
            BufferedReader stdout = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> readLine(stdout));
            // A check that nothing happens: the pause can only let a fault go unseen on a slow machine, never
            // fail a correct entrypoint; the positive half below waits on the ready line itself.
            Thread.sleep(300);
            assertTrue(!ready.isDone() && server.isAlive(), "the entrypoint must wait for the script");

            // "localhost:9" stands for the mapping; the copy is written in two parts, as a slow copy might be.
            String text = settings.starterScript("localhost", 9);
            Files.writeString(script, text.substring(0, 20));
            Thread.sleep(300); // as above: a check that nothing happens, which a pause cannot make fail falsely
            assertFalse(ready.isDone(), "a half-written script must not run");
            Files.writeString(script, text);

            Matcher line = Pattern.compile("mockcdn ready on http://0\\.0\\.0\\.0:(\\d+)")
                    .matcher(ready.get(20, TimeUnit.SECONDS));
            assertTrue(line.lookingAt(), line.toString());
            int port = Integer.parseInt(line.group(1));

            MockCDN cdn = settings.client("127.0.0.1", port);
            assertTrue(cdn.now() > 0); // the admin token from the environment is the server's
            String listing = getWithToken(cdn.url() + "/_mockcdn/objects?prefix=fixtures/sample.png", settings.adminToken());
            assertTrue(listing.contains("\"url\":\"http://localhost:9/demo/fixtures/sample.png?"), listing);
        } finally {
            server.destroy();
            assertTrue(server.waitFor(20, TimeUnit.SECONDS));
        }
        assertEquals(0, server.exitValue()); // the script exec'd the server, so SIGTERM reached it
    }

    /** A variable the suite's runners set (run-tests.sh, and the Gradle and Maven builds). */
    private static String requiredVariable(String name) {
        String value = System.getenv(name);
        assertTrue(value != null && !value.isEmpty(), name + " must be set");
        return value;
    }

    private static String readLine(BufferedReader reader) {
        try {
            return String.valueOf(reader.readLine());
        } catch (IOException error) {
            return "read failed: " + error;
        }
    }

    private static String getWithToken(String url, String token) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().proxy(HttpClient.Builder.NO_PROXY)
                .version(HttpClient.Version.HTTP_1_1).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }
}
