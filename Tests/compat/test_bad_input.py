"""The bad-input catalogue, against the real binary: each hostile or malformed request gets its exact status
and envelope (Stream JSON code, S3 XML code, CometChat JSON code), never a 500; uploads that fail leave
nothing stored (the channel listing does not change) and the server is still healthy afterwards.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import struct
import subprocess
import time
import uuid
import xml.etree.ElementTree as ET
import zlib

import pytest

import support
from support import API_SECRET, BINARY, b64url, jwt, request

SAMPLE = "/demo/fixtures/sample.jpg"


def cli(*arguments: str) -> str:
    return subprocess.run([str(BINARY), *arguments], capture_output=True, text=True, check=True).stdout.strip()


def signed_jwt(header: dict, claims: dict, secret: str = API_SECRET) -> str:
    head = b64url(json.dumps(header).encode())
    body = b64url(json.dumps(claims).encode())
    signature = b64url(hmac.new(secret.encode(), f"{head}.{body}".encode(), hashlib.sha256).digest())
    return f"{head}.{body}.{signature}"


def multipart(parts: list[tuple[str, str | None, str | None, bytes]], boundary: str = "catalogue") -> bytes:
    return support.multipart(parts, boundary)


def crafted_png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


MULTIPART = "multipart/form-data; boundary=catalogue"
UPLOAD = "/channels/messaging/catalogue/file?api_key=demo-key"
IMAGE = "/channels/messaging/catalogue/image?api_key=demo-key"
TEXT = b"just text\n"


def user_headers(content_type: str = MULTIPART) -> dict:
    return {"Authorization": jwt(), "Content-Type": content_type}


def build_cases(base: str) -> list[tuple]:
    """(name, method, path or URL, headers, body, status, kind, code); kind is stream | s3 | cometchat | any."""
    signed = cli("sign", "cloudfront", base + SAMPLE)
    presigned = cli("sign", "presign", base + SAMPLE, "--ttl", "600")
    presigned_v2 = cli("sign", "presign", base + SAMPLE, "--sigv2", "--ttl", "600")
    expired_v2 = cli("sign", "presign", base + SAMPLE, "--sigv2", "--ttl", "1", "--now", "1000")
    v2_signature = presigned_v2.split("Signature=", 1)[1]
    tampered_v2 = presigned_v2.replace("Signature=" + v2_signature[0], "Signature=" + ("B" if v2_signature[0] != "B" else "C"), 1)
    assert "%2Fus-east-1%2Fs3%2F" in presigned and "AWSAccessKeyId=demo-key" in presigned_v2 and tampered_v2 != presigned_v2
    fat = cli("token", "fat", "--user-id", "alice")
    expired_fat = cli("token", "fat", "--user-id", "alice", "--ttl", "1", "--now", "1000")
    expired_link = cli("sign", "cloudfront", base + SAMPLE, "--ttl", "1", "--now", "1000")
    mac_flipped = fat[:-3] + ("A" if fat[-3] != "A" else "B") + fat[-2:]
    acme_payload = base64.b64encode(json.dumps({"app": "acme", "uid": "a", "exp": 4_000_000_000}).encode()).decode()
    now = 1_800_000_000
    cases = [
        # Stream JWTs
        ("no Authorization", "POST", UPLOAD, {"Content-Type": MULTIPART}, multipart([("file", "a.txt", "text/plain", TEXT)]), 401, "stream", 5),
        ("alg none", "POST", UPLOAD, {"Authorization": b64url(b'{"alg":"none"}') + "." + b64url(b'{"user_id":"a"}') + ".", "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("HS512 token", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS512", "typ": "JWT"}, {"user_id": "a"}), "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("JWT with bad base64", "POST", UPLOAD, {"Authorization": "abc$.def$.ghi$", "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("expired JWT", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS256"}, {"user_id": "a", "exp": 1000}), "Content-Type": MULTIPART}, b"", 401, "stream", 40),
        ("JWT issued in the future", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS256"}, {"user_id": "a", "iat": 4_000_000_000}), "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("JWT signed with another secret", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS256"}, {"user_id": "a"}, "x" * 40), "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("JWT with server:false and no user", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS256"}, {"server": False, "admin": True}), "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("10 KB JWT", "POST", UPLOAD, {"Authorization": "a" * 10_000, "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("no api_key", "POST", "/channels/messaging/catalogue/file", user_headers(), b"", 401, "stream", 5),
        ("unknown api_key", "POST", "/channels/messaging/catalogue/file?api_key=nope", user_headers(), b"", 401, "stream", 5),
        ("stream-auth-type anonymous", "POST", UPLOAD, {**user_headers(), "stream-auth-type": "anonymous"}, b"", 401, "stream", 5),
        # Multipart bodies
        ("no boundary", "POST", UPLOAD, user_headers("multipart/form-data"), b"x", 400, "stream", 4),
        ("not multipart", "POST", UPLOAD, user_headers("application/json"), b"{}", 400, "stream", 4),
        ("truncated body", "POST", UPLOAD, user_headers(), multipart([("file", "a.txt", "text/plain", TEXT)])[:-30], 400, "stream", 4),
        ("huge part headers", "POST", UPLOAD, user_headers(), multipart([("file", "n" * 40_000, "text/plain", TEXT)]), 400, "stream", 4),
        ("no file part", "POST", UPLOAD, user_headers(), multipart([("other", None, None, b"x")]), 400, "stream", 4),
        ("non-ASCII part header name (crashed multipart-kit)", "POST", UPLOAD, user_headers(), b"--catalogue\r\nContent-Disp\x8fsition: form-data; name=\"file\"\r\n\r\nx\r\n--catalogue--\r\n", 400, "stream", 4),
        ("two file parts", "POST", UPLOAD, user_headers(), multipart([("file", "a.txt", None, TEXT), ("file", "b.txt", None, TEXT)]), 400, "stream", 4),
        ("zero-byte file", "POST", UPLOAD, user_headers(), multipart([("file", "a.txt", "text/plain", b"")]), 400, "stream", 4),
        ("declared PNG, text bytes", "POST", IMAGE, user_headers(), multipart([("file", "a.png", "image/png", TEXT)]), 400, "stream", 4),
        ("text on the image route", "POST", IMAGE, user_headers(), multipart([("file", "a.txt", None, TEXT)]), 400, "stream", 4),
        ("upload_sizes not JSON", "POST", IMAGE, user_headers(), multipart([("file", "s.jpg", None, open_fixture("sample.jpg")), ("upload_sizes", None, None, b"[{")]), 400, "stream", 4),
        ("upload_sizes width 0", "POST", IMAGE, user_headers(), multipart([("file", "s.jpg", None, open_fixture("sample.jpg")), ("upload_sizes", None, None, b'[{"width":0}]')]), 400, "stream", 4),
        ("user part not JSON", "POST", UPLOAD, {"Authorization": jwt({"server": True}), "Content-Type": MULTIPART}, multipart([("file", "a.txt", None, TEXT), ("user", None, None, b"{")]), 400, "stream", 4),
        ("Content-Length over the limit", "POST", UPLOAD, {**user_headers(), "Content-Length": str(200 * 1024 * 1024)}, None, 413, "stream", 22),
        # FATs on reads
        ("garbage FAT", "GET", SAMPLE, {"fat": "garbage"}, None, 403, "s3", "AccessDenied"),
        ("FAT without a dot", "GET", SAMPLE, {"fat": fat.replace(".", "")}, None, 403, "s3", "AccessDenied"),
        ("FAT with a flipped MAC character", "GET", SAMPLE, {"fat": mac_flipped}, None, 403, "s3", "AccessDenied"),
        ("FAT of another app", "GET", SAMPLE, {"fat": acme_payload + "." + fat.split(".")[1]}, None, 403, "s3", "AccessDenied"),
        ("expired FAT", "GET", SAMPLE, {"fat": expired_fat}, None, 403, "s3", "AccessDenied"),
        ("5 KB FAT", "GET", SAMPLE, {"fat": "A" * 5000 + ".AAAA"}, None, 403, "s3", "AccessDenied"),
        ("FAT header and query differ", "GET", SAMPLE + "?fat=other", {"fat": fat}, None, 400, "s3", "InvalidArgument"),
        ("empty FAT header", "GET", SAMPLE, {"fat": ""}, None, 401, "s3", "AccessDenied"),
        ("no credential", "GET", SAMPLE, {}, None, 401, "s3", "AccessDenied"),
        # SigV4
        ("SigV4: another algorithm", "GET", presigned.replace("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA1"), {}, None, 403, "s3", "AccessDenied"),
        ("SigV4: credential cut short", "GET", presigned.replace("%2Faws4_request", ""), {}, None, 403, "s3", "AccessDenied"),
        ("SigV4: impossible date", "GET", presigned.replace("X-Amz-Date=2", "X-Amz-Date=9"), {}, None, 403, "s3", "AccessDenied"),
        ("SigV4: zero lifetime", "GET", presigned.replace("X-Amz-Expires=600", "X-Amz-Expires=0"), {}, None, 403, "s3", "AccessDenied"),
        ("SigV4: lifetime over a week", "GET", presigned.replace("X-Amz-Expires=600", "X-Amz-Expires=604801"), {}, None, 403, "s3", "AccessDenied"),
        ("SigV4: signature not hex", "GET", presigned[:-4] + "zzzz", {}, None, 403, "s3", "SignatureDoesNotMatch"),
        ("SigV4: wrong region", "GET", presigned.replace("%2Fus-east-1%2Fs3", "%2Feu-west-1%2Fs3"), {}, None, 400, "s3", "AuthorizationQueryParametersError"),
        ("SigV4: unknown access key", "GET", presigned.replace("Credential=demo-key", "Credential=nope-key"), {}, None, 403, "s3", "InvalidAccessKeyId"),
        ("SigV4: authorization signed", "GET", presigned.replace("SignedHeaders=host", "SignedHeaders=authorization%3Bhost"), {}, None, 403, "s3", "AccessDenied"),
        ("SigV4: one digit changed", "GET", presigned[:-1] + ("0" if presigned[-1] != "0" else "1"), {}, None, 403, "s3", "SignatureDoesNotMatch"),
        # SigV2
        ("SigV2: one signature character changed", "GET", tampered_v2, {}, None, 403, "s3", "SignatureDoesNotMatch"),
        ("SigV2: expired", "GET", expired_v2, {}, None, 403, "s3", "AccessDenied"),
        ("SigV2: unknown access key", "GET", presigned_v2.replace("AWSAccessKeyId=demo-key", "AWSAccessKeyId=nope-key"), {}, None, 403, "s3", "InvalidAccessKeyId"),
        ("SigV2: Expires not a number", "GET", SAMPLE + "?AWSAccessKeyId=demo-key&Expires=soon&Signature=abc", {}, None, 403, "s3", "AccessDenied"),
        # CloudFront
        ("CloudFront: no Key-Pair-Id", "GET", SAMPLE + "?Expires=4000000000&Signature=abc", {}, None, 403, "s3", "MissingKey"),
        ("CloudFront: unknown key pair", "GET", signed.replace("K2JCJMDEHXQW5F", "KNOPE00000000"), {}, None, 403, "s3", "InvalidKey"),
        ("CloudFront: Expires not a number", "GET", SAMPLE + "?Expires=soon&Signature=abc&Key-Pair-Id=K2JCJMDEHXQW5F", {}, None, 403, "s3", "AccessDenied"),
        ("CloudFront: policy not base64", "GET", SAMPLE + "?Policy=%%%&Signature=abc&Key-Pair-Id=K2JCJMDEHXQW5F", {}, None, 403, "s3", "MalformedPolicy"),
        ("CloudFront: policy not JSON", "GET", SAMPLE + "?Policy=bm90IGpzb24_&Signature=abc&Key-Pair-Id=K2JCJMDEHXQW5F", {}, None, 403, "s3", "MalformedPolicy"),
        ("CloudFront: unknown hash", "GET", signed + "&Hash-Algorithm=MD5", {}, None, 403, "s3", "AccessDenied"),
        ("CloudFront: expired", "GET", expired_link, {}, None, 403, "s3", "AccessDenied"),
        # Paths
        ("encoded ..", "GET", "/demo/%2e%2e/secret", {"fat": fat}, None, 400, "s3", "InvalidURI"),
        ("NUL in the key", "GET", "/demo/a%00b", {"fat": fat}, None, 400, "s3", "InvalidURI"),
        ("backslash in the key", "GET", "/demo/a%5c..%5cb", {"fat": fat}, None, 400, "s3", "InvalidURI"),
        ("invalid UTF-8 in the key", "GET", "/demo/a%ff", {"fat": fat}, None, 400, "s3", "InvalidURI"),
        ("unknown app", "GET", "/nope/a.txt", {"fat": fat}, None, 404, "s3", "NoSuchBucket"),
        # Ranges
        ("Range end before start", "GET", signed, {"Range": "bytes=5-1"}, None, 200, "any", None),
        ("Range past the end", "GET", signed, {"Range": "bytes=10000000-"}, None, 416, "s3", "InvalidRange"),
        ("Range of zero suffix bytes", "GET", signed, {"Range": "bytes=-0"}, None, 416, "s3", "InvalidRange"),
        ("Range not bytes", "GET", signed, {"Range": "items=0-1"}, None, 200, "any", None),
        ("Range garbage", "GET", signed, {"Range": "bytes=abc"}, None, 200, "any", None),
        # Transforms and pixel bounds
        ("w=0", "GET", signed + "&w=0", {}, None, 400, "s3", "InvalidArgument"),
        ("w over 4096", "GET", signed + "&w=99999", {}, None, 400, "s3", "InvalidArgument"),
        ("resize unknown", "GET", signed + "&w=10&resize=zoom", {}, None, 400, "s3", "InvalidArgument"),
        ("crop unknown", "GET", signed + "&w=10&crop=middle", {}, None, 400, "s3", "InvalidArgument"),
        ("transform on a PDF", "GET", cli("sign", "cloudfront", base + "/demo/fixtures/sample.pdf") + "&w=10", {}, None, 400, "s3", "InvalidArgument"),
        ("resize of 4100x4100", "GET", cli("sign", "cloudfront", base + "/demo/fixtures/large-4100x4100.jpg") + "&w=100", {}, None, 422, "s3", "ImageTooLarge"),
        # CometChat
        ("presign without FAT", "POST", "/v1/apps/demo/presign", {}, b'{"url":"x"}', 401, "cometchat", "ERR_NOT_LOGGED_IN"),
        ("presign with bad JSON", "POST", "/v1/apps/demo/presign", {"fat": fat}, b"{", 400, "cometchat", "ERR_BAD_REQUEST"),
        ("presign of another app's URL", "POST", "/v1/apps/demo/presign", {"fat": fat}, json.dumps({"url": base + "/acme/x"}).encode(), 400, "cometchat", "ERR_INVALID_URL"),
        ("media upload without FAT", "POST", "/demo/media", {"Content-Type": MULTIPART}, multipart([("file", "a.txt", None, TEXT)]), 401, "cometchat", "ERR_NOT_LOGGED_IN"),
        ("FAT mint for another user", "POST", "/v1/apps/demo/fat", {"Authorization": jwt()}, b'{"user_id":"mallory"}', 403, "cometchat", "ERR_NOT_ALLOWED"),
        ("FAT mint ttl 0", "POST", "/v1/apps/demo/fat", {"Authorization": jwt({"server": True})}, b'{"user_id":"a","ttl":0}', 400, "cometchat", "ERR_BAD_REQUEST"),
        # Oversized requests
        ("100 KB header", "GET", SAMPLE, {"X-Padding": "a" * 100_000}, None, None, "any", None),
        ("20 KB query without a credential", "GET", SAMPLE + "?x=" + "a" * 20_000, {}, None, 401, "s3", "AccessDenied"),
        ("2,000 query parameters", "GET", SAMPLE + "?" + "&".join(f"p{i}=1" for i in range(2000)), {}, None, 401, "s3", "AccessDenied"),
        # Hostile input (see test_hostile_input.py for the multi-step cases)
        ("multipart boundary after a bare LF, then a non-ASCII header name (crashed the server)", "POST", UPLOAD, user_headers(), b"\n--catalogue\r\nContent-Disp\x8fsition: form-data; name=\"file\"\r\n\r\nx\r\n--catalogue--\r\n", 400, "stream", 4),
        ("multipart boundary after stray bytes, then a non-ASCII header name", "POST", "/api/v2/uploads/file?api_key=demo-key", user_headers(), b"xx--catalogue\r\n\xc3\xa9: 1\r\n\r\nx\r\n--catalogue--\r\n", 400, "stream", 4),
        ("multipart header name with a space", "POST", UPLOAD, user_headers(), b"--catalogue\r\nContent Disposition: x\r\n\r\nx\r\n--catalogue--\r\n", 400, "stream", 4),
        ("declared text/html with a vertical tab", "POST", UPLOAD, user_headers(), multipart([("file", "a.html", "text/html\x0b", b"<p>x</p>")]), 400, "stream", 4),
        ("namespaced SVG declared BMP on the image route", "POST", IMAGE, user_headers(), multipart([("file", "a.bmp", "image/bmp", b'<x:svg xmlns:x="http://www.w3.org/2000/svg"/>')]), 400, "stream", 4),
        ("TIFF declared PNG on the image route", "POST", IMAGE, user_headers(), multipart([("file", "a.png", "image/png", b"II*\x00\x08\x00\x00\x00" + bytes(64))]), 400, "stream", 4),
        ("JWT exp as a string", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS256"}, {"user_id": "a", "exp": "1000"}), "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("JWT nbf in the future", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS256"}, {"user_id": "a", "nbf": 4_000_000_000}), "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("JWT server:1", "GET", "/app?api_key=demo-key", {"Authorization": signed_jwt({"alg": "HS256"}, {"server": 1})}, None, 401, "stream", 5),
        ("JWT with an unknown crit header", "POST", UPLOAD, {"Authorization": signed_jwt({"alg": "HS256", "crit": ["x"], "x": 1}, {"user_id": "a"}), "Content-Type": MULTIPART}, b"", 401, "stream", 5),
        ("listing limit 0", "GET", "/channels/messaging/catalogue/uploads?api_key=demo-key&limit=0", {"Authorization": jwt({"server": True})}, None, 400, "stream", 4),
        ("control POST as text/plain from a page", "POST", "/_mockcdn/clock/advance", {"Content-Type": "text/plain", "Origin": "http://evil.example"}, b'{"seconds":86400}', 403, "control", None),
        ("control POST as a form from another site", "POST", "/_mockcdn/reset", {"Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "cross-site"}, b"a=b", 403, "control", None),
        ("control read under a rebinding Host", "GET", "/_mockcdn/requests", {"Host": "evil.example"}, None, 403, "control", None),
        ("fault glob over 1,024 bytes", "POST", "/_mockcdn/faults", {"Content-Type": "application/json"}, json.dumps({"match": {"path": "*a" * 600}, "action": {"status": 503}}).encode(), 400, "any", None),
    ]
    return cases


def open_fixture(name: str) -> bytes:
    from support import REPO

    return (REPO / "Fixtures" / "media" / name).read_bytes()


def listing(base: str) -> list:
    status, body, _ = request(
        f"{base}/channels/messaging/catalogue/uploads?api_key=demo-key", headers={"Authorization": jwt({"server": True})}
    )
    assert status == 200, body
    return json.loads(body)["uploads"]


def test_catalogue(server):
    cases = build_cases(server)
    assert len(cases) >= 90
    stored_before = len(listing(server))
    failures = []
    for name, method, target, headers, body, status, kind, code in cases:
        url = target if target.startswith("http") else server + target
        try:
            got, answer, _ = request(url, method, body, headers)
        except OSError as error:
            # Oversized requests may be refused by closing the connection; nothing else may.
            if status is None:
                continue
            failures.append(f"{name}: connection error {error}")
            continue
        if got >= 500:
            failures.append(f"{name}: {got} {answer[:200]!r}")
            continue
        if status is None:
            if got not in (400, 413, 414, 431):
                failures.append(f"{name}: expected 400/413/414/431, got {got}")
            continue
        if got != status:
            failures.append(f"{name}: expected {status}, got {got}: {answer[:300]!r}")
            continue
        if kind == "stream":
            envelope = json.loads(answer)
            if envelope.get("code") != code or envelope.get("StatusCode") != status or "message" not in envelope:
                failures.append(f"{name}: Stream envelope {envelope}")
        elif kind == "s3" and method != "HEAD":
            root = ET.fromstring(answer)
            if root.tag != "Error" or root.findtext("Code") != code or not root.findtext("Message"):
                failures.append(f"{name}: XML {answer[:300]!r}")
        elif kind == "control":
            error = json.loads(answer).get("error", {})
            if not error.get("message"):
                failures.append(f"{name}: control envelope {answer[:300]!r}")
        elif kind == "cometchat":
            error = json.loads(answer).get("error", {})
            if error.get("code") != code or not error.get("message"):
                failures.append(f"{name}: CometChat envelope {answer[:300]!r}")
    assert not failures, "\n".join(failures)
    assert len(listing(server)) == stored_before, "a refused upload was stored"
    assert request(server + "/_mockcdn/health")[0] == 200
    clock = json.loads(request(server + "/_mockcdn/clock")[1])["now"]
    assert abs(clock - time.time()) < 3600, "a refused control request moved the clock"
    assert json.loads(request(server + "/_mockcdn/faults")[1])["faults"] == [], "a refused rule was installed"
