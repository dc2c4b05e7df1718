"""The pytest plugin in a child pytest: attach mode (``MOCKCDN_URL``) and the reset before each test."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator

import pytest

from conftest import FIXTURES
from mockcdn import MockCDN
from mockcdn.process import find_binary
from mockcdn.pytest_plugin import SURFACES

CHILD_TESTS = '''
import os, urllib.error, urllib.request

def test_first(mockcdn_server, mockcdn):
    assert mockcdn is mockcdn_server
    assert mockcdn.url == os.environ["MOCKCDN_URL"].rstrip("/")
    assert mockcdn.process is None  # attached, not started
    mockcdn.add_fault({"action": {"status": 418}})
    mockcdn.advance(86_400)

def test_second(mockcdn):
    assert mockcdn.faults() == []  # reset before this test
    assert abs(mockcdn.now() - __import__("time").time()) < 5
    try:
        urllib.request.urlopen(mockcdn.url + "/attach-probe", timeout=5)
    except urllib.error.HTTPError:
        pass
'''


@pytest.fixture
def server() -> Iterator[MockCDN]:
    with MockCDN.start(args=["--fixtures", str(FIXTURES)]) as cdn:
        yield cdn


def test_attach_mode_uses_mockcdn_url_and_resets_per_test(pytester: pytest.Pytester, server: MockCDN,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOCKCDN_URL", server.url + "/")
    monkeypatch.setenv("MOCKCDN_BINARY", "/nonexistent/mockcdn")  # starting one would fail
    monkeypatch.setenv("NO_PROXY", "*")
    pytester.makepyfile(test_child=CHILD_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=2)
    # The child talked to this server: its probe is in this server's journal.
    assert [entry["status"] for entry in server.requests(path="/attach-probe")] == [404]


def test_start_mode_without_mockcdn_url(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOCKCDN_URL", raising=False)
    pytester.makepyfile(test_child='''
def test_started(mockcdn):
    assert mockcdn.process is not None and mockcdn.process.poll() is None
    assert mockcdn.health()["status"] == "ok"
''')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=1)



REPORT_TESTS = '''
import urllib.error, urllib.request

def read(mockcdn, path, headers):
    try:
        return urllib.request.urlopen(urllib.request.Request(mockcdn.url + path, headers=headers), timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code

def test_fat_header_read(mockcdn):
    assert read(mockcdn, "/demo/fixtures/sample.png", {"fat": mockcdn.token("fat", user_id="ana")}) == 200

def test_missing_credential(mockcdn):
    assert read(mockcdn, "/demo/fixtures/sample.png", {}) == 401
'''


@pytest.mark.parametrize("name", ["coverage.json", "coverage.md"])
def test_report_option_writes_the_sessions_report_across_resets(pytester: pytest.Pytester, server: MockCDN,
                                                                monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("MOCKCDN_URL", server.url)
    monkeypatch.setenv("NO_PROXY", "*")
    pytester.makepyfile(test_child=REPORT_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", f"--mockcdn-report={name}")
    result.assert_outcomes(passed=2)
    text = (pytester.path / name).read_text()
    if name.endswith(".json"):
        report = json.loads(text)
        covered = {row["id"] for surface in report["surfaces"] for row in surface["rows"] if row["covered"]}
        # The first test's read survived the reset before the second test.
        assert covered == {"cometchat.credential.fat-header", "media.status.200", "media.refused.missing"}
        assert report["entries"] == 2
    else:
        assert text.startswith("# MockCDN contract coverage\n")
        assert "| ✅ | `media.refused.missing` |" in text and "| ✅ | `media.status.200` |" in text


def test_no_report_option_writes_nothing(pytester: pytest.Pytester, server: MockCDN,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MOCKCDN_URL", server.url)
    monkeypatch.setenv("NO_PROXY", "*")
    pytester.makepyfile(test_child=REPORT_TESTS)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q").assert_outcomes(passed=2)
    assert not list(pytester.path.glob("coverage.*"))


def test_report_option_with_an_overridden_server_fixture(pytester: pytest.Pytester, server: MockCDN,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MOCKCDN_URL", raising=False)
    monkeypatch.setenv("NO_PROXY", "*")
    pytester.makeconftest(f'''
import pytest
from mockcdn import MockCDN

@pytest.fixture(scope="session")
def mockcdn_server():
    yield MockCDN.connect("{server.url}")
''')
    pytester.makepyfile(test_child=REPORT_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "--mockcdn-report=coverage.json")
    result.assert_outcomes(passed=2)
    report = json.loads((pytester.path / "coverage.json").read_text())
    assert report["rows_covered"] == 3 and report["entries"] == 2


GATE_TESTS = '''
import urllib.error, urllib.request

def read(mockcdn, path, headers=None):
    try:
        return urllib.request.urlopen(urllib.request.Request(mockcdn.url + path, headers=headers or {}),
                                      timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code

def test_fat_header(mockcdn):
    assert read(mockcdn, "/demo/fixtures/sample.png", {"fat": mockcdn.token("fat", user_id="ana")}) == 200

def test_fat_query(mockcdn):
    assert read(mockcdn, "/demo/fixtures/sample.png?fat=" + mockcdn.token("fat", user_id="ana")) == 200

def test_missing_credential(mockcdn):
    assert read(mockcdn, "/demo/fixtures/sample.png") == 401

def test_health(mockcdn):
    assert read(mockcdn, "/_mockcdn/health") == 200

def test_nothing_read(mockcdn):
    assert mockcdn.url
'''


def test_fail_under_gates_the_whole_run_across_resets(pytester: pytest.Pytester, server: MockCDN,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Five tests, a reset before each: the gate counts all of them, and `mockcdn report --from` reads the
    plugin's file to the same figure, of every surface and of one."""
    monkeypatch.setenv("MOCKCDN_URL", server.url)
    monkeypatch.setenv("NO_PROXY", "*")
    pytester.makepyfile(test_child=GATE_TESTS)
    passing = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", "--mockcdn-report=coverage.json",
                                            "--mockcdn-fail-under=0.1")
    passing.assert_outcomes(passed=5)
    assert passing.ret == 0
    report = json.loads((pytester.path / "coverage.json").read_text())
    # Every test's requests, though each test reset the journal.
    covered = {row["id"] for surface in report["surfaces"] for row in surface["rows"] if row["covered"]}
    assert {"cometchat.credential.fat-header", "cometchat.credential.fat-query", "media.refused.missing"} <= covered
    media = next(surface for surface in report["surfaces"] if surface["id"] == "media")
    everything, of_media = report["percent"], media["percent"]
    assert 0 < everything < of_media

    # The same run below the gate fails, though every test passed, and says why.
    failing = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", f"--mockcdn-fail-under={of_media}",
                                            "--mockcdn-surfaces=stream")
    failing.assert_outcomes(passed=5)
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["*MockCDN contract coverage: 0.0% of rows of stream covered, below "
                                  f"--mockcdn-fail-under {of_media:g}*"])
    gated = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q", f"--mockcdn-fail-under={of_media}",
                                          "--mockcdn-surfaces=media")
    assert gated.ret == 0

    # `mockcdn report` reads the file the plugin wrote to the same figures.
    binary = find_binary()
    for surfaces, percent in ((None, everything), ("media", of_media)):
        command = [binary, "report", "--from", str(pytester.path / "coverage.json"), "--format", "json"]
        command += ["--surfaces", surfaces] if surfaces else []
        ok = subprocess.run(command + ["--fail-under", str(percent)], capture_output=True, text=True)
        assert ok.returncode == 0, ok.stderr
        assert json.loads(ok.stdout)["rows_covered"] == report["rows_covered"]
        below = subprocess.run(command + ["--fail-under", str(min(100.0, percent + 0.1))], capture_output=True,
                               text=True)
        assert below.returncode == 1
        assert f"{percent}% of rows" in below.stderr

    # The plugin's list of surfaces is the binary's, and neither takes an empty list (a share of nothing).
    command = [binary, "report", "--from", str(pytester.path / "coverage.json"), "--surfaces"]
    unknown = subprocess.run(command + ["video"], capture_output=True, text=True)
    assert unknown.returncode == 1
    assert f"the surfaces are {', '.join(SURFACES)}" in unknown.stderr
    assert subprocess.run(command + [","], capture_output=True, text=True).returncode != 0

    # With --url, the report of the journal as it stands, rendered in the format asked for, gated on the surfaces.
    live = [binary, "report", "--url", server.url, "--format", "markdown", "--surfaces", "media"]
    rendered = subprocess.run(live, capture_output=True, text=True)
    assert rendered.returncode == 0, rendered.stderr
    assert rendered.stdout.startswith("# MockCDN contract coverage\n")
    gated_live = subprocess.run(live + ["--fail-under", "100"], capture_output=True, text=True)
    assert gated_live.returncode == 1 and "% of rows of media covered, below --fail-under 100" in gated_live.stderr


def test_gate_options_are_checked_before_any_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_child="def test_x():\n    pass\n")
    wrong = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--mockcdn-surfaces=stream,video")
    assert wrong.ret == pytest.ExitCode.USAGE_ERROR
    wrong.stderr.fnmatch_lines(["*--mockcdn-surfaces: video is not a surface; the surfaces are stream, *"])
    over = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--mockcdn-fail-under=101")
    assert over.ret == pytest.ExitCode.USAGE_ERROR
    nothing = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--mockcdn-surfaces=,")
    assert nothing.ret == pytest.ExitCode.USAGE_ERROR
    nothing.stderr.fnmatch_lines(["*--mockcdn-surfaces names no surface*"])


def test_gate_is_refused_under_xdist(pytester: pytest.Pytester) -> None:
    """Each pytest-xdist worker would judge its share of the tests alone: refused, naming what to do instead."""
    pytest.importorskip("xdist")
    pytester.makepyfile(test_child="def test_x():\n    pass\n")
    workers = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--mockcdn-fail-under=10")
    assert workers.ret == pytest.ExitCode.USAGE_ERROR
    workers.stderr.fnmatch_lines(["*each pytest-xdist worker is its own session*mockcdn report --from*"])
