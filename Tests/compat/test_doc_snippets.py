"""Every code block in README.md, docs/*.md and docs/guides/*.md is run or checked here, so the docs cannot drift from
the code. One test case per block, named FILE:LINE (the line of its opening fence).

The conventions (docs/contributing.md, "Code blocks in the docs", says the same):

- Every block names its language after the fence. A block that cannot run here carries, on the line right
  above its fence, ``<!-- snippet: not run (REASON) -->``; a marker without a reason, or one that sits above
  no block, fails. A block that is neither marked nor of a kind below fails.
- ``sh`` and ``bash``: run by ``bash -euo pipefail`` in the repository root, against a MockCDN this test
  started on a free port (``mockcdn serve --port 0`` with the fixtures). ``127.0.0.1:8080`` and
  ``localhost:8080`` become that port; ports 8081-8089 and 5000, for servers the block starts itself, become
  free ports (in ``127.0.0.1:PORT``, ``localhost:PORT``, ``--port PORT`` and ``-p PORT``; one free port per
  number); ``.build/release/mockcdn`` and ``.build/debug/mockcdn`` become the
  binary under test, whose folder is first on ``PATH`` (so a bare ``mockcdn`` is that binary too), followed
  by this Python's folder (``python3``, ``pip`` and the venv's tools); a line ``make serve &`` is dropped,
  since the server already runs. ``AWS_*`` variables are removed and the AWS config files are /dev/null, so
  AWS tooling runs with its defaults; ``mktemp`` makes its files in the test's own folder (``TMPDIR``). The
  block must exit 0 within 60 s; what it leaves running in the background is stopped when it ends.
- ``python``: a block that defines ``test_`` functions runs under pytest in a folder of its own (the
  ``mockcdn`` plugin's fixtures start the binary under test: ``MOCKCDN_BINARY``); any other block runs as a
  script against a server started for it, rewritten as ``sh`` blocks are. ``clients/python`` comes first on
  ``PYTHONPATH``, so the helper is this checkout's.
- ``js``: run by ``node --input-type=module`` in the repository root, against a server started for it,
  rewritten as ``sh`` blocks are, with ``MOCKCDN_BINARY`` set.
- ``swift``: must be, line for line, an excerpt of a Swift file under ``Tests/ExampleConsumer/`` between
  ``// LABEL: begin`` and ``// LABEL: end`` (the excerpt loses the marker's indentation), where LABEL is
  ``README`` or ``README shared`` for README.md, and the guide's path (``docs/guides/NAME.md``) for a guide.
  ``make test-consumer`` compiles and runs those files, and its ``documentsShowThisCode`` test checks the
  other direction; so does this test.
- ``yaml``: a config file. It is written to ``mockcdn.yaml`` in an empty folder, where the PEM files its
  apps' ``keys`` name are made first (a new RSA-2048 key for ``private_key``, the public half of one for
  ``public_key``) and the ``fixtures`` folder it names is created; ``mockcdn serve --config mockcdn.yaml
  --port 0`` must then come up serving the default app and every app the file lists, and stop cleanly.
- ``json``: an answer. It must parse, and the block above it (the nearest fenced block before it) must be a
  runnable one; the last JSON object or array that block printed must have the same shape: the same keys at
  every level (lists compared by their first items), whatever the values.
- ``text``: the ready lines (a block starting ``mockcdn ready on``) are compared with what ``mockcdn serve``
  prints, port aside; the runtime-packages block under its generator's marker with what
  ``packaging/runtime_packages.py`` makes; any other ``text`` block is an answer of the block above it: its
  last lines must be that output's last lines, with the same ``key=`` names on each line, or, on a line
  without any, the same text.

From an install: with ``MOCKCDN_SNIPPETS_INSTALL`` naming an unpacked release tarball (``make dist-check``
sets it), the documents are the ones the tarball ships (``share/mockcdn/README.md`` and ``docs/``), the binary
is its ``bin/mockcdn`` (first on ``PATH``), the helpers are its ``share/mockcdn/clients``, and every block runs
in an empty folder of its own instead of the repository root: samples are named by ``mockcdn fixtures``,
never by a path of the checkout. A ``js`` block imports the helper as ``mockcdn`` (as after ``npm install
PATH``) in both places.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_doc_snippets.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import launch
from support import BINARY, REPO, eventually

# An unpacked release tarball whose docs, binary and helpers are run instead of the checkout's.
INSTALL = Path(os.environ["MOCKCDN_SNIPPETS_INSTALL"]).resolve() if os.environ.get("MOCKCDN_SNIPPETS_INSTALL") else None
if INSTALL:
    BINARY = INSTALL / "bin" / "mockcdn"
# Where README.md, docs/ and clients/ are read from.
SOURCE = INSTALL / "share" / "mockcdn" if INSTALL else REPO
DOCUMENTS = [SOURCE / "README.md", *sorted((SOURCE / "docs").glob("*.md")),
             *sorted((SOURCE / "docs" / "guides").glob("*.md"))]
assert (SOURCE / "README.md").is_file() and len(DOCUMENTS) > 1, f"no README.md and docs/guides/ in {SOURCE}"
CONSUMER = REPO / "Tests" / "ExampleConsumer"
MARKER = re.compile(r"^<!-- snippet: (.*?) -->$")
NOT_RUN = re.compile(r"^not run \((.*\S.*)\)$")
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([A-Za-z0-9_+-]*)\s*$")
BLOCK_SECONDS = 60


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    marker: str | None  # the text of a `<!-- snippet: ... -->` right above the fence

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(SOURCE)}:{self.line}"


def blocks_of(path: Path) -> tuple[list[Block], list[str]]:
    """The fenced blocks of a Markdown file, and its problems: markers above no block, unclosed fences."""
    lines = path.read_text().splitlines()
    blocks, problems = [], []
    index = 0
    while index < len(lines):
        line = lines[index]
        fence = FENCE.match(line)
        if not fence:
            if MARKER.match(line) and not (index + 1 < len(lines) and FENCE.match(lines[index + 1])):
                problems.append(f"{path.relative_to(SOURCE)}:{index + 1}: a snippet marker right above no block")
            index += 1
            continue
        close = next((end for end in range(index + 1, len(lines)) if lines[end].strip() == fence.group(1)), None)
        if close is None:
            problems.append(f"{path.relative_to(SOURCE)}:{index + 1}: a fence that is never closed")
            break
        above = MARKER.match(lines[index - 1]) if index > 0 else None
        blocks.append(Block(path, index + 1, fence.group(2).lower(), "\n".join(lines[index + 1:close]) + "\n",
                            above.group(1) if above else None))
        index = close + 1
    return blocks, problems


ALL_BLOCKS = [block for path in DOCUMENTS for block in blocks_of(path)[0]]


def previous_block(block: Block) -> Block | None:
    before = [other for other in ALL_BLOCKS if other.path == block.path and other.line < block.line]
    return before[-1] if before else None


# -- running blocks ----------------------------------------------------------------------------------------

@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


def environment(extra: dict | None = None) -> dict:
    """The environment blocks run in: the binary under test first on PATH, AWS tooling at its defaults."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("AWS_")}
    env.update(AWS_CONFIG_FILE="/dev/null", AWS_SHARED_CREDENTIALS_FILE="/dev/null",
               MOCKCDN_BINARY=str(BINARY),
               PATH=os.pathsep.join([str(BINARY.parent), str(Path(sys.executable).parent), env.get("PATH", "")]),
               PYTHONPATH=os.pathsep.join(filter(None, [str(SOURCE / "clients" / "python"), env.get("PYTHONPATH")])))
    env.update(extra or {})
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


