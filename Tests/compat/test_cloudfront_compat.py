"""Compatibility suite: URLs signed by real AWS tooling (botocore's CloudFrontSigner and
`aws cloudfront sign`) against a running MockCDN.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
The server binary comes from ``$MOCKCDN_BINARY`` (default ``<repo>/.build/debug/mockcdn``).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET

import pytest
from botocore.signers import CloudFrontSigner
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from support import PRIVATE_KEY, KEY_PAIR_ID, png, request, send_json, upload

FILE_BYTES = b"MockCDN CloudFront compat \x00\x01\x02\xff payload\n"


# --------------------------------------------------------------------------- helpers


def _assert_denied(status: int, body: bytes, rule: str, url: str) -> None:
    assert status == 403, f"GET {url}\nexpected 403 ({rule}), got {status}: {body[:400]!r}"
    root = ET.fromstring(body)
    assert root.tag == "Error", body
    assert root.findtext("Code") == "AccessDenied", body
    message = root.findtext("Message") or ""
    assert rule.lower() in message.lower(), f"GET {url}\nexpected message naming {rule!r}, got {message!r}"


def _tamper_signature(url: str) -> str:
    """Changes one character in the middle of the Signature value (middle characters carry full
    6 bits, unlike the last ones before the `_` padding)."""
    match = re.search(r"([?&]Signature=)([^&]+)", url)
    assert match, url
    sig = match.group(2)
    i = len(sig) // 2
    replacement = "B" if sig[i] != "B" else "C"
    tampered = sig[:i] + replacement + sig[i + 1 :]
    return url[: match.start(2)] + tampered + url[match.end(2) :]


def _rsa_signer():
    key = serialization.load_pem_private_key(PRIVATE_KEY.read_bytes(), password=None)

    def sign(message: bytes) -> bytes:
        return key.sign(message, padding.PKCS1v15(), hashes.SHA1())

    return sign


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def uploaded(server):
    """A file attachment and an image, uploaded once; returns their MockCDN-issued signed URLs."""
    file_url = upload(server, "file", "compat.bin", "application/octet-stream", FILE_BYTES)
    image_bytes = png()
    image_url = upload(server, "image", "compat.png", "image/png", image_bytes)
    assert file_url.startswith(f"{server}/demo/attachments/"), file_url
    assert image_url.startswith(f"{server}/demo/images/"), image_url
    return {
        "file_signed": file_url,
        "file": file_url.split("?", 1)[0],
        "image_signed": image_url,
        "image": image_url.split("?", 1)[0],
        "image_bytes": image_bytes,
    }


@pytest.fixture(scope="module")
def signer():
    return CloudFrontSigner(KEY_PAIR_ID, _rsa_signer())


@pytest.fixture
def expiry(server):
    """An expiry one hour after the server clock (which starts at real time)."""
    status, body, _ = request(f"{server}/_mockcdn/clock")
    assert status == 200, body
    now = int(json.loads(body)["now"])
    return datetime.datetime.fromtimestamp(now + 3600, tz=datetime.timezone.utc).replace(microsecond=0)


@pytest.fixture
def canned_url(uploaded, signer, expiry):
    return signer.generate_presigned_url(uploaded["file"], date_less_than=expiry)


@pytest.fixture
def custom_url(server, uploaded, signer, expiry):
    policy = signer.build_policy(f"{server}/demo/attachments/*", expiry)
    return signer.generate_presigned_url(uploaded["file"], policy=policy), policy


def _reset_clock(server: str) -> None:
    send_json(f"{server}/_mockcdn/clock", "PUT", {"now": int(time.time())})


# --------------------------------------------------------------------------- cases


def test_1_canned_url_from_botocore_returns_uploaded_bytes(canned_url):
    status, body, _ = request(canned_url)
    assert status == 200, f"GET {canned_url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


def test_2a_custom_policy_wildcard_covers_object(custom_url):
    url, _ = custom_url
    assert "Policy=" in url and "Expires=" not in url
    status, body, _ = request(url)
    assert status == 200, f"GET {url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


def test_2b_custom_policy_on_uncovered_path_is_denied(uploaded, signer, custom_url):
    _, policy = custom_url
    # The image exists under /demo/images/, which the attachments wildcard does not cover.
    url = signer.generate_presigned_url(uploaded["image"], policy=policy)
    status, body, _ = request(url)
    _assert_denied(status, body, "Resource is not covered by the policy", url)


@pytest.mark.parametrize("kind", ["canned", "custom"])
def test_3_tampered_signature_is_denied(kind, canned_url, custom_url):
    url = canned_url if kind == "canned" else custom_url[0]
    tampered = _tamper_signature(url)
    assert tampered != url
    status, body, _ = request(tampered)
    _assert_denied(status, body, "Signature does not match", tampered)


@pytest.mark.parametrize("kind", ["canned", "custom"])
def test_4_expiry_follows_server_clock(kind, server, canned_url, custom_url, expiry):
    url = canned_url if kind == "canned" else custom_url[0]
    try:
        send_json(f"{server}/_mockcdn/clock", "PUT", {"now": int(expiry.timestamp()) + 1})
        status, body, _ = request(url)
        _assert_denied(status, body, "Request has expired", url)
    finally:
        _reset_clock(server)
    status, body, _ = request(url)
    assert status == 200, f"after clock reset GET {url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


def test_5_aws_cli_cloudfront_sign(uploaded):
    aws = shutil.which("aws")
    if aws is None:
        pytest.fail("awscli is not installed (make test installs it with pip)")
    date_less_than = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=2)).date()
    env = dict(os.environ)
    # `aws cloudfront sign` signs locally, but the CLI still wants a region and credentials to exist.
    env.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    env.setdefault("AWS_ACCESS_KEY_ID", "compat-dummy")
    env.setdefault("AWS_SECRET_ACCESS_KEY", "compat-dummy")
    result = subprocess.run(
        [
            aws, "cloudfront", "sign",
            "--url", uploaded["file"],
            "--key-pair-id", KEY_PAIR_ID,
            "--private-key", f"file://{PRIVATE_KEY}",
            "--date-less-than", date_less_than.isoformat(),
        ],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    url = result.stdout.strip()
    assert url.startswith(uploaded["file"] + "?Expires="), url
    status, body, _ = request(url)
    assert status == 200, f"GET {url} -> {status}: {body[:300]!r}"
    assert body == FILE_BYTES


@pytest.mark.parametrize("which", ["file_signed", "image_signed"])
def test_6_image_transform_params_on_issued_link(which, uploaded):
    """Appended transform parameters leave the signature valid: an image is resized (clip never enlarges
    the 8x8 source), a file is refused with 400 only after its signature passed; `ro` alone changes nothing."""
    url = uploaded[which] + "&w=100&h=*&resize=clip&ro=0"
    status, body, _ = request(url)
    if which == "file_signed":
        assert status == 400, f"GET {url} -> {status}: {body[:300]!r}"
        assert ET.fromstring(body).findtext("Code") == "InvalidArgument", body
        status, body, _ = request(uploaded[which] + "&ro=0")
        assert status == 200, body
        assert body == FILE_BYTES
    else:
        assert status == 200, f"GET {url} -> {status}: {body[:300]!r}"
        assert body.startswith(b"\x89PNG\r\n\x1a\n"), body[:16]


@pytest.mark.parametrize("which", ["file", "image"])
def test_7_no_query_is_unauthorized(which, uploaded):
    url = uploaded[which]
    assert "?" not in url
    status, body, _ = request(url)
    assert status == 401, f"GET {url} -> {status}: {body[:300]!r}"


# --------------------------------------------------------------------------- Stream-shaped links


def _decoded_policy(url: str) -> str:
    import base64
    import urllib.parse

    policy = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["Policy"][0]
    return base64.b64decode(policy.replace("-", "+").replace("_", "=").replace("~", "/")).decode()


@pytest.mark.parametrize("which,suffix", [("image_signed", "?*oh=8*ow=8*"), ("file_signed", "*")])
def test_8_issued_links_are_botocore_custom_policies(which, suffix, uploaded, signer):
    """The policy of every issued link is byte for byte what botocore's CloudFrontSigner builds for the same
    wildcard resource and expiry, and botocore signing that policy makes a link MockCDN accepts."""
    link = uploaded[which]
    unsigned = link.split("?", 1)[0]
    policy = json.loads(_decoded_policy(link))
    expires = policy["Statement"][0]["Condition"]["DateLessThan"]["AWS:EpochTime"]
    built = signer.build_policy(unsigned + suffix, datetime.datetime.fromtimestamp(expires, tz=datetime.timezone.utc))
    assert _decoded_policy(link) == built
    assert link.split("?", 1)[1].split("&")[0].startswith("Key-Pair-Id=")
    signed = signer.generate_presigned_url(unsigned, policy=built)
    tail = "&oh=8&ow=8" if which == "image_signed" else ""
    status, body, _ = request(signed + tail + "&w=4&h=4&resize=scale")
    if which == "image_signed":
        assert status == 200 and body.startswith(b"\x89PNG"), body[:200]
    else:
        assert status == 400 and ET.fromstring(body).findtext("Code") == "InvalidArgument"


def test_9_wildcard_image_policy_binds_the_original_size(uploaded, signer, expiry):
    """A botocore policy for `url?*oh=8*ow=8*` covers the link with any added parameter, but not with
    another `oh`."""
    unsigned = uploaded["image"]
    policy = signer.build_policy(unsigned + "?*oh=8*ow=8*", expiry)
    signed = signer.generate_presigned_url(unsigned, policy=policy)
    assert request(signed + "&oh=8&ow=8&ro=0&w=2")[0] == 200
    status, body, _ = request(signed + "&oh=9&ow=8")
    _assert_denied(status, body, "not covered", signed)
