package dev.mockcdn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The Gradle and Maven builds shipped for users, read as text (neither tool can download anything here): the same
 * coordinates as {@link MockCDN}'s constants and the binary's release, and the same dependencies and versions.
 */
class BuildFilesTest {
    private static final String JACKSON = "com.fasterxml.jackson.core:jackson-databind";
    private static final String JUNIT_API = "org.junit.jupiter:junit-jupiter-api";
    private static final String TESTCONTAINERS = "org.testcontainers:testcontainers";

    @Test
    void mavenCoordinatesAndDependencies() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        Element project = pom.getDocumentElement();
        assertEquals(MockCDN.GROUP_ID, child(project, "groupId"));
        assertEquals(MockCDN.ARTIFACT_ID, child(project, "artifactId"));
        assertEquals(MockCDN.VERSION, child(project, "version"));
        assertEquals("17", child((Element) project.getElementsByTagName("properties").item(0), "maven.compiler.release"));

        Map<String, Element> dependencies = mavenDependencies(project);
        assertNull(child(dependencies.get(JACKSON), "scope")); // the one runtime dependency
        assertEquals("provided", child(dependencies.get(JUNIT_API), "scope"));
        assertEquals("provided", child(dependencies.get(TESTCONTAINERS), "scope"));
        assertEquals("true", child(dependencies.get(TESTCONTAINERS), "optional"));
        assertTrue(Files.readString(Path.of("pom.xml")).contains("<source>src/testcontainers/java</source>"));
    }

    @Test
    void gradleAgreesWithMaven() throws Exception {
        String gradle = Files.readString(Path.of("build.gradle.kts"));
        assertEquals(MockCDN.GROUP_ID, single(gradle, "group = \"([^\"]+)\""));
        assertEquals(MockCDN.VERSION, single(gradle, "version = \"([^\"]+)\""));
        assertEquals(MockCDN.ARTIFACT_ID, single(gradle, "artifactId = \"([^\"]+)\""));
        assertEquals(MockCDN.ARTIFACT_ID, single(Files.readString(Path.of("settings.gradle.kts")),
                "rootProject.name = \"([^\"]+)\""));
        assertEquals("17", single(gradle, "JavaLanguageVersion.of\\((\\d+)\\)"));
        assertTrue(gradle.contains("java.srcDir(\"src/testcontainers/java\")"));

        Map<String, Element> maven = mavenDependencies(DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(Path.of("pom.xml").toFile()).getDocumentElement());
        assertEquals(child(maven.get(JACKSON), "version"), single(gradle, "implementation\\(\"" + JACKSON + ":([^\"]+)\"\\)"));
        assertEquals(child(maven.get(TESTCONTAINERS), "version"),
                single(gradle, "compileOnly\\(\"" + TESTCONTAINERS + ":([^\"]+)\"\\)"));
        assertTrue(gradle.contains("compileOnly(\"" + JUNIT_API + ":"));
        assertEquals(single(Files.readString(Path.of("pom.xml")), "<artifactId>junit-bom</artifactId>\\s*<version>([^<]+)<"),
                single(gradle, "compileOnly\\(\"" + JUNIT_API + ":([^\"]+)\"\\)"));
    }

    @Test
    void versionIsTheBinarysRelease() throws IOException, InterruptedException {
        Process version = new ProcessBuilder(TestSupport.binary().toString(), "--version").start();
        String printed = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(version.waitFor(20, TimeUnit.SECONDS));
        assertEquals(MockCDN.VERSION, printed);
    }

    /** The pom's dependencies by {@code groupId:artifactId} (the dependencyManagement BOM import left out). */
    private static Map<String, Element> mavenDependencies(Element project) {
        Element dependencies = (Element) project.getElementsByTagName("dependencies").item(1);
        assertEquals("project", dependencies.getParentNode().getNodeName());
        Map<String, Element> byName = new LinkedHashMap<>();
        NodeList list = dependencies.getElementsByTagName("dependency");
        for (int index = 0; index < list.getLength(); index++) {
            Element dependency = (Element) list.item(index);
            byName.put(child(dependency, "groupId") + ":" + child(dependency, "artifactId"), dependency);
        }
        return byName;
    }

    /** The text of a direct child element, or {@code null} when there is none. */
    private static String child(Element parent, String name) {
        for (var node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element.getTextContent().strip();
            }
        }
        return null;
    }

    private static String single(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), "no match for " + regex);
        String found = matcher.group(1);
        assertFalse(matcher.find(), "more than one match for " + regex);
        return found;
    }
}