EXTRA_PORT = re.compile(r"(127\.0\.0\.1:|localhost:|--port |-p )(808[1-9]|5000)\b")


def rewrite(code: str, url: str | None) -> str:
    """The block as it runs here: the port of the server started for it, free ports for the servers it starts
    itself, the binary under test."""
    if url:
        port = url.rsplit(":", 1)[1]
        code = code.replace("127.0.0.1:8080", f"127.0.0.1:{port}").replace("localhost:8080", f"localhost:{port}")
    ports: dict[str, int] = {}
    code = EXTRA_PORT.sub(lambda match: match.group(1) + str(ports.setdefault(match.group(2), free_port())), code)
    # One pass, so a binary that itself lives under .build/ is not rewritten again.
    code = re.sub(r"(?<![\w/])\.build/(?:release|debug)/mockcdn", lambda _: str(BINARY), code)
    started = ("make serve &", "mockcdn serve &")
    return "\n".join(":" if line.split("#", 1)[0].strip() in started else line for line in code.splitlines()) + "\n"


def here(tmp: Path) -> Path:
    """Where a block runs: the repository root, or from an install an empty folder of its own."""
    if not INSTALL:
        return REPO
    folder = tmp / "here"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def session_alive(session: int) -> bool:
    """Whether a process of the session (its process group) still runs; zombies do not count."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == session:
            return True
    return False


def stop_session(process: subprocess.Popen) -> None:
    """SIGTERM to what is left of the block's session (servers it started in the background), SIGKILL to what
    outlives a deadline; then reaps the block's own process."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        # A server stops at once, or within its 10 s graceful shutdown: 20 s is a deadline, no margin.
        try:
            eventually(lambda: not session_alive(process.pid), timeout=20, message="the block's processes live on")
            break
        except AssertionError:
            continue
    process.wait(timeout=20)


