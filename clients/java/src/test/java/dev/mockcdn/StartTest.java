package dev.mockcdn;

import static dev.mockcdn.TestSupport.FIXTURES;
import static dev.mockcdn.TestSupport.SAMPLE;
import static dev.mockcdn.TestSupport.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting and stopping the binary with {@link MockCDN#start}, and attaching with {@link MockCDN#connect}. */
class StartTest {

    @Test
    void startServesUntilClosed() {
        MockCDN stopped;
        try (MockCDN cdn = MockCDN.start("--fixtures", FIXTURES.toString())) {
            stopped = cdn;
            assertTrue(cdn.url().matches("http://127\\.0\\.0\\.1:\\d+"), cdn.url());
            assertTrue(cdn.process().orElseThrow().isAlive());
            assertTrue(cdn.adminToken().isEmpty()); // loopback needs none
            assertEquals("ok", cdn.health().get("status"));
            assertEquals(200, get(cdn.url() + SAMPLE, Map.of("fat", cdn.fileAccessToken("alice", 60))).status());
        }
        assertEquals(0, stopped.process().orElseThrow().exitValue()); // SIGTERM is a clean stop
        assertEquals(OptionalInt.of(0), stopped.stop()); // a second stop is harmless
        MockCDNException unreachable = assertThrows(MockCDNException.class, stopped::health);
        assertEquals(0, unreachable.status());
        assertTrue(unreachable.getMessage().contains("not reachable"), unreachable.getMessage());
    }

    @Test
    void startPassesFlagsAndEnvironment() {
        try (MockCDN cdn = MockCDN.start(List.of("--fixtures", FIXTURES.toString()), Map.of("MOCKCDN_JOURNAL_SIZE", "1"))) {
            get(cdn.url() + SAMPLE, Map.of());
            get(cdn.url() + "/demo/fixtures/sample.jpg", Map.of());
            assertEquals(List.of("/demo/fixtures/sample.jpg"),
                    cdn.requests().stream().map(entry -> entry.get("path")).toList()); // a journal of one
        }
    }

    @Test
    void startSaysWhyTheServerDidNotStart() {
        MockCDNException refused = assertThrows(MockCDNException.class, () -> MockCDN.start("--journal-size", "0"));
        assertTrue(refused.getMessage().toLowerCase().contains("journal"), refused.getMessage());
        assertEquals(0, refused.status());
        assertFalse(refused.body().isEmpty()); // the server's stderr
    }

    @Test
    void startRefusesAMissingBinary(@TempDir Path folder) {
        LaunchOptions missing = LaunchOptions.defaults().withBinary(folder.resolve("no-such-mockcdn"));
        MockCDNException refused = assertThrows(MockCDNException.class, () -> MockCDN.start(missing));
        assertTrue(refused.getMessage().contains("not an executable"), refused.getMessage());
    }

    @Test
    void offLoopbackThePrintedAdminTokenIsPickedUp() {
        try (MockCDN cdn = MockCDN.start("--host", "0.0.0.0", "--fixtures", "none")) {
            assertTrue(cdn.adminToken().isPresent(), "the generated admin_token line was not read");
            assertTrue(cdn.url().startsWith("http://127.0.0.1:"), cdn.url()); // a wildcard bind, reached on loopback
            assertTrue(cdn.now() > 0); // control calls carry the token
            MockCDNException refused = assertThrows(MockCDNException.class, () -> MockCDN.connect(cdn.url()).now());
            assertEquals(401, refused.status());
            assertTrue(refused.serverMessage().contains("admin token"), refused.serverMessage());
        }
    }

    @Test
    void connectSendsAGivenAdminToken() {
        String token = "a-configured-admin-token-1234";
        try (MockCDN cdn = MockCDN.start("--host", "0.0.0.0", "--fixtures", "none", "--admin-token", token)) {
            assertEquals(token, cdn.adminToken().orElseThrow());
            MockCDN attached = MockCDN.connect(cdn.url() + "/", token);
            assertEquals(cdn.url(), attached.url());
            assertTrue(Math.abs(attached.now() - cdn.now()) <= 2);
            assertEquals(OptionalInt.empty(), attached.stop()); // an attached server keeps running
            assertEquals("ok", cdn.health().get("status"));
        }
    }
}
