"""Helpers shared by the compatibility suites: paths, demo credentials, HTTP without exceptions,
Stream tokens and uploads."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import struct
import urllib.error
import urllib.request
import uuid
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("MOCKCDN_BINARY", REPO / ".build" / "debug" / "mockcdn"))
PRIVATE_KEY = REPO / "Fixtures" / "keys" / "demo-K2JCJMDEHXQW5F.private.pem"
KEY_PAIR_ID = "K2JCJMDEHXQW5F"
API_KEY = "demo-key"
API_SECRET = "demo-secret-for-local-testing-only"



def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def jwt(claims: dict | None = None, secret: str = API_SECRET) -> str:
    """An HS256 Stream token for the demo app (or the app whose secret is given): a user token for alice
    unless other claims are given."""
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    payload = b64url(json.dumps(claims or {"user_id": "alice"}, separators=(",", ":")).encode())
    signing_input = f"{header}.{payload}".encode("ascii")
    signature = b64url(hmac.new(secret.encode(), signing_input, hashlib.sha256).digest())
    return f"{header}.{payload}.{signature}"


def multipart(parts: list[tuple[str, str | None, str | None, bytes]], boundary: str) -> bytes:
    """A multipart/form-data body of (name, filename, content type, bytes) parts."""
    body = b""
    for name, filename, content_type, data in parts:
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"'
        if filename is not None:
            head += f'; filename="{filename}"'
        head += "\r\n"
        if content_type:
            head += f"Content-Type: {content_type}\r\n"
        body += (head + "\r\n").encode() + data + b"\r\n"
    return body + f"--{boundary}--\r\n".encode()


def read_all(connection) -> bytes:
    """Everything a socket receives until the peer closes it."""
    reply = b""
    while chunk := connection.recv(65536):
        reply += chunk
    return reply


def png(width: int = 8, height: int = 8) -> bytes:
    """A small valid RGB PNG built with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 30 % 256, y * 30 % 256, 128)) for x in range(width))
        for y in range(height)
    )
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def request(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None):
    """Returns (status, body bytes, headers) without raising on HTTP errors."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as err:
        return err.code, err.read(), err.headers


def send_json(url: str, method: str, payload: dict) -> dict:
    status, body, _ = request(
        url, method, json.dumps(payload).encode(), {"Content-Type": "application/json"}
    )
    assert status == 200, f"{method} {url} -> {status}: {body[:300]!r}"
    return json.loads(body)


def upload(
    base: str,
    kind: str,
    filename: str,
    content_type: str,
    data: bytes,
    api_key: str = API_KEY,
    secret: str = API_SECRET,
    channel: str = "general",
) -> str:
    """Uploads through the Stream-compatible endpoint and returns the signed URL MockCDN issued."""
    boundary = "compat" + uuid.uuid4().hex
    status, resp, _ = request(
        f"{base}/channels/messaging/{channel}/{kind}?api_key={api_key}",
        "POST",
        multipart([("file", filename, content_type, data)], boundary),
        {
            "Authorization": f"Bearer {jwt(secret=secret)}",
            "stream-auth-type": "jwt",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    assert status == 201, f"upload {kind} -> {status}: {resp[:500]!r}"
    return json.loads(resp)["file"]


def image_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG or JPEG, read from its header."""
    if data.startswith(b"\x89PNG"):
        return struct.unpack(">II", data[16:24])
    index = 2
    while index < len(data):
        marker, length = data[index + 1], struct.unpack(">H", data[index + 2 : index + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[index + 5 : index + 9])
            return width, height
        index += 2 + length
    raise ValueError("not a PNG or JPEG")


def browser(window: str = "1400,900"):
    """Headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium, with the browser's
    console log readable."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={window}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