def run_process(argv: list[str], cwd: Path, tmp: Path, stdin: str | None = None, env: dict | None = None) -> Run:
    """Runs `argv` in a session of its own, output to files (a background child keeps no pipe open), and
    stops whatever is left of that session when it ends."""
    out, err = tmp / "stdout", tmp / "stderr"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                                   stdout=stdout, stderr=stderr, text=True,
                                   env=env or environment({"TMPDIR": str(tmp)}), start_new_session=True)
        try:
            if stdin is not None:
                process.stdin.write(stdin)
                process.stdin.close()
            code = process.wait(timeout=BLOCK_SECONDS)
        except subprocess.TimeoutExpired:
            code = None
        finally:
            stop_session(process)
    run = Run(code if code is not None else -1, out.read_text(), err.read_text())
    assert code is not None, f"still running after {BLOCK_SECONDS} s\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}"
    return run


RUNS: dict[str, Run] = {}


def run(block: Block, tmp: Path) -> Run:
    """Runs a runnable block once per session (an answer block below it reads the same run)."""
    if block.name in RUNS:
        return RUNS[block.name]
    tmp.mkdir(parents=True, exist_ok=True)
    if block.language == "python" and re.search(r"^(async )?def test_", block.code, re.M):
        (tmp / "pytest.ini").write_text("[pytest]\n")
        test_file = tmp / f"test_snippet_{block.line}.py"
        test_file.write_text(block.code)
        result = run_process([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp),
                              str(test_file)], here(tmp), tmp)
    else:
        with launch(binary=BINARY) as server:
            code = rewrite(block.code, server.url)
            if block.language in ("sh", "bash"):
                result = run_process(["bash", "-euo", "pipefail", "-c", code], here(tmp), tmp)
            elif block.language == "python":
                script = tmp / f"snippet_{block.line}.py"
                script.write_text(code)
                result = run_process([sys.executable, str(script)], here(tmp), tmp)
            else:
                # Beside a node_modules/mockcdn that is the helper, as `npm install PATH` makes it.
                script = tmp / f"snippet_{block.line}.mjs"
                script.write_text(code)
                (tmp / "node_modules").mkdir(exist_ok=True)
                (tmp / "node_modules" / "mockcdn").symlink_to(SOURCE / "clients" / "js", target_is_directory=True)
                result = run_process(["node", str(script)], here(tmp), tmp)
    RUNS[block.name] = result
    return result


RUNNABLE = ("sh", "bash", "python", "js")


def check_ran(block: Block, result: Run) -> None:
    assert result.code == 0, (f"{block.name} exited {result.code}\n--- stdout\n{result.stdout[-3000:]}"
                              f"\n--- stderr\n{result.stderr[-3000:]}")


# -- checks of blocks that are not run -----------------------------------------------------------------------

def swift_excerpts() -> list[tuple[Path, str, str]]:
    """(file, label, excerpt) for every `// LABEL: begin` ... `// LABEL: end` in the ExampleConsumer sources,
    the excerpt without the marker's indentation, as the Swift test reads it."""
    found = []
    for source in sorted(CONSUMER.rglob("*.swift")):
        if ".build" in source.parts:
            continue
        lines = source.read_text().split("\n")
        for index, line in enumerate(lines):
            begin = re.match(r"^( *)// (.+): begin$", line)
            if not begin:
                continue
            indent, label = len(begin.group(1)), begin.group(2)
            end = next((n for n in range(index + 1, len(lines)) if lines[n].endswith(f"// {label}: end")), None)
            assert end is not None, f"{source.relative_to(REPO)}:{index + 1}: `// {label}: begin` has no end"
            found.append((source, label, "\n".join(row[indent:] for row in lines[index + 1:end])))
    return found


def label_document(label: str) -> Path:
    return SOURCE / "README.md" if label in ("README", "README shared") else SOURCE / label


