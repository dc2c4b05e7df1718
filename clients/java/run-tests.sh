#!/usr/bin/env bash
# Builds and tests the Java helper with Debian's packages only (no Maven or Gradle downloads): javac, JUnit 5's
# console launcher and Jackson from /usr/share/java, against the real binary in $MOCKCDN_BINARY.
#   MOCKCDN_BINARY=$PWD/.build/debug/mockcdn clients/java/run-tests.sh
# Installs what is missing (as root, or with sudo), compiles into clients/java/build/, and exits non-zero on any
# failure. TESTCONTAINERS_CLASSPATH, when set (Testcontainers and its dependencies, as a class path), also
# compiles the Testcontainers subclass; Debian does not package Testcontainers.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
jars=/usr/share/java

: "${MOCKCDN_BINARY:?set MOCKCDN_BINARY to the mockcdn binary, e.g. MOCKCDN_BINARY=\$PWD/.build/debug/mockcdn}"
MOCKCDN_BINARY="$(cd "$(dirname "$MOCKCDN_BINARY")" && pwd)/$(basename "$MOCKCDN_BINARY")"
[ -x "$MOCKCDN_BINARY" ] || { echo "MOCKCDN_BINARY=$MOCKCDN_BINARY is not executable" >&2; exit 1; }
export MOCKCDN_BINARY
export MOCKCDN_FIXTURES="$repo/Fixtures/media"
# The suite starts its own servers; an inherited attach setting would point the extension elsewhere.
unset MOCKCDN_URL MOCKCDN_ADMIN_TOKEN

# Debian packages: a JDK with javac, JUnit 5 (console launcher), Jackson databind.
missing=()
command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
[ -f "$jars/junit-platform-console-standalone.jar" ] || missing+=(junit5)
[ -f "$jars/jackson-databind.jar" ] || missing+=(libjackson2-databind-java)
if [ "${#missing[@]}" -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "installing ${missing[*]}"
    apt_log="$(mktemp)"
    if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
            --no-install-recommends "${missing[@]}"; } >"$apt_log" 2>&1; then
        cat "$apt_log" >&2
        exit 1
    fi
    rm -f "$apt_log"
fi

json_cp="$jars/jackson-databind.jar:$jars/jackson-core.jar:$jars/jackson-annotations.jar"
junit_cp="$jars/junit-platform-console-standalone.jar"
build="$here/build"
rm -rf "$build"
mkdir -p "$build/main" "$build/test"

javac_flags=(--release 17 -encoding UTF-8 -Xlint:all -Werror)
javac "${javac_flags[@]}" -d "$build/main" -cp "$json_cp:$junit_cp" $(find "$here/src/main/java" -name '*.java')
if [ -n "${TESTCONTAINERS_CLASSPATH:-}" ]; then
    mkdir -p "$build/testcontainers"
    javac "${javac_flags[@]}" -Xlint:-processing -d "$build/testcontainers" \
        -cp "$build/main:$json_cp:$TESTCONTAINERS_CLASSPATH" $(find "$here/src/testcontainers/java" -name '*.java')
    echo "compiled the Testcontainers module"
else
    echo "Testcontainers module not compiled (no TESTCONTAINERS_CLASSPATH); its source is checked as text"
fi
javac "${javac_flags[@]}" -d "$build/test" -cp "$build/main:$json_cp:$junit_cp" $(find "$here/src/test/java" -name '*.java')

# The README's first example compiles as written (imports included): its first ```java block, as a user pastes it.
mkdir -p "$build/readme"
awk '/^```java$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' "$here/README.md" \
    > "$build/readme/AvatarTest.java"
grep -q '^class AvatarTest' "$build/readme/AvatarTest.java" || { echo "README.md: no AvatarTest example" >&2; exit 1; }
javac "${javac_flags[@]}" -d "$build/readme" -cp "$build/main:$json_cp:$junit_cp" "$build/readme/AvatarTest.java"
echo "compiled the README's example"

# The contract-tests guide's Java example compiles as written and runs with the suite: its first ```java block.
mkdir -p "$build/guide"
awk '/^```java$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' \
    "$repo/docs/guides/contract-tests.md" > "$build/guide/UploadEventsTest.java"
grep -q '^class UploadEventsTest' "$build/guide/UploadEventsTest.java" \
    || { echo "docs/guides/contract-tests.md: no UploadEventsTest example" >&2; exit 1; }
javac "${javac_flags[@]}" -d "$build/test" -cp "$build/main:$json_cp:$junit_cp" "$build/guide/UploadEventsTest.java"
echo "compiled the contract-tests guide's example"

# The tests read pom.xml, build.gradle.kts and src/ relative to this folder, as Gradle and Maven run them.
cd "$here"
set +e
java -jar "$junit_cp" --disable-banner --disable-ansi-colors --details=tree --fail-if-no-tests \
    --include-engine=junit-jupiter --class-path "$build/test:$build/main:$json_cp" --scan-class-path "$build/test" \
    --reports-dir "$build/test-reports" 2>&1 | tee "$build/launcher.log"
status=${PIPESTATUS[0]}
set -e
# The launcher's counts again as one plain line, for CI logs.
count() { sed -n "s/^\[ *\([0-9]*\) tests $1 *\]\$/\1/p" "$build/launcher.log"; }
echo "java: $(count successful) passed, $(count failed) failed"
exit "$status"
