package dev.mockcdn.testcontainers;

import com.github.dockerjava.api.command.InspectContainerResponse;
import dev.mockcdn.MockCDN;
import java.nio.file.Path;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * MockCDN as a Testcontainers container: the image {@code docker/Dockerfile} builds, port 8080 exposed, ready once
 * {@code /_mockcdn/health} answers 200, with an admin token (generated unless given), optionally a folder of fixtures
 * copied in, and {@code MOCKCDN_PUBLIC_URL} set to the mapped host and port so the links MockCDN signs point back
 * through the mapping. What it sets up lives in {@link MockCDNContainerSettings}, which is tested without a
 * container engine.
 *
 * <pre>{@code
 * @Container
 * static final MockCDNContainer MOCKCDN = new MockCDNContainer().withFixtures(Path.of("src/test/media"));
 *
 * MockCDN cdn = MOCKCDN.client();   // the control API, admin token included
 * }</pre>
 */
public class MockCDNContainer extends GenericContainer<MockCDNContainer> {
    private MockCDNContainerSettings settings = new MockCDNContainerSettings();
    private Path fixtures;

    /** The local image {@code mockcdn} ({@code docker build -f docker/Dockerfile -t mockcdn .}). */
    public MockCDNContainer() {
        this(DockerImageName.parse(MockCDNContainerSettings.DEFAULT_IMAGE));
    }

    /** A MockCDN image by name, such as one pushed to a team registry. */
    public MockCDNContainer(String image) {
        this(DockerImageName.parse(image));
    }

    /** A MockCDN image. */
    public MockCDNContainer(DockerImageName image) {
        super(image);
        withExposedPorts(MockCDNContainerSettings.PORT);
        waitingFor(Wait.forHttp(MockCDNContainerSettings.HEALTH_PATH)
                .forPort(MockCDNContainerSettings.PORT)
                .forStatusCode(200));
    }

    /** Uses this admin token (at least 16 characters) instead of a generated one. */
    public MockCDNContainer withAdminToken(String token) {
        settings = settings.withAdminToken(token);
        return self();
    }

    /** Copies a host folder of media into the container; the server preloads it under {@code demo/fixtures/}. */
    public MockCDNContainer withFixtures(Path folder) {
        fixtures = folder;
        settings = settings.withFixtures(true);
        return self();
    }

    /**
     * Whether {@code MOCKCDN_PUBLIC_URL} is set from the port mapping (the default). Turn it off when clients reach
     * the container by other names, such as the Android emulator's {@code 10.0.2.2}: links then follow each
     * request's {@code Host}.
     */
    public MockCDNContainer withPublicUrlFromMapping(boolean fromMapping) {
        settings = settings.withPublicUrlFromMapping(fromMapping);
        return self();
    }

    /** Applies the settings just before the container is created. */
    @Override
    protected void configure() {
        settings.environment().forEach(this::withEnv);
        if (fixtures != null) {
            withCopyFileToContainer(MountableFile.forHostPath(fixtures), MockCDNContainerSettings.FIXTURES_PATH);
        }
        if (settings.publicUrlFromMapping()) {
            withCreateContainerCmdModifier(command -> command.withEntrypoint(settings.waitingEntrypoint()));
        }
    }

    /** Once the port is mapped, copies in the start script that sets the public URL and runs the server. */
    @Override
    protected void containerIsStarting(InspectContainerResponse containerInfo) {
        super.containerIsStarting(containerInfo);
        if (settings.publicUrlFromMapping()) {
            String script = settings.starterScript(getHost(), getMappedPort(MockCDNContainerSettings.PORT));
            copyFileToContainer(Transferable.of(script, 0755), MockCDNContainerSettings.STARTER_SCRIPT);
        }
    }

    /** {@code http://HOST:MAPPED_PORT}, the base of every media and control URL. */
    public String getBaseUrl() {
        return settings.baseUrl(getHost(), getMappedPort(MockCDNContainerSettings.PORT));
    }

    /** The admin token the control routes need. */
    public String getAdminToken() {
        return settings.adminToken();
    }

    /** A {@link MockCDN} client of the running container, admin token included. */
    public MockCDN client() {
        return settings.client(getHost(), getMappedPort(MockCDNContainerSettings.PORT));
    }
}