def check_swift(block: Block) -> None:
    """The block is an excerpt marked for its document, after `import` lines its source file has too."""
    lines = block.code.rstrip("\n").split("\n")
    imports = []
    while lines and (lines[0].startswith("import ") or not lines[0].strip()):
        if lines[0].strip():
            imports.append(lines[0].split()[1])
        lines.pop(0)
    body = "\n".join(lines)
    for source, label, excerpt in swift_excerpts():
        if label_document(label) == block.path and excerpt == body:
            imported = re.findall(r"^import (\w+)", source.read_text(), re.M)
            assert set(imports) <= set(imported), f"{block.name}: {source.name} does not import {imports}"
            return
    pytest.fail(f"{block.name}: this Swift is not an excerpt of Tests/ExampleConsumer marked for "
                f"{block.path.relative_to(SOURCE)}; copy it there between `// LABEL: begin` and `// LABEL: end`, "
                f"or copy the marked excerpt here as it is")


def make_keys(folder: Path, config: dict) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    for app in config.get("apps") or []:
        for key in app.get("keys") or []:
            pair = rsa.generate_private_key(public_exponent=65537, key_size=2048)
            for field, pem in (("private_key", pair.private_bytes(serialization.Encoding.PEM,
                                                                  serialization.PrivateFormat.PKCS8,
                                                                  serialization.NoEncryption())),
                               ("public_key", pair.public_key().public_bytes(
                                   serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))):
                if key.get(field):
                    target = folder / key[field]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(pem)


def check_yaml(block: Block, tmp: Path) -> None:
    import yaml

    config = yaml.safe_load(block.code)
    assert isinstance(config, dict) and set(config) <= {"server", "apps"}, (
        f"{block.name}: a yaml block is a MockCDN config file (server:, apps:); mark any other yaml")
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "mockcdn.yaml").write_text(block.code)
    make_keys(tmp, config)
    fixtures = (config.get("server") or {}).get("fixtures")
    if fixtures and fixtures != "none":
        (tmp / fixtures).mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen([str(BINARY), "serve", "--config", "mockcdn.yaml", "--port", "0"], cwd=tmp,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment())
    try:
        lines = []
        while not (lines and lines[-1].startswith("apps=")):
            line = process.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
    finally:
        process.send_signal(signal.SIGTERM)
        # It exits at once, or within its 10 s graceful shutdown: 60 s is a deadline.
        code = process.wait(timeout=60)
    assert lines and lines[0].startswith("mockcdn ready on"), f"{block.name}: {lines}\n{process.stderr.read()}"
    apps = [app["app_id"] for app in config.get("apps") or []]
    served = lines[-1].split()[0].removeprefix("apps=").split(",")
    assert served == (apps if apps[:1] == ["demo"] else ["demo", *[a for a in apps if a != "demo"]]), lines
    assert code == 0, f"{block.name}: the server exited {code} on SIGTERM"


def same_shape(documented, actual, where="answer") -> None:
    if isinstance(documented, dict):
        assert isinstance(actual, dict), f"{where}: an object documented, {type(actual).__name__} answered"
        assert set(documented) == set(actual), (
            f"{where}: keys documented {sorted(documented)}, answered {sorted(actual)}")
        for key in documented:
            same_shape(documented[key], actual[key], f"{where}.{key}")
    elif isinstance(documented, list):
        assert isinstance(actual, list), f"{where}: a list documented, {type(actual).__name__} answered"
        if documented and actual:
            same_shape(documented[0], actual[0], f"{where}[0]")


def last_json(output: str):
    """The last JSON object or array in `output`, which may hold other text, and JSON values printed without a
    newline between them (curl adds none)."""
    decoder, found, index = json.JSONDecoder(), None, 0
    while (starts := [i for i in (output.find("{", index), output.find("[", index)) if i >= 0]):
        try:
            value, index = decoder.raw_decode(output, min(starts))
            found = value
        except ValueError:
            index = min(starts) + 1
    assert found is not None, f"no JSON in the output:\n{output[-2000:]}"
    return found


def producer(block: Block) -> Block:
    above = previous_block(block)
    assert above is not None and above.language in RUNNABLE and above.marker is None, (
        f"{block.name}: an answer block must follow the runnable block whose output it shows (or be marked)")
    return above


def keys_of(line: str) -> list[str]:
    return re.findall(r"(?:^|\s)([A-Za-z_][\w.-]*)=", line)


