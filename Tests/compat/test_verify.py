"""`POST /_mockcdn/verify` against the real binary: met expectations (200 with the matching journal ids), unmet
ones (409) with their near misses in exact words (a credential, a status with the expiry of a presigned link
moved past by the virtual clock, a path glob, a count too low or too high, an order broken), documents that
are not one (400 naming the member), and verify itself kept out of the journal. docs/verify.md is the
reference.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_verify.py``.
"""

from __future__ import annotations

import base64
import json

import pytest

from support import png, request, upload

JPG = "/demo/fixtures/sample.jpg"
PNG = "/demo/fixtures/sample.png"


def control(base: str, path: str, method: str = "GET", payload=None) -> tuple[int, dict]:
    body = None if payload is None else json.dumps(payload).encode()
    status, answer, _ = request(base + path, method, body, {"Content-Type": "application/json"})
    return status, (json.loads(answer) if answer.strip() else {})


def verify(base: str, document) -> tuple[int, dict]:
    return control(base, "/_mockcdn/verify", "POST", document)


def journal(base: str) -> list[dict]:
    status, answer = control(base, "/_mockcdn/requests")
    assert status == 200
    return answer["requests"]


@pytest.fixture(autouse=True)
def fresh(server):
    """Each test starts from the startup state: an empty journal and the clock at system time."""
    assert control(server, "/_mockcdn/reset", "POST")[0] == 200


def fat(base: str) -> str:
    status, answer = control(base, "/_mockcdn/tokens", "POST", {"kind": "fat", "user_id": "alice"})
    assert status == 200
    return answer["token"]


def read(base: str, path: str, *, header: str | None = None, query: str | None = None) -> int:
    """A media read with a FAT in the `fat` header or query; returns the status."""
    target = base + path + (f"?fat={query}" if query else "")
    status, _, _ = request(target, headers={"fat": header} if header else {})
    return status


def test_met_expectations_answer_200_with_the_matching_entry_ids(server):
    token = fat(server)
    assert read(server, JPG, header=token) == 200
    assert read(server, PNG, header=token) == 200
    assert read(server, JPG, query=token) == 200
    ids = [entry["id"] for entry in journal(server)]
    status, answer = verify(server, {"expectations": [
        {"method": "get", "path": "/demo/fixtures/*", "credential": "fat-header", "status": 200,
         "count": {"min": 2, "max": 2}},
        {"path": "/demo/**", "query": "fat=", "credential": "fat-query", "status": "2xx", "count": 1},
        {"status": "4xx", "count": {"max": 0}},
    ]})
    assert status == 200, answer
    assert answer["met"] is True
    assert [outcome["matched"] for outcome in answer["expectations"]] == [ids[:2], ids[2:], []]
    assert all(outcome["met"] and outcome["problem"] is None and outcome["near_misses"] == []
               for outcome in answer["expectations"])
    assert answer["expectations"][0]["expected"] == (
        "method GET, path /demo/fixtures/*, credential fat-header, status 200, count exactly 2")
    assert answer["report"] == "MockCDN verify: all 3 expectations met"


def test_a_credential_that_differs_is_named(server):
    token = fat(server)
    assert read(server, JPG, query=token) == 200
    [entry] = journal(server)
    status, answer = verify(server, {"expectations": [
        {"method": "GET", "path": JPG, "credential": "fat-header", "status": 200}]})
    assert status == 409
    assert answer["met"] is False
    [outcome] = answer["expectations"]
    assert outcome["problem"] == "expected at least 1 matching request, found 0"
    [miss] = outcome["near_misses"]
    assert miss["id"] == entry["id"] and miss["credential"] == "fat-query"
    assert miss["matched"] == ["method", "path", "status"]
    assert miss["differences"] == ["credential `fat-query` where `fat-header` was expected"]
    assert miss["explanation"] == (
        "method, path and status matched, but credential `fat-query` where `fat-header` was expected")
    assert answer["report"] == "\n".join([
        "MockCDN verify: 1 of 1 expectations not met",
        "expectations[0] (method GET, path /demo/fixtures/sample.jpg, credential fat-header, status 200, "
        "count at least 1): expected at least 1 matching request, found 0",
        "  closest:",
        f"  - {entry['id']} GET {JPG}?fat=REDACTED -> 200: method, path and status matched, but credential "
        "`fat-query` where `fat-header` was expected",
    ])


def ago(seconds: int) -> str:
    """The server's words for a span of 3 to 4 minutes: `3 min`, `3 min 2 s`."""
    assert 180 <= seconds < 240, seconds
    return "3 min" + (f" {seconds - 180} s" if seconds > 180 else "")


