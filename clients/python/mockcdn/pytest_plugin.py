"""pytest fixtures for MockCDN, registered through the ``pytest11`` entry point ``mockcdn``.

- ``mockcdn_server`` (session): attaches to ``$MOCKCDN_URL`` when it is set (with ``$MOCKCDN_ADMIN_TOKEN``
  if any), otherwise starts the binary (``$MOCKCDN_BINARY``, else the wheel's own, else ``mockcdn`` on ``PATH``) on a free port and
  stops it at the end of the session. Override it in a ``conftest.py`` to pass flags to ``MockCDN.start``.
- ``mockcdn`` (function): the same server, reset (``POST /_mockcdn/reset``) before the test.
- ``--mockcdn-report PATH``: at the end of the session, write the contract coverage report of every request
  the session sent (docs/report.md) to PATH: JUnit XML for ``.xml``, Markdown for ``.md``, else JSON. Since
  each reset empties the journal, the report is fetched before every reset and the sum written at the end.
- ``--mockcdn-fail-under PCT``: fail the run (exit status 1) when the sum covers less than PCT percent of the
  contract's rows, counted across every reset; ``--mockcdn-surfaces stream,media`` counts only the rows of
  the surfaces an app uses. ``mockcdn report --from FILE --surfaces ... --fail-under PCT`` reads the file
  ``--mockcdn-report`` wrote (``.json``) to the same figure.

Disable the plugin with ``-p no:mockcdn``.
"""

from __future__ import annotations

import copy
import json
import math
import os
import time
from collections.abc import Iterator

import pytest

from .client import MockCDN
from .errors import MockCDNError

_REPORT_KEY = pytest.StashKey[list]()


_GATE_KEY = pytest.StashKey[str]()
SURFACES = ("stream", "cometchat", "media", "s3", "cloudfront", "control")


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--mockcdn-report PATH``, ``--mockcdn-fail-under PCT``, ``--mockcdn-surfaces LIST``."""
    group = parser.getgroup("mockcdn")
    group.addoption(
        "--mockcdn-report", metavar="PATH", default=None,
        help="write MockCDN's contract coverage report of the session to PATH (.xml JUnit, .md Markdown, "
             "else JSON)")
    group.addoption(
        "--mockcdn-fail-under", metavar="PCT", type=float, default=None,
        help="fail the run when the session's requests cover less than PCT percent of the contract's rows")
    group.addoption(
        "--mockcdn-surfaces", metavar="LIST", default=None,
        help="the surfaces --mockcdn-fail-under counts, comma-separated: " + ",".join(SURFACES))


def pytest_configure(config: pytest.Config) -> None:
    """Refuses a gate outside 0-100 or a surface that is none, before any test runs."""
    mark = config.getoption("mockcdn_fail_under", None)
    if mark is not None and not 0 <= mark <= 100:
        raise pytest.UsageError("--mockcdn-fail-under must be 0-100")
    if mark is not None and config.getoption("numprocesses", None):
        # Each pytest-xdist worker has its own server and sees only its share of the tests.
        raise pytest.UsageError("--mockcdn-fail-under gates one session's sum, and each pytest-xdist worker is its "
                                "own session: write --mockcdn-report coverage.json (one file per worker) and gate "
                                "with mockcdn report --from coverage.gw0.json --from ... --fail-under PCT")
    if config.getoption("mockcdn_surfaces", None) is not None and not _surfaces(config):
        # No surface at all would be a share of nothing: 100%, a gate that always passes.
        raise pytest.UsageError("--mockcdn-surfaces names no surface; name one or more, comma-separated")
    for surface in _surfaces(config) or ():
        if surface not in SURFACES:
            raise pytest.UsageError(f"--mockcdn-surfaces: {surface} is not a surface; the surfaces are "
                                    + ", ".join(SURFACES))


def _surfaces(config: pytest.Config) -> list[str] | None:
    text = config.getoption("mockcdn_surfaces", None)
    return [name.strip() for name in text.split(",") if name.strip()] if text else None


def _collects(config: pytest.Config) -> bool:
    """Whether the session keeps the report before each reset: to write it, or to gate on it."""
    return bool(config.getoption("mockcdn_report") or config.getoption("mockcdn_fail_under") is not None)


def coverage_percent(report: dict, surfaces: list[str] | None = None) -> float:
    """The share of rows a JSON report covers, percent to one decimal, as the server and ``mockcdn report``
    count it: of every row, or of the rows of ``surfaces``."""
    if not surfaces:
        return report["percent"]
    chosen = [surface for surface in report["surfaces"] if surface["id"] in surfaces]
    total = sum(surface["rows_total"] for surface in chosen)
    covered = sum(surface["rows_covered"] for surface in chosen)
    # Halves rounded up, as the server rounds (Python's round() would round them to even).
    return 100.0 if total == 0 else math.floor(covered * 1000 / total + 0.5) / 10


def _report_format(path: str) -> str:
    """The report format a file name asks for."""
    if path.endswith(".xml"):
        return "junit"
    if path.endswith(".md"):
        return "markdown"
    return "json"


def _collect_report(config: pytest.Config, server: MockCDN) -> None:
    """Keeps the report of the journal as it stands, when the session writes one (before a reset empties it)."""
    if _collects(config):
        config.stash.setdefault(_REPORT_KEY, []).append(server.report("json"))


def _sum(reports: list[dict]) -> dict:
    """JSON reports added up row by row: counts summed, the first example kept (the server recomputes the
    totals when it renders the sum)."""
    total = copy.deepcopy(reports[0])
    rows = {row["id"]: row for surface in total["surfaces"] for row in surface["rows"]}
    for report in reports[1:]:
        total["entries"] += report["entries"]
        for row in (row for surface in report["surfaces"] for row in surface["rows"]):
            mine = rows.get(row["id"])
            if mine is not None and row["count"]:
                mine["count"] += row["count"]
                mine["covered"] = True
                mine["example"] = mine["example"] or row["example"]
    return total


def _write_report(config: pytest.Config, server: MockCDN) -> None:
    """Writes the sum of the reports kept and the journal's last one to ``--mockcdn-report``, and judges it
    against ``--mockcdn-fail-under``."""
    path = config.getoption("mockcdn_report")
    mark = config.getoption("mockcdn_fail_under")
    if not path and mark is None:
        return
    _collect_report(config, server)
    # Added up here, so one small body goes to the server however many tests reset it.
    total = _sum(config.stash[_REPORT_KEY])
    if mark is not None:
        surfaces = _surfaces(config)
        percent = coverage_percent(server.merge_reports([total]), surfaces)
        if percent < mark:
            counted = f" of {','.join(surfaces)}" if surfaces else ""
            config.stash[_GATE_KEY] = (f"MockCDN contract coverage: {percent}% of rows{counted} covered, below "
                                       f"--mockcdn-fail-under {mark:g}")
    if not path:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        # Each pytest-xdist worker runs its own server and session: coverage.gw0.xml, coverage.gw1.xml, ...
        stem, dot, extension = path.rpartition(".")
        path = f"{stem}.{worker}.{extension}" if dot else f"{path}.{worker}"
    text = server.merge_reports([total], format=_report_format(path))
    with open(path, "w", encoding="utf-8") as file:
        file.write(text if isinstance(text, str) else json.dumps(text, indent=2) + "\n")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A run below ``--mockcdn-fail-under`` fails, though every test passed."""
    if _GATE_KEY in session.config.stash and exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    """Says why a run below the gate failed."""
    if _GATE_KEY in config.stash:
        terminalreporter.write_line(config.stash[_GATE_KEY], red=True)


