"""``MockCDN.verify`` through the plugin's ``mockcdn`` fixture: the ids of met expectations, and an unmet one
failing as an ``AssertionError`` whose message is the server's near-miss report."""

from __future__ import annotations

import pytest

from conftest import SAMPLE, read
from mockcdn import MockCDN, MockCDNError, VerificationError


def test_met_expectations_return_the_matching_ids(mockcdn: MockCDN) -> None:
    fat = mockcdn.token(user_id="alice")
    assert read(mockcdn.url + SAMPLE, {"fat": fat})[0] == 200
    assert read(mockcdn.url + SAMPLE + "?fat=" + fat)[0] == 200
    header, query = (entry["id"] for entry in mockcdn.requests())
    assert mockcdn.verify(
        {"method": "GET", "path": "/demo/**", "credential": "fat-header", "status": 200},
        {"path": "/demo/fixtures/*.png", "credential": "fat-query", "count": {"min": 1, "max": 1}},
        {"status": "4xx", "count": 0},
        ordered=True,
    ) == [[header], [query], []]


def test_an_unmet_expectation_fails_with_the_near_miss_report(mockcdn: MockCDN) -> None:
    fat = mockcdn.token(user_id="alice", ttl=60)
    assert read(mockcdn.url + SAMPLE + "?fat=" + fat)[0] == 200
    with pytest.raises(AssertionError) as raised:
        mockcdn.verify({"method": "GET", "path": SAMPLE, "credential": "fat-header"})
    assert isinstance(raised.value, VerificationError)
    report = str(raised.value)
    assert report.startswith("MockCDN verify: 1 of 1 expectations not met\n")
    assert ("method and path matched, but credential `fat-query` where `fat-header` was expected") in report
    assert raised.value.result["expectations"][0]["near_misses"][0]["credential"] == "fat-query"
    # An expired FAT: the report says how long before the request, by the server's clock.
    mockcdn.advance(60 + 120)
    assert read(mockcdn.url + SAMPLE, {"fat": fat})[0] == 403
    with pytest.raises(VerificationError) as raised:
        mockcdn.verify({"path": SAMPLE, "status": 200, "count": 2})
    assert "status 403 where 200 was expected: the credential expired 2 min" in str(raised.value)


def test_a_bad_document_is_a_mockcdn_error_naming_the_member(mockcdn: MockCDN) -> None:
    with pytest.raises(MockCDNError) as raised:
        mockcdn.verify({"status": "6xx"})
    assert raised.value.status == 400
    assert raised.value.message == "expectations[0].status: must be a status 100-599 or a class such as 4xx"
