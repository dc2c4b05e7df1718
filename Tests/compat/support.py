"""Helpers shared by the compatibility suites: paths, demo credentials, HTTP without exceptions,
Stream tokens and uploads, and `eventually`, the one way a test waits for something to happen."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import socket
import struct
import time
import urllib.error
import urllib.request
import uuid
import zlib
from pathlib import Path
from typing import Callable, TypeVar

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("MOCKCDN_BINARY", REPO / ".build" / "debug" / "mockcdn"))
PRIVATE_KEY = REPO / "Fixtures" / "keys" / "demo-K2JCJMDEHXQW5F.private.pem"
KEY_PAIR_ID = "K2JCJMDEHXQW5F"
API_KEY = "demo-key"
API_SECRET = "demo-secret-for-local-testing-only"

T = TypeVar("T")


def eventually(
    predicate: Callable[[], T],
    timeout: float = 30.0,
    interval: float = 0.05,
    message: str | Callable[[], str] = "the condition never held",
    ignoring: tuple[type[BaseException], ...] = (),
) -> T:
    """Calls `predicate` until it returns something truthy and returns that; fails the test with `message`
    (a string, or a function that makes one then) when `timeout` seconds pass first. An exception of a type in
    `ignoring` counts as "not yet"; any other is raised at once.

    The rule these suites keep, so that they pass on a loaded 2-core CI runner as on a fast laptop: a test
    never sleeps a fixed real time, neither to wait for something to happen nor to let something "get going"
    before asserting that it did not happen. It polls the condition here, or awaits an event (a journal entry
    at GET /_mockcdn/requests, an object at /_mockcdn/objects, a process state, a browser event), with a
    deadline many times (>= 10x) what the thing should take: 30 s unless it is known to take longer. The
    poll returns as soon as the condition holds, so the deadline costs nothing when the test passes, and the
    short `interval` only spaces the polls; it is no margin. Expiry is driven by MockCDN's clock
    (`POST /_mockcdn/clock/advance`), never by sleeping. Where a test must let real time pass (a stall timeout
    of whole seconds, a slow store), its assertion has a margin of >= 10x or is one-sided in the safe
    direction, and a comment there says which."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except ignoring:
            value = None
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"{message() if callable(message) else message} (waited {timeout:g} s)")
        time.sleep(interval)


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


def read_response(connection: socket.socket) -> tuple[int, dict, bytes]:
    """One response from a raw connection: its status, its headers (names in lower case) and its
    Content-Length body; the connection stays open for the next one."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        assert chunk, f"the connection closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = connection.recv(65536)
        assert chunk, "the connection closed inside an answer"
        body += chunk
    assert len(body) == length, "more bytes than the answer announced"
    return int(lines[0].split(" ")[1]), headers, body


def request(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None,
            timeout: float = 30):
    """Returns (status, body bytes, headers) without raising on HTTP errors. `timeout` bounds each socket
    operation; the default is >= 10x what any answer of MockCDN's should take."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
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


def browser(window: str = "1400,900", downloads: Path | None = None):
    """Headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium, with the browser's
    console log readable. With `downloads`, every download goes there as a file of its own (named by its
    GUID), so that a test can see that the browser took an answer as a download (see `downloaded`)."""
    import shutil

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={window}"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"), options=options)
    if downloads is not None:
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allowAndName", "downloadPath": str(downloads)})
    return driver


def downloaded(downloads: Path) -> int:
    """How many downloads the browser has begun into `downloads` (finished or not): a download that has begun
    is an answer the browser will never render as a page."""
    return len(list(downloads.iterdir()))