def _wait_until_healthy(server: MockCDN, timeout: float) -> None:
    """Polls ``/_mockcdn/health`` until it answers, so a container that is still starting is waited for."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            server.health()
            return
        except MockCDNError as error:
            if time.monotonic() >= deadline:
                raise MockCDNError(f"MockCDN at {server.url} is not healthy after {timeout} s: {error}",
                                   status=error.status, body=error.body) from error
            time.sleep(0.2)


@pytest.fixture(scope="session")
def mockcdn_server() -> Iterator[MockCDN]:
    """A MockCDN server for the whole session: ``$MOCKCDN_URL`` when set, else one started here."""
    url = os.environ.get("MOCKCDN_URL")
    if url:
        server = MockCDN.connect(url, admin_token=os.environ.get("MOCKCDN_ADMIN_TOKEN") or None)
        _wait_until_healthy(server, timeout=30.0)
        yield server
        return
    server = MockCDN.start()
    try:
        yield server
    finally:
        code = server.stop()
    if code != 0:
        pytest.fail(f"mockcdn exited with code {code} when stopped", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def _mockcdn_session_report(request: pytest.FixtureRequest) -> Iterator[None]:
    """With ``--mockcdn-report`` or ``--mockcdn-fail-under``, writes and judges the session's report before the
    server stops. It asks for
    ``mockcdn_server`` itself, so a ``conftest.py`` that overrides that fixture still gets its report."""
    if not _collects(request.config):
        yield
        return
    server = request.getfixturevalue("mockcdn_server")
    yield
    _write_report(request.config, server)


@pytest.fixture
def mockcdn(mockcdn_server: MockCDN, pytestconfig: pytest.Config) -> MockCDN:
    """The session's MockCDN server, reset before the test: fixtures reloaded, journal and faults empty,
    clock back at system time."""
    _collect_report(pytestconfig, mockcdn_server)
    mockcdn_server.reset()
    return mockcdn_server
