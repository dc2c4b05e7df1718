"""CometChat's two media URL modes per app (`media_url_access`): `fat` (plain URLs, reads carry a FAT) and
`presigned` (CloudFront canned links living `presigned_url_ttl`, 900 to 2,592,000 s, default 86,400), against
the real binary: the upload answer, the settings route, expiry by the clock to the second, the presign route in
both modes, and each bound of the setting at start.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import base64
import json
import urllib.parse
import uuid
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from conftest import launch, start_outcome
from support import multipart, request

APPS = {
    "fatmode": "",
    "short": "    media_url_access: presigned\n    presigned_url_ttl: 900\n",
    "daily": "    media_url_access: presigned\n",
}


def config(folder: Path, extra: dict[str, str]) -> str:
    text = "apps:\n"
    for app, lines in extra.items():
        text += (f"  - app_id: {app}\n    api_key: {app}-key\n    api_secret: {app}-secret-at-least-32-bytes-long!!\n"
                 + lines)
    path = folder / "apps.yaml"
    path.write_text(text)
    return str(path)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    with launch("--config", config(tmp_path_factory.mktemp("modes"), APPS)) as server:
        yield server.url


def control(base: str, path: str, method: str = "GET", payload: dict | None = None) -> dict:
    status, body, _ = request(base + path, method, json.dumps(payload).encode() if payload is not None else None,
                              {"Content-Type": "application/json"} if payload is not None else {})
    assert status in (200, 201), body
    return json.loads(body)


def fat(base: str, app: str) -> str:
    return control(base, "/_mockcdn/tokens", "POST", {"kind": "fat", "user_id": "ana", "app_id": app})["token"]


def upload(base: str, app: str) -> tuple[str, bytes]:
    data = b"media-" + uuid.uuid4().bytes
    boundary = "m" + uuid.uuid4().hex
    status, body, _ = request(f"{base}/{app}/media", "POST", multipart([("file", "note.txt", "text/plain", data)], boundary),
                              {"fat": fat(base, app), "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 201, body
    return json.loads(body)["url"], data


def test_fat_mode_hands_out_plain_urls_read_with_a_fat(served):
    url, data = upload(served, "fatmode")
    assert "?" not in url and url.startswith(served + "/fatmode/media/")
    assert request(url)[0] == 401
    status, body, _ = request(url, headers={"fat": fat(served, "fatmode")})
    assert status == 200 and body == data
    settings = control(served, "/v1/apps/fatmode/settings")
    assert settings["MEDIA_URL_ACCESS"] == "fat" and settings["MEDIA_URL_TTL"] == 86400


@pytest.mark.parametrize("app, ttl", [("short", 900), ("daily", 86400)])
def test_presigned_mode_hands_out_canned_links_that_expire_by_the_clock(served, app, ttl):
    now = control(served, "/_mockcdn/clock")["now"]
    url, data = upload(served, app)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
    assert set(query) == {"Expires", "Signature", "Key-Pair-Id"}, url
    assert int(query["Expires"]) - now in (ttl, ttl + 1)  # the upload may land a second later
    # The link is CloudFront's canned form, checked without MockCDN's code: RSA-SHA1 over the canned policy,
    # with the public key the app publishes.
    status, body, _ = request(f"{served}/v1/apps/{app}/keys")
    keys = {key["id"]: key["public_key"] for key in json.loads(body)["keys"]}
    policy = ('{"Statement":[{"Resource":"%s","Condition":{"DateLessThan":{"AWS:EpochTime":%s}}}]}'
              % (url.split("?")[0], query["Expires"])).encode()
    signature = base64.b64decode(query["Signature"].replace("-", "+").replace("_", "=").replace("~", "/"))
    serialization.load_pem_public_key(keys[query["Key-Pair-Id"]].encode()).verify(
        signature, policy, padding.PKCS1v15(), hashes.SHA1())
    status, body, _ = request(url)
    assert status == 200 and body == data
    assert control(served, "/_mockcdn/requests")["requests"][-1]["credential"] == "cloudfront"
    settings = control(served, f"/v1/apps/{app}/settings")
    assert settings["MEDIA_URL_ACCESS"] == "presigned" and settings["MEDIA_URL_TTL"] == ttl
    # The presign route still works in this mode.
    status, body, _ = request(f"{served}/v1/apps/{app}/presign", "POST", json.dumps({"url": url}).encode(),
                              {"fat": fat(served, app), "Content-Type": "application/json"})
    assert status == 200, body
    assert request(json.loads(body)["url"])[0] == 200
    try:
        control(served, "/_mockcdn/clock", "PUT", {"now": int(query["Expires"]) - 1})
        assert request(url)[0] == 200
        control(served, "/_mockcdn/clock", "PUT", {"now": int(query["Expires"])})
        status, body, _ = request(url)
        assert status == 403 and b"<Message>Request has expired</Message>" in body
    finally:
        control(served, "/_mockcdn/clock", "PUT", {"now": now})


@pytest.mark.parametrize("lines, accepted", [
    ("    media_url_access: presigned\n    presigned_url_ttl: 900\n", True),
    ("    media_url_access: presigned\n    presigned_url_ttl: 2592000\n", True),
    ("    media_url_access: presigned\n    presigned_url_ttl: 899\n", False),
    ("    media_url_access: presigned\n    presigned_url_ttl: 2592001\n", False),
    ("    media_url_access: signed\n", False),
], ids=["900", "2592000", "899", "2592001", "unknown-mode"])
def test_each_bound_of_the_setting_at_start(tmp_path, lines, accepted):
    first, message = start_outcome(config(tmp_path, {"bounds": lines}))
    if accepted:
        assert first.startswith("mockcdn ready on"), first
    else:
        assert "app bounds: " in message and (
            "presigned_url_ttl must be 900...2592000 seconds" in message
            or "media_url_access must be fat or presigned" in message), message
