package dev.mockcdn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * {@link MockCDNExtension} as JUnit runs it: each case launches probe classes in a run of their own (the Launcher
 * API) and checks which servers they were given, and that those servers were stopped when their class or run ended.
 */
class ExtensionTest {
    /** The configuration parameter that enables the probes, which are skipped in any other run. */
    static final String PROBE_PARAMETER = "dev.mockcdn.probe";

    /** What one probe saw: its class and the server it was given. */
    record Seen(String probe, MockCDN server) {
    }

    private static final List<Seen> SEEN = new CopyOnWriteArrayList<>();

    @BeforeEach
    void forgetEarlierProbes() {
        SEEN.clear();
    }

    @Test
    void twoClassesSharingPerRunGetOneServerStoppedAtTheEnd() {
        run(Map.of(), PerRunFirstProbe.class, PerRunSecondProbe.class);
        assertEquals(List.of("PerRunFirstProbe", "PerRunSecondProbe"), probes());
        MockCDN first = SEEN.get(0).server();
        assertSame(first, SEEN.get(1).server());
        assertEquals(first.url(), SEEN.get(1).server().url()); // the same base URL in both classes
        assertEquals(0, first.process().orElseThrow().exitValue()); // stopped cleanly when the run ended
    }

    @Test
    void extendWithStartsOneServerPerClass() {
        run(Map.of(), PerClassFirstProbe.class, PerClassSecondProbe.class);
        assertEquals(List.of("PerClassFirstProbe", "PerClassFirstProbe", "PerClassSecondProbe"), probes());
        assertSame(SEEN.get(0).server(), SEEN.get(1).server()); // @BeforeAll and the test: one server
        assertNotEquals(SEEN.get(0).server().url(), SEEN.get(2).server().url());
        for (Seen seen : SEEN) {
            assertEquals(0, seen.server().process().orElseThrow().exitValue()); // stopped after its class
        }
    }

    @Test
    void mockcdnUrlAttachesAndEachTestStartsFromAReset() {
        try (MockCDN running = MockCDN.start("--fixtures", "none")) {
            run(Map.of("mockcdn.url", running.url() + "/"), AttachedProbe.class);
            assertEquals(List.of("AttachedProbe", "AttachedProbe"), probes());
            for (Seen seen : SEEN) {
                assertEquals(running.url(), seen.server().url());
                assertTrue(seen.server().process().isEmpty(), "attached, not started");
            }
            // The probes' reads reached this server; the reset between them dropped the first (418) from the
            // journal; the run's end left the server running.
            assertEquals(List.of(404), running.requests(null, "/attach-probe", null).stream()
                    .map(entry -> entry.get("status")).toList());
            assertTrue(running.process().orElseThrow().isAlive());
        }
    }

    /** Runs the probe classes in a launch of their own and fails with the details when any of them failed. */
    private static void run(Map<String, String> parameters, Class<?>... probes) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(Arrays.stream(probes).map(DiscoverySelectors::selectClass).toList())
                .configurationParameter(PROBE_PARAMETER, "true")
                .configurationParameters(parameters)
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        String failures = summary.getFailures().stream()
                .map(failure -> failure.getTestIdentifier().getDisplayName() + ": " + failure.getException())
                .collect(Collectors.joining("\n"));
        assertEquals(0, summary.getTotalFailureCount(), failures);
        assertTrue(summary.getTestsSucceededCount() > 0, "no probe ran");
    }

    private static List<String> probes() {
        return SEEN.stream().map(Seen::probe).toList();
    }

    /** Enables a probe only in the runs this class launches. */
    static final class OnlyInProbeRuns implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(PROBE_PARAMETER).isPresent()
                    ? ConditionEvaluationResult.enabled("launched by ExtensionTest")
                    : ConditionEvaluationResult.disabled("a probe of ExtensionTest");
        }
    }

    @ExtendWith(OnlyInProbeRuns.class)
    static class PerRunFirstProbe {
        @RegisterExtension
        static final MockCDNExtension MOCKCDN = new MockCDNExtension(LaunchOptions.defaults().withArgs("--fixtures", "none"),
                MockCDNExtension.Sharing.RUN);

        @Test
        void records(MockCDN cdn) {
            SEEN.add(new Seen("PerRunFirstProbe", cdn));
        }
    }

    @ExtendWith(OnlyInProbeRuns.class)
    static class PerRunSecondProbe {
        @RegisterExtension
        static final MockCDNExtension MOCKCDN = new MockCDNExtension(LaunchOptions.defaults().withArgs("--fixtures", "none"),
                MockCDNExtension.Sharing.RUN);

        @Test
        void records(MockCDN cdn) {
            SEEN.add(new Seen("PerRunSecondProbe", cdn));
        }
    }

    @ExtendWith({OnlyInProbeRuns.class, MockCDNExtension.class})
    static class PerClassFirstProbe {
        @BeforeAll
        static void recordsBeforeAll(MockCDN cdn) {
            SEEN.add(new Seen("PerClassFirstProbe", cdn));
        }

        @Test
        void records(MockCDN cdn) {
            SEEN.add(new Seen("PerClassFirstProbe", cdn));
        }
    }

    @ExtendWith({OnlyInProbeRuns.class, MockCDNExtension.class})
    static class PerClassSecondProbe {
        @Test
        void records(MockCDN cdn) {
            SEEN.add(new Seen("PerClassSecondProbe", cdn));
        }
    }

    @ExtendWith({OnlyInProbeRuns.class, MockCDNExtension.class})
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class AttachedProbe {
        @Test
        @Order(1)
        void changesTheServer(MockCDN cdn) {
            SEEN.add(new Seen("AttachedProbe", cdn));
            cdn.addFault(Map.of("action", Map.of("status", 418)));
            cdn.advance(86_400);
            assertEquals(418, TestSupport.get(cdn.url() + "/attach-probe", Map.of()).status());
        }

        @Test
        @Order(2)
        void findsItReset(MockCDN cdn) {
            SEEN.add(new Seen("AttachedProbe", cdn));
            assertEquals(List.of(), cdn.faults());
            assertTrue(Math.abs(cdn.now() - Instant.now().getEpochSecond()) < 5);
            assertEquals(404, TestSupport.get(cdn.url() + "/attach-probe", Map.of()).status());
        }
    }
}