def test_a_status_that_differs_says_when_the_link_expired_by_the_virtual_clock(server):
    token = fat(server)
    # The presign route takes the FAT in the header.
    status, answer, _ = request(server + "/v1/apps/demo/presign", "POST",
                                json.dumps({"url": server + JPG}).encode(),
                                {"Content-Type": "application/json", "fat": token})
    assert status == 200, answer
    presigned = json.loads(answer)
    link, expires_at = presigned["url"], presigned["expires_at"]
    assert request(link)[0] == 200
    # Past the link's expiry by three minutes of the MockCDN clock: no real time waited.
    assert control(server, "/_mockcdn/clock/advance", "POST", {"seconds": presigned["expires_in"] + 180})[0] == 200
    assert request(link)[0] == 403
    entries = journal(server)
    refused = entries[-1]
    assert refused["status"] == 403 and refused["credential"] == "none"
    assert refused["reason"] == "AccessDenied: Request has expired"
    assert refused["expired_at"] == expires_at
    assert entries[-2]["credential"] == "presigned" and entries[-2]["expired_at"] is None
    status, answer = verify(server, {"expectations": [
        {"method": "GET", "path": JPG, "credential": "presigned", "status": 200, "count": {"min": 2}}]})
    assert status == 409
    [outcome] = answer["expectations"]
    assert outcome["matched"] == [entries[-2]["id"]]
    assert outcome["problem"] == f"expected at least 2 matching requests, found 1 ({entries[-2]['id']})"
    closest = outcome["near_misses"][0]
    assert closest["id"] == refused["id"] and closest["expired_at"] == expires_at
    assert closest["explanation"] == (
        "method and path matched, but credential `none` where `presigned` was expected; status 403 where 200 was "
        f"expected: the credential expired {ago(refused['clock'] - expires_at)} ago by the MockCDN clock")
    # Second closest: the presign request matched the status only.
    assert outcome["near_misses"][1]["matched"] == ["status"]


def test_a_cloudfront_link_past_its_policy_is_dated_in_the_journal(server):
    link = upload(server, "image", "a.png", "image/png", png())
    assert request(link)[0] == 200
    query = dict(pair.split("=", 1) for pair in link.split("?", 1)[1].split("&"))
    policy = json.loads(base64.b64decode(query["Policy"].replace("-", "+").replace("_", "=").replace("~", "/")))
    expires = policy["Statement"][0]["Condition"]["DateLessThan"]["AWS:EpochTime"]
    # Stream's links live 14 days: a day past that, by the MockCDN clock.
    assert control(server, "/_mockcdn/clock/advance", "POST", {"seconds": 15 * 86_400})[0] == 200
    assert request(link)[0] == 403
    refused = journal(server)[-1]
    assert refused["expired_at"] == expires and refused["reason"] == "AccessDenied: Request has expired"
    status, answer = verify(server, {"expectations": [{"method": "GET", "path": "/demo/images/**", "status": 200,
                                                       "count": 2}]})
    assert status == 409
    assert answer["expectations"][0]["near_misses"][0]["explanation"] == (
        "method and path matched, but status 403 where 200 was expected: the credential expired 1 d ago by the "
        "MockCDN clock")


def test_a_path_glob_star_stays_within_a_segment_and_double_star_crosses_them(server):
    token = fat(server)
    assert read(server, PNG, header=token) == 200
    [entry] = journal(server)
    status, answer = verify(server, {"expectations": [
        {"path": "/demo/**/*.png", "credential": "fat-header"},
        {"path": "/demo/**"},
        {"path": "/demo/*.png", "credential": "fat-header", "status": 200},
    ]})
    assert status == 409
    first, second, third = answer["expectations"]
    assert first["met"] and second["met"] and not third["met"]
    assert third["near_misses"][0]["explanation"] == (
        f"credential and status matched, but path `{PNG}` does not match `/demo/*.png`")
    assert answer["report"].splitlines()[0] == "MockCDN verify: 1 of 3 expectations not met"
    assert answer["report"].splitlines()[-1] == (
        f"  - {entry['id']} GET {PNG} -> 200: credential and status matched, but path `{PNG}` does not match "
        "`/demo/*.png`")


def test_counts_too_low_and_too_high(server):
    token = fat(server)
    for _ in range(3):
        assert read(server, JPG, header=token) == 200
    ids = ", ".join(entry["id"] for entry in journal(server))
    status, answer = verify(server, {"expectations": [
        {"path": JPG, "count": {"min": 4}},
        {"path": JPG, "count": {"max": 2}},
        {"path": JPG, "count": 1},
        {"path": JPG, "count": {"min": 1, "max": 3}},
    ]})
    assert status == 409
    too_few, too_many, not_one, within = answer["expectations"]
    assert too_few["problem"] == f"expected at least 4 matching requests, found 3 ({ids})"
    assert too_many["problem"] == f"expected at most 2 matching requests, found 3 ({ids})"
    assert not_one["problem"] == f"expected exactly 1 matching request, found 3 ({ids})"
    assert within["met"] and within["problem"] is None
    # Too many are listed, not explained; too few with nothing else near says so.
    assert too_many["near_misses"] == [] and too_few["near_misses"] == []
    assert answer["report"].splitlines()[1:3] == [
        f"expectations[0] (path {JPG}, count at least 4): expected at least 4 matching requests, found 3 ({ids})",
        "  no journal entry came close",
    ]


