"""The contract coverage report (`GET /_mockcdn/report`, docs/report.md) against the real binary: a few
behaviours driven (a FAT header read, a resize, an expired FAT after the clock moved, an early 413, a fault),
then the report in JSON, Markdown and JUnit XML shows exactly those rows covered; the JUnit XML parses with
junitparser; `mockcdn report --fail-under` gates; a bad `format` is 400 in the control envelope."""

from __future__ import annotations

import http.client
import json
import subprocess
from urllib.parse import urlparse

import junitparser
import pytest

from support import API_KEY, BINARY, jwt, request

EXPECTED = {
    "cometchat.credential.fat-header": 2,
    "media.status.200": 2,
    "media.resize.crop": 1,
    "media.refused.expired": 1,
    "control.clock.past-expiry": 1,
    "stream.status.413": 1,
    "control.fault.status": 1,
}


def control(base: str, path: str, method: str = "GET", payload: dict | None = None):
    body = json.dumps(payload).encode() if payload is not None else None
    status, data, headers = request(base + path, method, body, {"Content-Type": "application/json"} if body else {})
    return status, data, headers


def fat(base: str, ttl: int) -> str:
    status, data, _ = control(base, "/_mockcdn/tokens", "POST", {"kind": "fat", "user_id": "ana", "ttl": ttl})
    assert status == 200, data
    return json.loads(data)["token"]


