package dev.mockcdn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The extension's coverage gate ({@code mockcdn.report}, {@code mockcdn.report.failUnder},
 * {@code mockcdn.report.surfaces}) as JUnit runs it: probe classes launched in runs of their own (the Launcher API)
 * with those configuration parameters, and once through the console launcher, whose exit status CI reads.
 */
class CoverageGateTest {
    private static final String MISSING = "/demo/fixtures/no-such-file.png";

    @Test
    void theFileHoldsTheSumOfEveryTestAcrossResetsAndServers(@TempDir Path folder) throws IOException {
        Path file = folder.resolve("coverage.json");
        TestExecutionSummary summary = run(Map.of(RunCoverage.REPORT, file.toString()), TwoReadsProbe.class,
                SecondServerProbe.class);
        assertEquals(List.of(), failures(summary));
        assertEquals(3, summary.getTestsSucceededCount());
        // The server's own report JSON (what `mockcdn report --from FILE` reads), counting all three tests: the read
        // before the reset, the one after it, and the second class's on a server of its own.
        Map<String, Object> report = map(Json.read(Files.readString(file)));
        assertTrue(report.keySet().containsAll(List.of("since", "entries", "rows_total", "rows_covered", "percent",
                "surfaces")), report.keySet().toString());
        assertEquals(2, count(report, "media.status.200"));
        assertEquals(1, count(report, "media.status.404"));
        assertEquals(3, ((Number) report.get("entries")).intValue());
        assertEquals(RunCoverage.SURFACE_IDS, surfaces(report).stream().map(surface -> surface.get("id")).toList());
    }

    @Test
    void theFileIsInTheFormatItsExtensionNames(@TempDir Path folder) throws IOException {
        Path markdown = folder.resolve("coverage.md");
        assertEquals(List.of(), failures(run(Map.of(RunCoverage.REPORT, markdown.toString()), TwoReadsProbe.class)));
        String text = Files.readString(markdown);
        assertTrue(text.startsWith("# MockCDN contract coverage"), text);
        assertTrue(text.contains("from 2 journal entries"), text);
        Path junit = folder.resolve("coverage.xml");
        assertEquals(List.of(), failures(run(Map.of(RunCoverage.REPORT, junit.toString()), TwoReadsProbe.class)));
        String xml = Files.readString(junit);
        assertTrue(xml.startsWith("<?xml") && xml.contains("<testsuite") && xml.contains("media.status.404"), xml);
    }

    @Test
    void aGateAboveTheRunsShareFailsTheRunSayingSo(@TempDir Path folder) throws IOException {
        Path file = folder.resolve("coverage.json");
        TestExecutionSummary summary = run(Map.of(RunCoverage.REPORT, file.toString(), RunCoverage.FAIL_UNDER, "50"),
                TwoReadsProbe.class);
        assertEquals(2, summary.getTestsSucceededCount()); // every test passed, and still the run failed
        double percent = ((Number) map(Json.read(Files.readString(file))).get("percent")).doubleValue();
        assertTrue(percent > 0 && percent < 10, String.valueOf(percent));
        assertEquals(List.of("JUnit Jupiter: java.lang.AssertionError: MockCDN contract coverage: " + percent
                + "% of rows covered, below mockcdn.report.failUnder 50"), failures(summary));
    }

    @Test
    void aGateAtOrBelowTheRunsSharePasses() {
        // No file: the gate alone keeps the reports.
        TestExecutionSummary summary = run(Map.of(RunCoverage.FAIL_UNDER, "1.5"), TwoReadsProbe.class);
        assertEquals(List.of(), failures(summary));
        assertEquals(2, summary.getTestsSucceededCount());
    }

    @Test
    void surfacesRestrictTheShareTheGateCounts() {
        // 3 rows of 77 are covered: below 10% of every row, but 2 of media's 15 rows are (13.3%).
        Map<String, String> gate = Map.of(RunCoverage.FAIL_UNDER, "10");
        assertEquals(1, failures(run(gate, TwoReadsProbe.class)).size());
        assertEquals(List.of(), failures(run(with(gate, RunCoverage.SURFACES, "media"), TwoReadsProbe.class)));
        assertEquals(List.of("JUnit Jupiter: java.lang.AssertionError: MockCDN contract coverage: 0.0% of rows of "
                + "stream,s3 covered, below mockcdn.report.failUnder 10"),
                failures(run(with(gate, RunCoverage.SURFACES, " stream, s3 "), TwoReadsProbe.class)));
    }