def test_an_ordered_list_matches_each_expectation_after_the_previous_ones_last_match(server):
    token = fat(server)
    assert read(server, PNG, header=token) == 200
    assert read(server, JPG, header=token) == 200
    png, jpg = journal(server)
    expectations = [{"path": JPG}, {"path": PNG}]
    status, answer = verify(server, {"expectations": expectations})
    assert status == 200, answer
    status, answer = verify(server, {"expectations": expectations, "ordered": True})
    assert status == 409
    first, second = answer["expectations"]
    assert first["matched"] == [jpg["id"]] and second["matched"] == []
    assert second["problem"] == (
        f"expected at least 1 matching request after {jpg['id']} (expectations[0]'s last match), found 0")
    assert second["near_misses"][0]["id"] == png["id"]
    assert second["near_misses"][0]["explanation"] == (
        f"path matched, but it came before {jpg['id']}, expectations[0]'s last match, in an ordered list")
    assert answer["report"].splitlines()[0] == "MockCDN verify: 1 of 2 expectations not met (in order)"
    # The other way round, the order holds.
    status, answer = verify(server, {"expectations": expectations[::-1], "ordered": True})
    assert status == 200, answer


def test_since_judges_only_later_entries(server):
    token = fat(server)
    assert read(server, JPG, header=token) == 200
    [earlier] = journal(server)
    assert read(server, PNG, header=token) == 200
    status, answer = verify(server, {"expectations": [{"path": JPG}], "since": earlier["id"]})
    assert status == 409
    assert answer["report"].splitlines()[0] == f"MockCDN verify: 1 of 1 expectations not met (entries after {earlier['id']})"
    status, answer = verify(server, {"expectations": [{"path": PNG}], "since": earlier["id"]})
    assert status == 200


CREDENTIALS = ("fat-header, fat-query, presigned, presigned-v2, s3-header-sigv4, s3-header-sigv2, s3-post-policy, "
               "cloudfront, cloudfront-cookie, jwt, none")


@pytest.mark.parametrize(("document", "message"), [
    ([], "request body: must be a JSON object with expectations"),
    ({}, "expectations: must list 1 to 100 expectations"),
    ({"expectations": []}, "expectations: must list 1 to 100 expectations"),
    ({"expectations": "GET /demo"}, "expectations: must be a list of expectations"),
    ({"expectations": [{"methd": "GET"}]}, "unknown member expectations[0].methd"),
    ({"expectations": [{}, {"count": {"mn": 1}}]}, "unknown member expectations[1].count.mn"),
    ({"expectations": [7]}, "expectations[0]: must be an object"),
    ({"expectations": [{"method": 7}]}, "expectations[0].method: must be an HTTP method such as GET"),
    ({"expectations": [{"path": "demo/*"}]},
     "expectations[0].path: must be a path pattern starting with /, at most 1024 bytes"),
    ({"expectations": [{"query": ""}]}, "expectations[0].query: must be text the query contains, 1 to 1024 bytes"),
    ({"expectations": [{}, {"credential": "fat"}]},
     f"expectations[1].credential: `fat` is not a credential source; one of {CREDENTIALS}"),
    ({"expectations": [{"status": "6xx"}]}, "expectations[0].status: must be a status 100-599 or a class such as 4xx"),
    ({"expectations": [{"status": 99}]}, "expectations[0].status: must be a status 100-599 or a class such as 4xx"),
    ({"expectations": [{"count": -1}]}, "expectations[0].count: must be 0 to 1000000000"),
    ({"expectations": [{"count": {"min": 3, "max": 1}}]}, "expectations[0].count: min (3) is more than max (1)"),
    ({"expectations": [{"count": {"min": -1}}]}, "expectations[0].count.min: must be a number 0 to 1000000000"),
    ({"expectations": [{"count": {}}]}, "expectations[0].count: must give min, max or both"),
    ({"expectations": [{"count": "2"}]}, 'expectations[0].count: must be a number or {"min":N,"max":M}'),
    ({"expectations": [{}], "ordered": "yes"}, "ordered: must be true or false"),
    ({"expectations": [{}], "since": "12"}, "since: must be a journal id such as r12"),
])
def test_a_document_that_is_not_one_is_400_naming_the_member(server, document, message):
    status, answer = verify(server, document)
    assert status == 400
    assert answer == {"error": {"message": message}}


def test_verify_is_not_journaled_and_entries_show_expired_at(server):
    token = fat(server)
    assert read(server, JPG, header=token) == 200
    assert verify(server, {"expectations": [{"path": JPG}]})[0] == 200
    assert verify(server, {"expectations": [{"path": PNG}]})[0] == 409
    assert verify(server, {"expectations": []})[0] == 400
    [entry] = journal(server)
    assert entry["path"] == JPG
    assert "expired_at" in entry and entry["expired_at"] is None