def check_text(block: Block, tmp: Path) -> None:
    lines = block.code.rstrip("\n").splitlines()
    previous = block.path.read_text().splitlines()[block.line - 2] if block.line > 1 else ""
    spec = importlib.util.spec_from_file_location("runtime_packages", REPO / "packaging" / "runtime_packages.py")
    packages = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = packages  # its dataclass looks its module up there
    spec.loader.exec_module(packages)
    if previous == packages.BEGIN:
        assert block.code.rstrip("\n") == packages.install_text(), "run `python3 packaging/runtime_packages.py readme`"
        return
    if lines and lines[0].startswith("mockcdn ready on"):
        process = subprocess.Popen([str(BINARY), "serve", "--port", "0"], cwd=here(tmp), stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True, env=environment())
        try:
            printed = [process.stdout.readline().rstrip("\n") for _ in lines]
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)  # at once, or within the 10 s graceful shutdown: a deadline, no margin
        port = printed[0].rsplit(":", 1)[-1]
        assert [line.replace("127.0.0.1:8080", f"127.0.0.1:{port}") for line in lines] == printed, printed
        return
    output = run(producer(block), tmp).stdout.rstrip("\n").splitlines()
    assert len(output) >= len(lines), f"{block.name}: {len(lines)} lines documented, {len(output)} printed"
    for documented, printed in zip(lines, output[-len(lines):]):
        if keys_of(documented):
            assert keys_of(documented) == keys_of(printed), f"{block.name}: {documented!r} vs {printed!r}"
        else:
            assert documented == printed, f"{block.name}: {documented!r} vs {printed!r}"


# -- the cases -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[block.name for block in ALL_BLOCKS])
def test_block(block: Block, tmp_path: Path):
    if block.marker is not None:
        assert NOT_RUN.match(block.marker), (
            f"{block.name}: a marker reads `<!-- snippet: not run (REASON) -->`, with a reason; got {block.marker!r}")
        return
    language = block.language
    if language in RUNNABLE:
        check_ran(block, run(block, tmp_path))
    elif language == "swift":
        check_swift(block)
    elif language == "yaml":
        check_yaml(block, tmp_path)
    elif language == "json":
        documented = json.loads(block.code)
        above = producer(block)
        result = run(above, tmp_path)
        check_ran(above, result)
        same_shape(documented, last_json(result.stdout), block.name)
    elif language == "text":
        check_text(block, tmp_path)
    else:
        pytest.fail(f"{block.name}: a `{language or 'plain'}` block cannot be run here; give it a language this "
                    f"test runs, or mark it `<!-- snippet: not run (REASON) -->`")


def test_documents_are_well_formed():
    problems = [problem for path in DOCUMENTS for problem in blocks_of(path)[1]]
    assert not problems, "\n".join(problems)


def test_every_swift_excerpt_is_shown_where_its_label_says():
    """The other direction of the `swift` rule: each marked excerpt appears, as it is, in its document."""
    for source, label, excerpt in swift_excerpts():
        document = label_document(label)
        assert document.exists(), f"{source.relative_to(REPO)}: `// {label}: begin` names no document"
        assert excerpt in document.read_text(), (
            f"{document.relative_to(SOURCE)} does not show the `{label}` excerpt of {source.relative_to(REPO)} as it is")


def anchors(path: Path) -> set[str]:
    """The anchors GitHub makes for a Markdown file's headings."""
    found = set()
    in_fence = False
    for line in path.read_text().splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (heading := re.match(r"^#{1,6} (.*)$", line)):
            found.add(re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-"))
    return found


def test_links_between_the_documents_resolve():
    """Every relative link of the README and the docs names a file that exists, and a heading in it. From an
    install, a link into the source repository (a benchmark's results, an example, a source file), which the
    tarball does not ship, is checked against the checkout; links between the shipped docs and to the helpers
    resolve in the install itself."""
    broken = []
    for path in DOCUMENTS:
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            resolved = (path.parent / file).resolve() if file else path
            if INSTALL and not resolved.exists() and resolved.is_relative_to(SOURCE.resolve()):
                repository = REPO / resolved.relative_to(SOURCE.resolve())
                shipped = ("docs", "clients", "README.md", "openapi.yaml")
                if not repository.relative_to(REPO).parts[0] in shipped:
                    resolved = repository
            if not resolved.exists():
                broken.append(f"{path.relative_to(SOURCE)}: {target} (no such file)")
            elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                broken.append(f"{path.relative_to(SOURCE)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)
