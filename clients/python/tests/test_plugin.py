"""The pytest plugin in a child pytest: attach mode (``MOCKCDN_URL``) and the reset before each test."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from conftest import FIXTURES
from mockcdn import MockCDN

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