    @Test
    void anInvalidSettingFailsTheClassNamingIt(@TempDir Path folder) {
        String refused = "CoverageGateTest$TwoReadsProbe: "
                + "org.junit.jupiter.api.extension.ExtensionConfigurationException: ";
        for (String mark : List.of("101", "-1", "abc", "", "NaN")) {
            TestExecutionSummary summary = run(Map.of(RunCoverage.FAIL_UNDER, mark), TwoReadsProbe.class);
            assertEquals(List.of(refused + "mockcdn.report.failUnder must be a number from 0 to 100, not '" + mark
                    + "'"), failures(summary));
            assertEquals(0, summary.getTestsStartedCount());
        }
        for (String surfaces : List.of("", " , ")) {
            assertEquals(List.of(refused + "mockcdn.report.surfaces names no surface; name one or more, "
                    + "comma-separated: stream,cometchat,media,s3,cloudfront,control"),
                    failures(run(Map.of(RunCoverage.SURFACES, surfaces), TwoReadsProbe.class)));
        }
        assertEquals(List.of(refused + "mockcdn.report.surfaces: disk is not a surface; the surfaces are stream, "
                + "cometchat, media, s3, cloudfront, control"),
                failures(run(Map.of(RunCoverage.SURFACES, "media,disk"), TwoReadsProbe.class)));
        // A file that cannot be written fails the class whose server closed, naming the setting.
        Path nowhere = folder.resolve("missing-folder").resolve("coverage.json");
        List<String> unwritable = failures(run(Map.of(RunCoverage.REPORT, nowhere.toString()), TwoReadsProbe.class));
        assertEquals(1, unwritable.size(), unwritable.toString());
        assertTrue(unwritable.get(0).startsWith("CoverageGateTest$TwoReadsProbe: dev.mockcdn.MockCDNException: "
                + "mockcdn.report=" + nowhere + ": the coverage report could not be written"), unwritable.get(0));
    }

