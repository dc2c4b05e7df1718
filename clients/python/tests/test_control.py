"""The test-control API through the plugin's ``mockcdn`` fixture (a session server, reset per test)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import time

import pytest

from conftest import SAMPLE, read
from mockcdn import MockCDN, MockCDNError

FUTURE = 2_000_000_000  # 2033-05-18, far from the machine's clock


def fat_claims(token: str) -> dict:
    """The JSON payload of a File Access Token, ``<base64 payload>.<base64 MAC>``."""
    return json.loads(base64.b64decode(token.split(".")[0]))


def test_clock_set_and_advance(mockcdn: MockCDN) -> None:
    assert abs(mockcdn.now() - time.time()) < 5
    assert mockcdn.set_clock(FUTURE) in (FUTURE, FUTURE + 1)
    assert mockcdn.now() - FUTURE in (0, 1, 2)
    assert mockcdn.advance(86_400) - FUTURE - 86_400 in (0, 1, 2)
    assert mockcdn.set_clock(dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)) - 1_893_456_000 in (0, 1)
    with pytest.raises(MockCDNError) as raised:
        mockcdn.set_clock(-1)
    assert raised.value.status == 400


def test_token_is_minted_at_the_server_clock(mockcdn: MockCDN, sample_png: bytes) -> None:
    mockcdn.set_clock(FUTURE)
    fat = mockcdn.token("fat", user_id="alice", ttl=600)
    claims = fat_claims(fat)
    assert claims["uid"] == "alice" and claims["app"] == "demo"
    assert claims["iat"] - FUTURE in (0, 1, 2), claims  # the server's clock, not the machine's
    assert claims["exp"] == claims["iat"] + 600
    assert read(mockcdn.url + SAMPLE, {"fat": fat}) == (200, sample_png)
    mockcdn.advance(601)
    status, body = read(mockcdn.url + SAMPLE, {"fat": fat})
    assert status == 403 and b"expired" in body, (status, body)


def test_signed_read_and_a_clock_jump_expiring_it(mockcdn: MockCDN, sample_png: bytes) -> None:
    fat = mockcdn.token(user_id="bob", ttl=60)
    assert read(mockcdn.url + SAMPLE, {"fat": fat}) == (200, sample_png)
    assert read(mockcdn.url + SAMPLE)[0] == 401  # no credential
    mockcdn.advance(3_600)
    assert read(mockcdn.url + SAMPLE, {"fat": fat})[0] == 403
    # The journal says why.
    [expired] = mockcdn.requests(status=403)
    assert "expired" in (expired["reason"] or ""), expired


def test_other_token_kinds(mockcdn: MockCDN) -> None:
    assert mockcdn.token("user", user_id="alice").count(".") == 2  # a JWT
    assert mockcdn.token("server").count(".") == 2
    with pytest.raises(MockCDNError) as raised:
        mockcdn.token("fat")  # no user_id
    assert raised.value.status == 400 and "user_id" in raised.value.message
    with pytest.raises(MockCDNError) as raised:
        mockcdn.token("fat", user_id="alice", app_id="no-such-app")
    assert raised.value.status == 400


def test_fault_makes_a_read_fail_until_removed(mockcdn: MockCDN, sample_png: bytes) -> None:
    fat = mockcdn.token(user_id="alice")
    fault = mockcdn.add_fault({"match": {"method": "GET", "path": SAMPLE},
                               "action": {"status": 503, "body": "try again later"}})
    assert fault.startswith("f")
    assert [(rule["id"], rule["hits"]) for rule in mockcdn.faults()] == [(fault, 0)]
    assert read(mockcdn.url + SAMPLE, {"fat": fat}) == (503, b"try again later")
    assert read(mockcdn.url + SAMPLE, {"fat": fat})[0] == 503
    assert [rule["hits"] for rule in mockcdn.faults()] == [2]
    mockcdn.remove_fault(fault)
    assert mockcdn.faults() == []
    assert read(mockcdn.url + SAMPLE, {"fat": fat}) == (200, sample_png)
    with pytest.raises(MockCDNError) as raised:
        mockcdn.remove_fault(fault)
    assert raised.value.status == 404 and fault in raised.value.message


def test_fault_with_times_and_clear_faults(mockcdn: MockCDN) -> None:
    fat = mockcdn.token(user_id="alice")
    mockcdn.add_fault({"match": {"path": SAMPLE}, "times": 1, "action": {"status": 500}})
    mockcdn.add_fault({"match": {"path": "/demo/fixtures/*.jpg"}, "action": {"status": 502}})
    assert read(mockcdn.url + SAMPLE, {"fat": fat})[0] == 500
    assert read(mockcdn.url + SAMPLE, {"fat": fat})[0] == 200  # used up
    assert read(mockcdn.url + "/demo/fixtures/sample.jpg", {"fat": fat})[0] == 502
    mockcdn.clear_faults()
    assert mockcdn.faults() == []
    with pytest.raises(MockCDNError) as raised:
        mockcdn.add_fault({"match": {"methd": "GET"}, "action": {"status": 503}})
    assert raised.value.status == 400 and "methd" in raised.value.message


def test_journal_records_reads_with_their_status(mockcdn: MockCDN) -> None:
    fat = mockcdn.token(user_id="alice")
    read(mockcdn.url + SAMPLE, {"fat": fat})
    read(mockcdn.url + SAMPLE)
    read(mockcdn.url + "/demo/fixtures/sample.pdf", {"fat": fat})
    entries = mockcdn.requests(path=SAMPLE)
    assert [(e["method"], e["path"], e["status"], e["credential"]) for e in entries] == [
        ("GET", SAMPLE, 200, "fat-header"),
        ("GET", SAMPLE, 401, "none"),
    ]
    assert [e["path"] for e in mockcdn.requests(status=401)] == [SAMPLE]
    assert len(mockcdn.requests(method="GET", path="/demo/fixtures/")) == 3
    assert mockcdn.requests(method="DELETE") == []
    assert fat not in json.dumps(mockcdn.requests())  # credentials never reach the journal
    mockcdn.clear_requests()
    assert mockcdn.requests() == []
    with pytest.raises(MockCDNError) as raised:
        mockcdn.requests(status=99)
    assert raised.value.status == 400


def test_reset_clears_journal_and_faults_and_the_clock(mockcdn: MockCDN) -> None:
    mockcdn.set_clock(FUTURE)
    mockcdn.add_fault({"action": {"status": 503}})
    read(mockcdn.url + SAMPLE)
    assert mockcdn.requests() and mockcdn.faults()
    mockcdn.reset()
    assert mockcdn.requests() == []
    assert mockcdn.faults() == []
    assert abs(mockcdn.now() - time.time()) < 5
    assert read(mockcdn.url + SAMPLE, {"fat": mockcdn.token(user_id="alice")})[0] == 200


def test_report_counts_the_session_and_merge_reports_adds_reports_up(mockcdn: MockCDN, sample_png: bytes) -> None:
    fat = mockcdn.token("fat", user_id="alice")
    assert read(mockcdn.url + "/demo/fixtures/sample.png", {"fat": fat}) == (200, sample_png)
    assert read(mockcdn.url + "/demo/fixtures/sample.png")[0] == 401
    report = mockcdn.report()
    rows = {row["id"]: row for surface in report["surfaces"] for row in surface["rows"]}
    assert rows["media.status.200"]["count"] == 1 and rows["media.refused.missing"]["count"] == 1
    assert rows["cometchat.credential.fat-header"]["covered"] and not rows["media.status.404"]["covered"]
    merged = mockcdn.merge_reports([report, report])
    counts = {row["id"]: row["count"] for surface in merged["surfaces"] for row in surface["rows"]}
    assert counts["media.status.200"] == 2 and merged["entries"] == 2 * report["entries"]
    assert mockcdn.report(format="markdown").startswith("# MockCDN contract coverage")
    assert "<testsuites" in mockcdn.merge_reports([report], format="junit")
    with pytest.raises(MockCDNError) as refused:
        mockcdn.report(format="xml")
    assert refused.value.status == 400
