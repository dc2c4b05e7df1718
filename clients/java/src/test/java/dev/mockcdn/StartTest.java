package dev.mockcdn;

import static dev.mockcdn.TestSupport.FIXTURES;
import static dev.mockcdn.TestSupport.SAMPLE;
import static dev.mockcdn.TestSupport.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
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

    /** A server that closes its stdout first, then writes its reason and exits: it is not killed before it wrote. */
    @Test
    void aReasonWrittenAfterStdoutClosedIsKept(@TempDir Path folder) throws IOException {
        // The pause only orders the write after stdout's end; the helper waits for the exit, so no timing can make
        // this pass or fail by chance (the old helper killed the server at stdout's end, before any pause ended).
        Path server = script(folder, "exec >&-", "sleep 0.5", "echo 'Error: written after stdout closed' >&2", "exit 3");
        MockCDNException refused = assertThrows(MockCDNException.class,
                () -> MockCDN.start(LaunchOptions.defaults().withBinary(server)));
        assertTrue(refused.body().contains("Error: written after stdout closed"), refused.getMessage());
        assertTrue(refused.getMessage().contains("exited before it was ready (exit code 3)"), refused.getMessage());
    }

    /**
     * The race a loaded machine loses: the server exits while its reason is still in the pipe, unread by the stderr
     * pump (held up here by a slow System.err). Process.destroyForcibly() on the exited server closed the pipe, and
     * the reason was gone.
     */
    @Test
    void aReasonTheStderrPumpHasNotReadYetIsKept(@TempDir Path folder) throws IOException {
        // No margin: the helper reads stderr to its end whatever the timing; the pause and the slow first line only
        // make the old helper's race (kill before the pump read the reason) certain.
        Path server = script(folder, "echo 'starting' >&2", "sleep 0.3", "echo 'Error: the reason' >&2", "exit 3");
        PrintStream stderr = System.err;
        System.setErr(new SlowFirstLine(stderr, Duration.ofSeconds(1)));
        try {
            MockCDNException refused = assertThrows(MockCDNException.class,
                    () -> MockCDN.start(LaunchOptions.defaults().withBinary(server)));
            assertEquals("starting\nError: the reason", refused.body(), refused.getMessage());
        } finally {
            System.setErr(stderr);
        }
    }

    /** A start on an interrupted thread fails at once, says so, kills the server, and leaves the interrupt set. */
    @Test
    void anInterruptedStartSaysSo() {
        Thread.currentThread().interrupt();
        try {
            MockCDNException refused = assertThrows(MockCDNException.class, () -> MockCDN.start("--fixtures", "none"));
            assertTrue(refused.getMessage().contains("interrupted while waiting for the ready line (killed)"),
                    refused.getMessage());
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
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

    /** An executable {@code sh} script of {@code lines} standing in for the binary; it ignores its arguments. */
    private static Path script(Path folder, String... lines) throws IOException {
        Path path = folder.resolve("mockcdn");
        Files.writeString(path, "#!/bin/sh\n" + String.join("\n", lines) + "\n");
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
        return path;
    }

    /** A stderr that takes {@code pause} over its first line, as a console on a loaded machine may. */
    private static final class SlowFirstLine extends PrintStream {
        private final Duration pause;
        private boolean paused;

        SlowFirstLine(PrintStream out, Duration pause) {
            super(out, true);
            this.pause = pause;
        }

        @Override
        public synchronized void println(String line) {
            if (!paused) {
                paused = true;
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            super.println(line);
        }
    }
}