    @Test
    void theConsoleLauncherExitsNonZeroBelowTheGateAndReadsMockcdnReport(@TempDir Path folder) throws Exception {
        Path launcher;
        try {
            launcher = location(Class.forName("org.junit.platform.console.ConsoleLauncher"));
        } catch (ClassNotFoundException absent) {
            assumeTrue(false, "JUnit's console launcher is not on the class path (run-tests.sh runs with it)");
            return;
        }
        String classPath = Arrays.stream(new Class<?>[] {CoverageGateTest.class, MockCDN.class,
                com.fasterxml.jackson.databind.ObjectMapper.class, com.fasterxml.jackson.core.JsonFactory.class,
                com.fasterxml.jackson.annotation.JsonProperty.class})
                .map(CoverageGateTest::location).map(Path::toString).distinct()
                .collect(Collectors.joining(File.pathSeparator));
        Path file = folder.resolve("coverage.json");
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-D" + RunCoverage.FAIL_UNDER + "=50", "-jar", launcher.toString(), "--disable-banner",
                "--disable-ansi-colors", "--details=tree", "--include-engine=junit-jupiter", "--class-path", classPath,
                "--select-class", TwoReadsProbe.class.getName(),
                "--config", ExtensionTest.PROBE_PARAMETER + "=true")
                .directory(folder.toFile())
                .redirectErrorStream(true);
        builder.environment().put(RunCoverage.REPORT_VARIABLE, file.toString());
        builder.environment().remove("MOCKCDN_URL");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(1, process.exitValue(), output);
        assertTrue(output.contains("[         2 tests successful      ]"), output);
        assertTrue(output.contains("MockCDN contract coverage: ") && output.contains(
                "% of rows covered, below mockcdn.report.failUnder 50"), output);
        assertEquals(2, ((Number) map(Json.read(Files.readString(file))).get("entries")).intValue());
    }

    @Test
    void thePercentOfSurfacesRoundsHalvesUpAsTheServerDoes() {
        Map<String, Object> report = Map.of("percent", 4.2, "surfaces", List.of(
                Map.of("id", "stream", "rows_total", 16, "rows_covered", 1),
                Map.of("id", "media", "rows_total", 8, "rows_covered", 0),
                Map.of("id", "s3", "rows_total", 0, "rows_covered", 0)));
        assertEquals(4.2, RunCoverage.percent(report, null));
        assertEquals(6.3, RunCoverage.percent(report, List.of("stream"))); // 6.25
        assertEquals(4.2, RunCoverage.percent(report, List.of("stream", "media"))); // 1 of 24: 4.1666
        assertEquals(100.0, RunCoverage.percent(report, List.of("s3"))); // no rows: nothing left uncovered
    }

    /** Runs the probe classes in a launch of their own with the given configuration parameters. */
    private static TestExecutionSummary run(Map<String, String> parameters, Class<?>... probes) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(Arrays.stream(probes).map(DiscoverySelectors::selectClass).toList())
                .configurationParameter(ExtensionTest.PROBE_PARAMETER, "true")
                .configurationParameters(parameters)
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        return listener.getSummary();
    }

    /** Each failure as {@code DISPLAY NAME: EXCEPTION}. */
    private static List<String> failures(TestExecutionSummary summary) {
        return summary.getFailures().stream()
                .map(failure -> failure.getTestIdentifier().getDisplayName() + ": " + failure.getException())
                .toList();
    }

    private static Map<String, String> with(Map<String, String> parameters, String key, String value) {
        Map<String, String> more = new HashMap<>(parameters);
        more.put(key, value);
        return more;
    }

    private static List<Map<String, Object>> surfaces(Map<String, Object> report) {
        List<Map<String, Object>> surfaces = new ArrayList<>();
        for (Object surface : (List<?>) report.get("surfaces")) {
            surfaces.add(map(surface));
        }
        return surfaces;
    }

    /** A row's count in a JSON report. */
    private static int count(Map<String, Object> report, String row) {
        for (Map<String, Object> surface : surfaces(report)) {
            for (Object item : (List<?>) surface.get("rows")) {
                Map<String, Object> entry = map(item);
                if (row.equals(entry.get("id"))) {
                    return ((Number) entry.get("count")).intValue();
                }
            }
        }
        throw new AssertionError("no row " + row);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    /** The folder or jar a class was loaded from. */
    private static Path location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException error) {
            throw new IllegalStateException(error);
        }
    }

    /** A read of a fixture with a FAT, as an app would send it. */
    private static int read(MockCDN cdn, String path) {
        return TestSupport.get(cdn.url() + path, Map.of("fat", cdn.fileAccessToken("alice", 60))).status();
    }

    /** Two tests on one server, reset between them: each covers rows the other does not. */
    @ExtendWith(ExtensionTest.OnlyInProbeRuns.class)
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class TwoReadsProbe {
        @RegisterExtension
        static final MockCDNExtension MOCKCDN =
                new MockCDNExtension(TestSupport.SHARED, MockCDNExtension.Sharing.CLASS);

        @Test
        @Order(1)
        void readsTheSample(MockCDN cdn) {
            assertEquals(200, read(cdn, TestSupport.SAMPLE));
        }

        @Test
        @Order(2)
        void readsAMissingFile(MockCDN cdn) {
            assertEquals(404, read(cdn, MISSING));
            assertEquals(1, cdn.requests().size()); // the reset emptied the journal of the first test's read
        }
    }

    /** Another class, so another server of its own. */
    @ExtendWith(ExtensionTest.OnlyInProbeRuns.class)
    static class SecondServerProbe {
        @RegisterExtension
        static final MockCDNExtension MOCKCDN =
                new MockCDNExtension(TestSupport.SHARED, MockCDNExtension.Sharing.CLASS);

        @Test
        void readsTheSample(MockCDN cdn) {
            assertEquals(200, read(cdn, TestSupport.SAMPLE));
        }
    }
}
