"""CloudFront signed cookies on media reads, made by an independent signer: botocore's CloudFrontSigner builds
the policy, `cryptography` signs it with the demo key pair's private key (RSA, SHA-1 or SHA-256), and the
cookies are assembled here as CloudFront documents them. Each is accepted, and refused once tampered or past
its time by MockCDN's clock; a signed URL decides alone when both come; CloudFront's own error text.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import base64
import datetime
import json
import subprocess
import xml.etree.ElementTree as ET

import pytest
from botocore.signers import CloudFrontSigner
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

from conftest import launch
from support import BINARY, KEY_PAIR_ID, PRIVATE_KEY, png, request, upload


def cloudfront_b64(raw: bytes) -> str:
    """CloudFront's base64: `+` `=` `/` become `-` `_` `~`."""
    return base64.b64encode(raw).decode().replace("+", "-").replace("=", "_").replace("/", "~")


def rsa_sign(message: bytes, sha256: bool = False) -> bytes:
    key = serialization.load_pem_private_key(PRIVATE_KEY.read_bytes(), password=None)
    return key.sign(message, padding.PKCS1v15(), hashes.SHA256() if sha256 else hashes.SHA1())


def custom_cookies(resource: str, expires: int, starts: int | None = None, ip: str | None = None,
                   sha256: bool = False) -> dict:
    signer = CloudFrontSigner(KEY_PAIR_ID, rsa_sign)
    policy = signer.build_policy(
        resource, datetime.datetime.fromtimestamp(expires, datetime.timezone.utc),
        date_greater_than=datetime.datetime.fromtimestamp(starts, datetime.timezone.utc) if starts else None,
        ip_address=ip).encode()
    cookies = {"CloudFront-Policy": cloudfront_b64(policy),
               "CloudFront-Signature": cloudfront_b64(rsa_sign(policy, sha256)),
               "CloudFront-Key-Pair-Id": KEY_PAIR_ID}
    if sha256:
        cookies["CloudFront-Hash-Algorithm"] = "SHA256"
    return cookies


def canned_cookies(url: str, expires: int) -> dict:
    # CloudFront's canned policy, byte for byte as its documentation writes it (no spaces).
    policy = ('{"Statement":[{"Resource":"%s","Condition":{"DateLessThan":{"AWS:EpochTime":%d}}}]}'
              % (url, expires)).encode()
    return {"CloudFront-Expires": str(expires), "CloudFront-Signature": cloudfront_b64(rsa_sign(policy)),
            "CloudFront-Key-Pair-Id": KEY_PAIR_ID}


def read(url: str, cookies: dict | None = None):
    headers = {"Cookie": "; ".join(f"{name}={value}" for name, value in (cookies or {}).items())} if cookies else {}
    return request(url, headers=headers)


def error(body: bytes) -> tuple[str, str]:
    root = ET.fromstring(body)
    return root.findtext("Code"), root.findtext("Message")


def tampered(cookies: dict) -> dict:
    signature = cookies["CloudFront-Signature"]
    middle = len(signature) // 2
    return {**cookies, "CloudFront-Signature": signature[:middle] + ("B" if signature[middle] != "B" else "C")
            + signature[middle + 1:]}


@pytest.fixture(scope="module")
def served():
    with launch() as server:
        images = [upload(server.url, "image", f"cookie{i}.png", "image/png", png(), channel="cookies").split("?")[0]
                  for i in range(2)]
        yield server.url, images


def now(base: str) -> int:
    return json.loads(request(base + "/_mockcdn/clock")[1])["now"]


def set_clock(base: str, seconds: int) -> None:
    status, _, _ = request(base + "/_mockcdn/clock", "PUT", json.dumps({"now": seconds}).encode(),
                           {"Content-Type": "application/json"})
    assert status == 200


def last_credential(base: str) -> str:
    return json.loads(request(base + "/_mockcdn/requests")[1])["requests"][-1]["credential"]


@pytest.mark.parametrize("sha256", [False, True], ids=["sha1", "sha256"])
def test_a_custom_policy_cookie_opens_a_prefix_until_it_expires(served, sha256):
    base, images = served
    start = now(base)
    folder = images[0].rsplit("/", 2)[0]  # .../demo/images
    cookies = custom_cookies(folder + "/*", start + 600, sha256=sha256)
    for url in images:
        status, body, _ = read(url, cookies)
        assert status == 200 and body == png(), body[:200]
        assert last_credential(base) == "cloudfront-cookie"
    # Without the cookies: no credential at all.
    assert read(images[0])[0] == 401
    status, body, _ = read(images[0], tampered(cookies))
    assert status == 403 and error(body) == ("AccessDenied", "Signature does not match")
    try:
        set_clock(base, start + 600)
        status, body, _ = read(images[0], cookies)
        assert status == 403 and error(body) == ("AccessDenied", "Request has expired")
    finally:
        set_clock(base, start)


