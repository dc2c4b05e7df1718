package dev.mockcdn.testcontainers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Testcontainers subclass, read as text: Testcontainers is not packaged for Debian and no container engine runs
 * here, so run-tests.sh compiles it only when a Testcontainers class path is given. This checks it is wired to the
 * tested {@link MockCDNContainerSettings} for each thing it promises.
 */
class MockCDNContainerSourceTest {
    private static final Path SOURCE = Path.of("src/testcontainers/java/dev/mockcdn/testcontainers/MockCDNContainer.java");

    @Test
    void subclassUsesTheTestedSettingsForEachPromise() throws IOException {
        String source = Files.readString(SOURCE);
        for (String expected : List.of(
                "public class MockCDNContainer extends GenericContainer<MockCDNContainer>",
                "withExposedPorts(MockCDNContainerSettings.PORT)",
                "Wait.forHttp(MockCDNContainerSettings.HEALTH_PATH)",
                ".forPort(MockCDNContainerSettings.PORT)",
                ".forStatusCode(200)",
                "settings.environment().forEach(this::withEnv)",
                "withCopyFileToContainer(MountableFile.forHostPath(fixtures), MockCDNContainerSettings.FIXTURES_PATH)",
                "command.withEntrypoint(settings.waitingEntrypoint())",
                "protected void containerIsStarting(InspectContainerResponse containerInfo)",
                "settings.starterScript(getHost(), getMappedPort(MockCDNContainerSettings.PORT))",
                "copyFileToContainer(Transferable.of(script, 0755), MockCDNContainerSettings.STARTER_SCRIPT)",
                "settings.client(getHost(), getMappedPort(MockCDNContainerSettings.PORT))",
                "DockerImageName.parse(MockCDNContainerSettings.DEFAULT_IMAGE)")) {
            assertTrue(source.contains(expected), "MockCDNContainer.java lacks: " + expected);
        }
    }

    @Test
    void theImageItStartsIsTheOneTheDockerfileBuilds() throws IOException {
        String dockerfile = Files.readString(Path.of("../../docker/Dockerfile"));
        assertTrue(dockerfile.contains("docker build -f docker/Dockerfile -t " + MockCDNContainerSettings.DEFAULT_IMAGE + " ."));
        assertTrue(dockerfile.contains("EXPOSE " + MockCDNContainerSettings.PORT));
        assertTrue(dockerfile.contains(MockCDNContainerSettings.HEALTH_PATH));
        assertTrue(dockerfile.contains("ENTRYPOINT [\"mockcdn\"]")); // what the start script's `exec mockcdn` runs
        assertTrue(dockerfile.contains("FROM debian:bookworm-slim")); // sh and grep, which the entrypoint uses
        assertTrue(dockerfile.contains("WORKDIR /var/lib/mockcdn")); // the parent of FIXTURES_PATH, the server's
    }
}
