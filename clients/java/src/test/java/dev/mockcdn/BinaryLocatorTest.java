package dev.mockcdn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The order the binary is looked up in: given, MOCKCDN_BINARY, MOCKCDN_HOME/bin/mockcdn, PATH. */
class BinaryLocatorTest {
    @TempDir
    Path folder;

    @Test
    void eachSourceWinsOverTheNext() throws IOException {
        Path given = executable("given/mockcdn");
        Path variable = executable("variable/mockcdn");
        Path home = folder.resolve("release");
        Path homeBinary = executable("release/bin/mockcdn");
        Path onPath = executable("path/mockcdn");
        Map<String, String> all = Map.of("MOCKCDN_BINARY", variable.toString(), "MOCKCDN_HOME", home.toString(),
                "PATH", "/nonexistent:" + onPath.getParent());

        assertEquals(given, BinaryLocator.find(given, all));
        assertEquals(variable, BinaryLocator.find(null, all));
        assertEquals(homeBinary, BinaryLocator.find(null, Map.of("MOCKCDN_HOME", home.toString(), "PATH", all.get("PATH"))));
        assertEquals(onPath, BinaryLocator.find(null, Map.of("PATH", all.get("PATH"))));
    }

    @Test
    void aVariableNamingNoExecutableIsAnError() throws IOException {
        Path notExecutable = Files.writeString(folder.resolve("mockcdn"), "#!/bin/sh\n");
        MockCDNException variable = assertThrows(MockCDNException.class,
                () -> BinaryLocator.find(null, Map.of("MOCKCDN_BINARY", notExecutable.toString())));
        assertTrue(variable.getMessage().startsWith("MOCKCDN_BINARY=" + notExecutable), variable.getMessage());

        MockCDNException home = assertThrows(MockCDNException.class,
                () -> BinaryLocator.find(null, Map.of("MOCKCDN_HOME", folder.toString())));
        assertTrue(home.getMessage().contains("MOCKCDN_HOME=" + folder + ": bin/mockcdn"), home.getMessage());
    }

    @Test
    void nothingFoundNamesEveryWayToGiveOne() {
        MockCDNException none = assertThrows(MockCDNException.class,
                () -> BinaryLocator.find(null, Map.of("PATH", folder.toString())));
        assertTrue(none.getMessage().contains("MOCKCDN_BINARY") && none.getMessage().contains("MOCKCDN_HOME")
                && none.getMessage().contains("PATH"), none.getMessage());
    }

    private Path executable(String relative) throws IOException {
        Path path = folder.resolve(relative);
        Files.createDirectories(path.getParent());
        Files.writeString(path, "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
        return path;
    }
}
