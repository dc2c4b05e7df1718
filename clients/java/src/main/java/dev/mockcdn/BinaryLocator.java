package dev.mockcdn;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Finds the {@code mockcdn} executable: the one given, else {@code $MOCKCDN_BINARY}, else
 * {@code $MOCKCDN_HOME/bin/mockcdn} (the release tarball's layout, and the wheel's {@code mockcdn/_dist}), else
 * {@code mockcdn} on {@code PATH}. A variable that is set but names no executable is an error, not skipped, so a
 * typo never silently runs another binary.
 */
final class BinaryLocator {
    private BinaryLocator() {
    }

    /**
     * @param explicit the binary the caller named, or {@code null}
     * @param environment the variables to read ({@code System.getenv()} outside tests)
     * @throws MockCDNException when no executable is found
     */
    static Path find(Path explicit, Map<String, String> environment) {
        if (explicit != null) {
            return executable(explicit, "the mockcdn binary " + explicit);
        }
        String binary = environment.get("MOCKCDN_BINARY");
        if (binary != null && !binary.isEmpty()) {
            return executable(Path.of(binary), "MOCKCDN_BINARY=" + binary);
        }
        String home = environment.get("MOCKCDN_HOME");
        if (home != null && !home.isEmpty()) {
            return executable(Path.of(home, "bin", "mockcdn"), "MOCKCDN_HOME=" + home + ": bin/mockcdn");
        }
        String path = environment.getOrDefault("PATH", "");
        for (String folder : path.split(File.pathSeparator)) {
            if (!folder.isEmpty()) {
                Path candidate = Path.of(folder, "mockcdn");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new MockCDNException("no mockcdn binary: pass LaunchOptions.withBinary, set MOCKCDN_BINARY or "
                + "MOCKCDN_HOME (a release tarball's folder), or put mockcdn on PATH", "");
    }

    private static Path executable(Path candidate, String what) {
        if (!Files.isRegularFile(candidate) || !Files.isExecutable(candidate)) {
            throw new MockCDNException(what + " is not an executable file", "");
        }
        return candidate;
    }
}