def early_413(base: str) -> int:
    """A Stream upload announcing 200 MiB: refused on its Content-Length before any body byte is sent."""
    url = urlparse(base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        connection.putrequest("POST", f"/channels/messaging/general/image?api_key={API_KEY}")
        connection.putheader("Authorization", f"Bearer {jwt()}")
        connection.putheader("stream-auth-type", "jwt")
        connection.putheader("Content-Type", "multipart/form-data; boundary=x")
        connection.putheader("Content-Length", str(200 * 1024 * 1024))
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture(scope="module")
def driven(server):
    """The server after the five behaviours, and the journal id of the faulted request."""
    assert control(server, "/_mockcdn/reset", "POST")[0] == 200
    reader = fat(server, 3600)
    status, _, _ = request(f"{server}/demo/fixtures/sample.png", headers={"fat": reader})
    assert status == 200
    status, _, _ = request(f"{server}/demo/fixtures/sample.jpg?w=40&h=40&resize=crop", headers={"fat": reader})
    assert status == 200
    short = fat(server, 60)
    assert control(server, "/_mockcdn/clock/advance", "POST", {"seconds": 3600})[0] == 200
    status, body, _ = request(f"{server}/demo/fixtures/sample.png?fat={short}")
    assert status == 403 and b"expired" in body, body
    assert early_413(server) == 413
    assert control(server, "/_mockcdn/faults", "POST",
                   {"match": {"path": "/demo/fixtures/sample.webp"}, "times": 1, "action": {"status": 503}})[0] == 201
    status, _, _ = request(f"{server}/demo/fixtures/sample.webp")
    assert status == 503
    _, journal, _ = control(server, "/_mockcdn/requests")
    entries = json.loads(journal)["requests"]
    assert entries[-1]["fault_kinds"] == ["status"]
    return server, entries[-1]["id"]


def report(base: str, query: str = "format=json"):
    status, body, headers = request(f"{base}/_mockcdn/report?{query}")
    assert status == 200, body
    return body.decode(), headers


def test_json_report_covers_exactly_the_driven_rows(driven):
    server, _ = driven
    text, headers = report(server)
    document = json.loads(text)
    rows = [row for surface in document["surfaces"] for row in surface["rows"]]
    covered = {row["id"]: row["count"] for row in rows if row["covered"]}
    assert covered == EXPECTED
    assert all(row["count"] == 0 and row["example"] is None for row in rows if not row["covered"])
    assert all(row["example"].startswith("r") for row in rows if row["covered"])
    assert document["rows_covered"] == len(EXPECTED) and document["rows_total"] == len(rows) > 50
    assert document["percent"] == round(len(EXPECTED) * 100 / len(rows), 1)
    assert headers["X-MockCDN-Coverage"] == f"{document['percent']:g}"
    assert document["entries"] == 5 and document["since"] is None
    by_surface = {surface["id"]: surface["rows_covered"] for surface in document["surfaces"]}
    assert by_surface == {"stream": 1, "cometchat": 1, "media": 3, "s3": 0, "cloudfront": 0, "control": 2}


def test_markdown_report_marks_the_same_rows(driven):
    server, _ = driven
    text, headers = report(server, "format=markdown")
    assert headers["Content-Type"].startswith("text/markdown")
    marked = {}
    for line in text.splitlines():
        if line.startswith("| ✅") or line.startswith("| ❌"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            marked[cells[1].strip("`")] = (cells[0] == "✅", int(cells[3]))
    assert {row for row, (covered, _) in marked.items() if covered} == set(EXPECTED)
    assert {row: count for row, (covered, count) in marked.items() if covered} == EXPECTED
    assert f"{len(EXPECTED)} of {len(marked)} behaviours covered" in text


def test_junit_report_parses_with_the_right_counts(driven, tmp_path):
    server, _ = driven
    text, headers = report(server, "format=junit")
    assert headers["Content-Type"].startswith("application/xml")
    path = tmp_path / "coverage.xml"
    path.write_text(text)
    xml = junitparser.JUnitXml.fromfile(str(path))
    suites = {suite.name: suite for suite in xml}
    assert list(suites) == ["stream", "cometchat", "media", "s3", "cloudfront", "control"]
    total = sum(suite.tests for suite in suites.values())
    assert total == json.loads(report(server)[0])["rows_total"]
    assert sum(suite.skipped for suite in suites.values()) == total - len(EXPECTED)
    assert all(suite.failures == 0 and suite.errors == 0 for suite in suites.values())
    passed = set()
    for suite in suites.values():
        cases = list(suite)
        assert suite.tests == len(cases) and suite.skipped == sum(1 for case in cases if not case.is_passed)
        for case in cases:
            assert case.classname == f"mockcdn.{suite.name}"
            if case.is_passed:
                passed.add(case.name)
            else:
                assert isinstance(case.result[0], junitparser.Skipped)
    assert passed == set(EXPECTED)
    assert suites["media"].skipped == suites["media"].tests - 3


def test_since_reads_from_an_entry_on(driven):
    server, fault_entry = driven
    document = json.loads(report(server, f"format=json&since={fault_entry}")[0])
    covered = {row["id"] for surface in document["surfaces"] for row in surface["rows"] if row["covered"]}
    assert covered == {"control.fault.status"} and document["entries"] == 1 and document["since"] == fault_entry


def test_posted_reports_add_up(driven):
    server, _ = driven
    single = json.loads(report(server)[0])
    status, body, headers = request(f"{server}/_mockcdn/report?format=json", "POST",
                                    json.dumps({"reports": [single, single]}).encode(),
                                    {"Content-Type": "application/json"})
    assert status == 200, body
    merged = json.loads(body)
    covered = {row["id"]: row["count"] for surface in merged["surfaces"] for row in surface["rows"] if row["covered"]}
    assert covered == {row: 2 * count for row, count in EXPECTED.items()}
    assert merged["entries"] == 10 and merged["percent"] == single["percent"]



def test_a_sessions_worth_of_reports_adds_up_and_more_than_8_mib_is_refused(driven):
    """A session fetches a report before each reset: 300 of them (about 2.7 MB) are merged in one request; a
    body over the 8 MiB bound is 400 in the control envelope."""
    server, _ = driven
    single = json.loads(report(server)[0])
    many = json.dumps({"reports": [single] * 300}).encode()
    assert len(many) > 64 * 1024
    status, body, _ = request(f"{server}/_mockcdn/report?format=json", "POST", many, {"Content-Type": "application/json"})
    assert status == 200, body[:300]
    merged = json.loads(body)
    covered = {row["id"]: row["count"] for surface in merged["surfaces"] for row in surface["rows"] if row["covered"]}
    assert covered == {row: 300 * count for row, count in EXPECTED.items()}
    too_many = json.dumps({"reports": [single] * (8 * 1024 * 1024 // len(json.dumps(single)) + 1)}).encode()
    status, body, headers = request(f"{server}/_mockcdn/report?format=json", "POST", too_many,
                                    {"Content-Type": "application/json"})
    assert status == 400 and headers["Content-Type"].startswith("application/json")
    assert json.loads(body)["error"]["message"] == f"request body is larger than {8 * 1024 * 1024} bytes"

@pytest.mark.parametrize("query", ["format=xml", "format=", "since=12", "sinse=r1"])
def test_bad_parameters_are_400_in_the_control_envelope(driven, query):
    server, _ = driven
    status, body, headers = request(f"{server}/_mockcdn/report?{query}")
    assert status == 400
    assert headers["Content-Type"].startswith("application/json")
    message = json.loads(body)["error"]["message"]
    assert message and ("format" in message or "since" in message or "sinse" in message)


def test_cli_fail_under_gates_on_the_percentage(driven):
    server, _ = driven
    percent = json.loads(report(server)[0])["percent"]
    above = subprocess.run([str(BINARY), "report", "--url", server, "--format", "json", "--fail-under",
                            str(percent - 1)], capture_output=True, text=True, timeout=60)
    assert above.returncode == 0, above.stderr
    assert json.loads(above.stdout)["percent"] == percent
    below = subprocess.run([str(BINARY), "report", "--url", server, "--fail-under", str(percent + 1)],
                           capture_output=True, text=True, timeout=60)
    assert below.returncode == 1
    assert "below --fail-under" in below.stderr and "# MockCDN contract coverage" in below.stdout
    listing = subprocess.run([str(BINARY), "report", "--list"], capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0 and "| `control.clock.past-expiry` |" in listing.stdout


def test_console_shows_the_report():
    """The console's Coverage tab in headless Chromium, on a server of its own (the page's own thumbnail reads
    are journaled too): one table per surface, the rows the JSON report covers marked covered."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from conftest import launch
    from support import browser

    with launch() as running:
        server = running.url
        assert request(f"{server}/demo/fixtures/sample.pdf", headers={"fat": fat(server, 3600)})[0] == 200
        driver = browser()
        try:
            driver.set_page_load_timeout(20)
            driver.get(server + "/_mockcdn/ui")
            # 30 s for each wait: >= 10x what the page takes to draw; each returns as soon as it holds.
            waiting = WebDriverWait(driver, 30, ignored_exceptions=[StaleElementReferenceException])
            waiting.until(lambda d: d.find_element(By.CSS_SELECTOR, '.tab[data-view="report"]')).click()
            waiting.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#report table")) == 6)

            # The page redraws its report as it refreshes, so each read of it is inside a wait that reads again
            # when a row it held was replaced (a stale element), and returns what it read once it holds.
            def page_matches_server(d) -> set | None:
                document = json.loads(report(server)[0])
                expected = {row["id"] for surface in document["surfaces"] for row in surface["rows"] if row["covered"]}
                shown = {row.get_attribute("data-id") for row in d.find_elements(By.CSS_SELECTOR, "#report tr.covered")}
                return shown if shown == expected else None

            covered = waiting.until(page_matches_server)
            assert {"cometchat.credential.fat-header", "media.status.200"} <= covered
            assert "stream.status.413" not in covered
            waiting.until(lambda d: f"of {len(d.find_elements(By.CSS_SELECTOR, '#report tbody tr'))} behaviours covered"
                          in d.find_element(By.ID, "report-summary").text)
        finally:
            driver.quit()
