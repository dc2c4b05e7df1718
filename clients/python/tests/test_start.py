"""Starting and stopping the binary with ``MockCDN.start``."""

from __future__ import annotations

import re

import pytest

from conftest import FIXTURES, SAMPLE, read
from mockcdn import MockCDN, MockCDNError


def test_start_serves_until_stopped(sample_png: bytes) -> None:
    with MockCDN.start(args=["--fixtures", str(FIXTURES)]) as cdn:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", cdn.url), cdn.url
        assert cdn.process is not None and cdn.process.poll() is None
        assert cdn.health()["status"] == "ok"
        assert read(cdn.url + SAMPLE, {"fat": cdn.token(user_id="alice")}) == (200, sample_png)
    assert cdn.process.returncode == 0  # SIGTERM is a clean stop
    assert cdn.stop() == 0  # a second stop is harmless
    with pytest.raises(MockCDNError) as raised:
        cdn.health()
    assert raised.value.status is None and "not reachable" in str(raised.value)


def test_start_reports_why_the_server_did_not_start() -> None:
    with pytest.raises(MockCDNError) as raised:
        MockCDN.start(args=["--journal-size", "0"])
    assert "journal" in str(raised.value).lower(), str(raised.value)
    assert raised.value.status is None


def test_start_refuses_a_missing_binary(tmp_path) -> None:
    with pytest.raises(MockCDNError, match="not an executable"):
        MockCDN.start(binary=tmp_path / "no-such-mockcdn")


def test_start_off_loopback_picks_up_the_printed_admin_token() -> None:
    with MockCDN.start(args=["--host", "0.0.0.0", "--fixtures", "none"]) as cdn:
        assert cdn.admin_token, "the generated admin_token line was not read"
        assert cdn.now() > 0  # control calls carry the token
        with pytest.raises(MockCDNError) as raised:
            MockCDN.connect(cdn.url).now()
        assert raised.value.status == 401
        assert "admin token" in raised.value.message
    assert cdn.process.returncode == 0


def test_connect_sends_a_given_admin_token() -> None:
    token = "a-configured-admin-token-1234"
    with MockCDN.start(args=["--host", "0.0.0.0", "--fixtures", "none", "--admin-token", token]) as cdn:
        assert cdn.admin_token == token
        assert MockCDN.connect(cdn.url, admin_token=token).health()["status"] == "ok"
        assert MockCDN.connect(cdn.url + "/", admin_token=token).now() == pytest.approx(cdn.now(), abs=2)
