"""pytest fixtures for MockCDN, registered through the ``pytest11`` entry point ``mockcdn``.

- ``mockcdn_server`` (session): attaches to ``$MOCKCDN_URL`` when it is set (with ``$MOCKCDN_ADMIN_TOKEN``
  if any), otherwise starts the binary (``$MOCKCDN_BINARY``, else the wheel's own, else ``mockcdn`` on ``PATH``) on a free port and
  stops it at the end of the session. Override it in a ``conftest.py`` to pass flags to ``MockCDN.start``.
- ``mockcdn`` (function): the same server, reset (``POST /_mockcdn/reset``) before the test.
- ``--mockcdn-report PATH``: at the end of the session, write the contract coverage report of every request
  the session sent (docs/report.md) to PATH: JUnit XML for ``.xml``, Markdown for ``.md``, else JSON. Since
  each reset empties the journal, the report is fetched before every reset and the sum written at the end.

Disable the plugin with ``-p no:mockcdn``.
"""

from __future__ import annotations

import copy
import json
import os
import time
from collections.abc import Iterator

import pytest

from .client import MockCDN
from .errors import MockCDNError

_REPORT_KEY = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--mockcdn-report PATH``."""
    parser.getgroup("mockcdn").addoption(
        "--mockcdn-report", metavar="PATH", default=None,
        help="write MockCDN's contract coverage report of the session to PATH (.xml JUnit, .md Markdown, "
             "else JSON)")


def _report_format(path: str) -> str:
    """The report format a file name asks for."""
    if path.endswith(".xml"):
        return "junit"
    if path.endswith(".md"):
        return "markdown"
    return "json"


def _collect_report(config: pytest.Config, server: MockCDN) -> None:
    """Keeps the report of the journal as it stands, when the session writes one (before a reset empties it)."""
    if config.getoption("mockcdn_report"):
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
    """Writes the sum of the reports kept and the journal's last one to ``--mockcdn-report``."""
    path = config.getoption("mockcdn_report")
    if not path:
        return
    _collect_report(config, server)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        # Each pytest-xdist worker runs its own server and session: coverage.gw0.xml, coverage.gw1.xml, ...
        stem, dot, extension = path.rpartition(".")
        path = f"{stem}.{worker}.{extension}" if dot else f"{path}.{worker}"
    # Added up here, so one small body goes to the server however many tests reset it.
    text = server.merge_reports([_sum(config.stash[_REPORT_KEY])], format=_report_format(path))
    with open(path, "w", encoding="utf-8") as file:
        file.write(text if isinstance(text, str) else json.dumps(text, indent=2) + "\n")


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
    """With ``--mockcdn-report``, writes the session's report before the server stops. It asks for
    ``mockcdn_server`` itself, so a ``conftest.py`` that overrides that fixture still gets its report."""
    if not request.config.getoption("mockcdn_report"):
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