def test_a_canned_cookie_opens_exactly_its_url(served):
    base, images = served
    start = now(base)
    cookies = canned_cookies(images[0], start + 300)
    assert read(images[0], cookies)[0] == 200
    status, body, _ = read(images[1], cookies)
    assert status == 403 and error(body) == ("AccessDenied", "Signature does not match")
    try:
        set_clock(base, start + 300)
        assert error(read(images[0], cookies)[1]) == ("AccessDenied", "Request has expired")
    finally:
        set_clock(base, start)


def test_date_greater_than_and_ip_address_are_conditions_as_in_signed_urls(served):
    base, images = served
    start = now(base)
    pattern = images[0].rsplit("/", 2)[0] + "/*"
    later = custom_cookies(pattern, start + 900, starts=start + 300)
    status, body, _ = read(images[0], later)
    assert status == 403 and error(body) == ("AccessDenied", "Request is not yet valid (DateGreaterThan)")
    assert read(images[0], custom_cookies(pattern, start + 900, ip="127.0.0.1/32"))[0] == 200
    status, body, _ = read(images[0], custom_cookies(pattern, start + 900, ip="10.0.0.0/8"))
    assert status == 403 and error(body) == ("AccessDenied", "Source IP is not allowed by the policy")


def test_a_signed_url_decides_alone_when_cookies_come_too(served):
    """CloudFront: a request with a signed URL is judged by the URL only, whatever cookies it carries."""
    base, images = served
    start = now(base)
    good = custom_cookies(images[0].rsplit("/", 2)[0] + "/*", start + 600)
    signer = CloudFrontSigner(KEY_PAIR_ID, rsa_sign)
    url = signer.generate_presigned_url(
        images[0], date_less_than=datetime.datetime.fromtimestamp(start + 600, datetime.timezone.utc))
    broken_url = url.replace("Signature=", "Signature=AAAA")
    status, body, _ = read(broken_url, good)
    assert status == 403 and error(body)[0] == "AccessDenied"
    assert read(url, tampered(good))[0] == 200
    assert last_credential(base) == "cloudfront"


def test_cloudfronts_own_error_text(served):
    base, images = served
    start = now(base)
    cookies = custom_cookies(images[0].rsplit("/", 2)[0] + "/*", start + 600)
    missing = {name: value for name, value in cookies.items() if name != "CloudFront-Key-Pair-Id"}
    status, body, _ = read(images[0], missing)
    assert status == 403 and error(body) == ("MissingKey", "Missing Key-Pair-Id query parameter or cookie value")
    assert "CloudFront-Key-Pair-Id" in ET.fromstring(body).findtext("Rule")
    status, body, _ = read(images[0], {**cookies, "CloudFront-Key-Pair-Id": "KUNKNOWN000000"})
    assert status == 403 and error(body) == ("InvalidKey", "Unknown Key")
    status, body, _ = read(images[0], {**cookies, "CloudFront-Policy": cloudfront_b64(b"{not json")})
    assert status == 403 and error(body) == ("MalformedPolicy", "Malformed Policy")
    # The same text for a signed URL without its key id.
    status, body, _ = request(images[0] + "?Expires=%d&Signature=abc" % (start + 60))
    assert status == 403 and error(body)[0] == "MissingKey"


def test_mockcdn_sign_cookies_prints_set_cookie_lines_that_work(served):
    base, images = served
    pattern = images[0].rsplit("/", 2)[0] + "/*"
    output = subprocess.run([str(BINARY), "sign", "cookies", pattern, "--ttl", "600", "--now", str(now(base))],
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert [line.split("=", 1)[0] for line in output] == [
        "Set-Cookie: CloudFront-Policy", "Set-Cookie: CloudFront-Signature", "Set-Cookie: CloudFront-Key-Pair-Id"]
    assert all("; Path=/demo/images/; HttpOnly" in line for line in output), output
    cookies = dict(line.removeprefix("Set-Cookie: ").split(";", 1)[0].split("=", 1) for line in output)
    assert read(images[1], cookies)[0] == 200
