"""Hostile input against the real binary, one test per class of harm: each checks the exact status and
envelope, that the server is still alive, and that nothing was stored or leaked.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
import xml.etree.ElementTree as ET

import pytest

from conftest import launch
from support import API_SECRET, BINARY, REPO, jwt, multipart, read_all, request, upload

UPLOAD = "/channels/messaging/hostile/file?api_key=demo-key"
IMAGE = "/channels/messaging/hostile/image?api_key=demo-key"


def post_file(base: str, data: bytes, filename: str, content_type: str | None, route: str = UPLOAD):
    boundary = "hostile" + uuid.uuid4().hex
    return request(
        base + route,
        "POST",
        multipart([("file", filename, content_type, data)], boundary),
        {"Authorization": jwt(), "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )


def stream_error(body: bytes, status: int, code: int) -> dict:
    envelope = json.loads(body)
    assert envelope["code"] == code and envelope["StatusCode"] == status and envelope["message"], envelope
    return envelope


def listing(base: str) -> list:
    status, body, _ = request(
        f"{base}/channels/messaging/hostile/uploads?api_key=demo-key", headers={"Authorization": jwt({"server": True})}
    )
    assert status == 200, body
    return json.loads(body)["uploads"]


def healthy(base: str) -> bool:
    return request(base + "/_mockcdn/health")[0] == 200


def journal(base: str) -> str:
    return request(base + "/_mockcdn/requests")[1].decode()


# MARK: - 1. Multipart: no byte sequence crashes the server


@pytest.mark.parametrize(
    "name,body",
    [
        ("boundary after a bare LF", b"\n--b\r\nContent-Disp\x8fsition: form-data; name=\"file\"\r\n\r\nx\r\n--b--\r\n"),
        ("boundary after stray bytes", b"xx--b\r\nContent-Disp\x8fsition: form-data; name=\"file\"\r\n\r\nx\r\n--b--\r\n"),
        ("non-ASCII name in a second part", b"--b\r\nA: 1\r\n\r\nx\r\n--b\r\n\xc3\xa9: 1\r\n\r\ny\r\n--b--\r\n"),
    ],
)
def test_multipart_never_traps(mockcdn, name, body):
    before = len(listing(mockcdn.url))
    for route in (UPLOAD, "/api/v2/uploads/file?api_key=demo-key"):
        status, answer, _ = request(
            mockcdn.url + route, "POST", body, {"Authorization": jwt(), "Content-Type": "multipart/form-data; boundary=b"}
        )
        assert status == 400, (name, answer)
        stream_error(answer, 400, 4)
    assert mockcdn.process.poll() is None, "the server died"
    assert healthy(mockcdn.url)
    assert len(listing(mockcdn.url)) == before


def test_multipart_header_line_is_bounded_as_it_streams(mockcdn):
    """A 48 MiB header line without CR is refused after its first 16 KiB, while it is still being sent,
    without being buffered."""
    before_rss = mockcdn.status("VmRSS")
    parsed = urllib.parse.urlparse(mockcdn.url)
    head = (
        f"POST {UPLOAD} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {jwt()}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {48 * 1024 * 1024 + 13}\r\n\r\n"
        "--b\r\nX-Long: "
    ).encode()
    with socket.create_connection((parsed.hostname, parsed.port), timeout=10) as connection:
        connection.sendall(head)

        def send_line() -> None:
            try:
                for _ in range(48):
                    connection.sendall(b"a" * (1024 * 1024))
            except OSError:
                pass

        sender = threading.Thread(target=send_line, daemon=True)
        sender.start()
        reply = b""
        while b"}" not in reply:
            chunk = connection.recv(65536)
            if not chunk:
                break
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 400"), reply[:200]
    assert b"larger than 16384 bytes" in reply
    stream_error(reply.split(b"\r\n\r\n", 1)[1], 400, 4)
    assert healthy(mockcdn.url)
    assert mockcdn.status("VmHWM") - before_rss < 64 * 1024, "the header line was buffered"


# MARK: - 2. Decoding: only Stream's image types, each by its own loader; SVG never rasterised


def namespaced_svg() -> bytes:
    target = REPO / "Fixtures" / "media" / "sample.png"
    return (
        '<x:svg xmlns:x="http://www.w3.org/2000/svg" xmlns:l="http://www.w3.org/1999/xlink" width="64" height="64">'
        f'<x:image l:href="{target}" width="64" height="64"/></x:svg>'
    ).encode()


FOREIGN = [
    ("namespaced SVG declared BMP", "x.bmp", namespaced_svg(), "image/svg+xml"),
    ("TIFF declared BMP", "x.bmp", b"II*\x00\x08\x00\x00\x00" + bytes(200), "application/octet-stream"),
    ("PPM declared PNG", "x.png", b"P6\n4 4\n255\n" + bytes(48), "application/octet-stream"),
    ("XPM declared JPEG", "x.jpg", b'/* XPM */\nstatic char *x[] = {"1 1 1 1", "a c #ff0000", "a"};\n', "application/octet-stream"),
    ("ImageMagick TXT declared GIF", "x.gif", b"# ImageMagick pixel enumeration: 1,1,255,srgb\n0,0: (255,0,0)\n", "application/octet-stream"),
]


@pytest.mark.parametrize("name,filename,data,stored_type", FOREIGN, ids=[row[0] for row in FOREIGN])
def test_foreign_formats_are_never_decoded(mockcdn, name, filename, data, stored_type):
    declared = {"bmp": "image/bmp", "png": "image/png", "jpg": "image/jpeg", "gif": "image/gif"}[filename[2:]]
    # The image route refuses them outright.
    status, answer, _ = post_file(mockcdn.url, data, filename, declared, IMAGE)
    assert status == 400, answer
    stream_error(answer, 400, 4)
    # The file route keeps them under the type their bytes show, never the declared image type.
    status, answer, _ = post_file(mockcdn.url, data, filename, declared)
    assert status == 201, answer
    link = json.loads(answer)["file"]
    status, body, headers = request(link)
    assert status == 200 and body == data
    assert headers["Content-Type"] == stored_type
    # A resize never decodes them: the SVG comes back as it was; the rest are no images.
    status, body, headers = request(link + "&w=32&h=32")
    if stored_type == "image/svg+xml":
        assert status == 200 and body == data, body[:200]
        assert headers["Content-Security-Policy"] == "sandbox"
    else:
        assert status == 400, body
        assert ET.fromstring(body).findtext("Code") == "InvalidArgument"
    assert healthy(mockcdn.url)


def test_declared_type_with_a_control_byte_is_refused(mockcdn):
    before = len(listing(mockcdn.url))
    for declared in ("text/html\x0b", "text/html\x00", "text/html\x0c", "text /html", "texthtml", "a/" + "b" * 300):
        status, answer, _ = post_file(mockcdn.url, b"<p>hi</p>", "x.txt", declared)
        assert status == 400, (declared, answer)
        assert "not a valid media type" in stream_error(answer, 400, 4)["message"]
    assert len(listing(mockcdn.url)) == before


def animated_gif(frames: int) -> bytes:
    """A GIF of `frames` 1x1 frames, about 23 bytes each."""
    head = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80, 0, 0) + b"\x00\x00\x00\xff\xff\xff"
    loop = b"!\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"
    frame = b"!\xf9\x04\x00\x01\x00\x00\x00" + b",\x00\x00\x00\x00\x01\x00\x01\x00\x00" + b"\x02\x02\x44\x01\x00"
    return head + loop + frame * frames + b";"


def test_output_pixels_are_bounded_like_the_source(mockcdn):
    """4,097 frames of 1x1 pass the source bound; scaled to 4096x4096 they would be 68.7 gigapixels."""
    status, answer, _ = post_file(mockcdn.url, animated_gif(4097), "bomb.gif", "image/gif", IMAGE)
    assert status == 201, answer
    link = json.loads(answer)["file"]
    started = time.monotonic()
    status, body, _ = request(link + "&w=4096&h=4096&resize=scale")
    assert status == 422, body[:300]
    error = ET.fromstring(body)
    assert error.findtext("Code") == "ImageTooLarge"
    message = error.findtext("Message")
    assert str(4096 * 4096 * 4097) in message and "16800000" in message, message
    assert time.monotonic() - started < 5
    # A small output of the same source still renders.
    status, body, _ = request(link + "&w=2&h=2&resize=scale")
    assert status == 200 and body[:6] == b"GIF89a"


# MARK: - 3. Control plane: no cross-site control, no rebinding; user content cannot script the origin


def test_foreign_origin_cannot_read_or_change_control_state(mockcdn):
    base = mockcdn.url
    origin = {"Origin": "http://evil.example"}
    clock = json.loads(request(base + "/_mockcdn/clock")[1])["now"]
    for path in ("/_mockcdn/requests", "/_mockcdn/clock", "/_mockcdn/faults", "/metrics"):
        status, _, headers = request(base + path, headers=origin)
        assert status == 200
        assert headers.get("Access-Control-Allow-Origin") is None, path
    # A preflight is not answered with permission.
    status, _, headers = request(
        base + "/_mockcdn/clock/advance",
        "OPTIONS",
        headers={**origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"},
    )
    assert headers.get("Access-Control-Allow-Origin") is None and headers.get("Access-Control-Allow-Methods") is None
    # Simple requests a page can send without a preflight are refused, and change nothing.
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        for path, body in (("/_mockcdn/clock/advance", b'{"seconds":86400}'), ("/_mockcdn/reset", b"{}"),
                           ("/_mockcdn/faults", b'{"action":{"status":503}}')):
            status, answer, _ = request(base + path, "POST", body, {**origin, "Content-Type": content_type})
            assert status == 415, (path, content_type, status)
            assert b"application/json" in answer
    # The clock follows real time: it may have ticked, but never by the day the requests asked for.
    assert 0 <= json.loads(request(base + "/_mockcdn/clock")[1])["now"] - clock < 60
    assert json.loads(request(base + "/_mockcdn/faults")[1])["faults"] == []
    # Media routes keep CORS for web players.
    assert request(base + "/demo/fixtures/sample.jpg", headers=origin)[2].get("Access-Control-Allow-Origin") == "*"


def raw_get(base: str, path: str, host: str) -> int:
    """A GET with a chosen Host header; returns the status."""
    parsed = urllib.parse.urlparse(base)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=10) as connection:
        connection.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        reply = read_all(connection)
    return int(reply.split(b" ", 2)[1])


def test_dns_rebinding_host_is_refused(mockcdn):
    port = urllib.parse.urlparse(mockcdn.url).port
    assert raw_get(mockcdn.url, "/_mockcdn/requests", f"evil.example:{port}") == 403
    assert raw_get(mockcdn.url, "/_mockcdn/clock", "rebind.attacker.test") == 403
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"10.0.2.2:{port}", "app.localhost"):
        assert raw_get(mockcdn.url, "/_mockcdn/clock", host) == 200, host
    # Media routes answer whatever the Host (emulators and containers use their own names).
    assert raw_get(mockcdn.url, "/_mockcdn/health", "evil.example") == 200


@pytest.mark.parametrize(
    "filename,data",
    [
        ("page.html", b"<!doctype html><script>fetch('/_mockcdn/reset',{method:'POST'})</script>"),
        ("page.xhtml", b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><script>1</script></html>'),
        ("pic.svg", b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
        ("code.js", b"fetch('/_mockcdn/reset',{method:'POST'})"),
    ],
)
def test_uploaded_active_content_cannot_script_the_origin(mockcdn, filename, data):
    declared = {"html": "text/html", "xhtml": "application/xhtml+xml", "svg": "image/svg+xml", "js": "text/javascript"}
    status, answer, _ = post_file(mockcdn.url, data, filename, declared[filename.rsplit(".", 1)[1]])
    assert status == 201, answer
    status, body, headers = request(json.loads(answer)["file"])
    assert status == 200 and body == data
    assert headers["Content-Security-Policy"] == "sandbox"
    assert headers["Content-Disposition"] == "attachment"
    assert headers["X-Content-Type-Options"] == "nosniff"


def test_nosniff_on_every_answer(mockcdn):
    for path in ("/demo/fixtures/sample.jpg", "/_mockcdn/health", "/nope/x", "/app?api_key=demo-key"):
        assert request(mockcdn.url + path)[2]["X-Content-Type-Options"] == "nosniff", path
    refused = request(mockcdn.url + "/_mockcdn/reset", "POST", b"x", {"Content-Type": "text/plain"})
    assert refused[0] == 415 and refused[2]["X-Content-Type-Options"] == "nosniff"


# MARK: - 4 and 5. Costs and connections are bounded


def test_memory_store_budget_answers_507_and_keeps_nothing():
    with launch("--memory-store-mb", "2") as server:
        before = len(listing(server.url))
        status, answer, _ = post_file(server.url, os.urandom(1024 * 1024), "a.bin", "application/octet-stream")
        assert status == 201, answer
        status, answer, _ = post_file(server.url, os.urandom(1536 * 1024), "b.bin", "application/octet-stream")
        assert status == 507, answer
        stream_error(answer, 507, -1)
        assert len(listing(server.url)) == before + 1
        assert healthy(server.url)


def test_idle_and_slow_connections_are_closed_and_capped():
    with launch("--idle-timeout", "2", "--max-connections", "8") as server:
        parsed = urllib.parse.urlparse(server.url)
        idle = [socket.create_connection((parsed.hostname, parsed.port)) for _ in range(40)]
        slow = socket.create_connection((parsed.hostname, parsed.port))
        slow.sendall(b"GET /_mockcdn/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        # While idle connections fill the cap, a new request waits; the timeout frees the slots.
        assert request(server.url + "/_mockcdn/health")[0] == 200
        waited = time.monotonic() - started
        assert waited < 12, waited
        slow.settimeout(10)
        for _ in range(3):  # drip a header byte every second: the head never completes
            try:
                slow.sendall(b"X")
            except OSError:
                break
            time.sleep(1)
        assert slow.recv(1024) == b"", "a slowloris connection stayed open"
        for connection in idle + [slow]:
            connection.close()
        assert healthy(server.url)


def test_channel_listing_is_paginated(mockcdn):
    for _ in range(3):
        post_file(mockcdn.url, b"page", "p.txt", "text/plain")
    base = f"{mockcdn.url}/channels/messaging/hostile/uploads?api_key=demo-key"
    server_token = {"Authorization": jwt({"server": True})}
    everything = json.loads(request(base, headers=server_token)[1])["uploads"]
    page = json.loads(request(base + "&limit=2&offset=1", headers=server_token)[1])["uploads"]
    assert [entry["name"] for entry in page] == [entry["name"] for entry in everything[1:3]]
    for query in ("&limit=0", "&limit=1001", "&offset=-1", "&limit=x"):
        status, answer, _ = request(base + query, headers=server_token)
        assert status == 400, query
        stream_error(answer, 400, 4)


# MARK: - 6. Leaks and retention


@pytest.mark.parametrize("query", ["FAT", "Fat", "fat%5B%5D", "fat[]", "%66at"])
def test_journal_redacts_credentials_in_any_spelling(mockcdn, query):
    secret = "s3cr3t" + uuid.uuid4().hex
    request(f"{mockcdn.url}/demo/fixtures/sample.jpg?{query}={secret}")
    request(f"{mockcdn.url}/demo/fixtures/sample.jpg;fat={secret}")
    assert secret not in journal(mockcdn.url)


def test_reset_discards_an_upload_in_flight(mockcdn):
    """The body is sent in two halves with a reset between them: the fresh state must not hold it."""
    base = mockcdn.url
    parsed = urllib.parse.urlparse(base)
    boundary = "inflight"
    body = multipart([("file", "late.txt", "text/plain", b"x" * 200_000)], boundary)
    head = (
        f"POST {UPLOAD} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {jwt()}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((parsed.hostname, parsed.port), timeout=20) as connection:
        connection.sendall(head + body[: len(body) // 2])
        time.sleep(0.3)
        status, _, _ = request(base + "/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
        assert status == 200
        connection.sendall(body[len(body) // 2 :])
        reply = read_all(connection)
    assert reply.startswith(b"HTTP/1.1 503"), reply[:200]
    stream_error(reply.split(b"\r\n\r\n", 1)[1], 503, -1)
    assert listing(base) == []


# MARK: - 7. Start-up


def test_stray_entries_in_the_data_directory_do_not_stop_start_up():
    with tempfile.TemporaryDirectory() as folder:
        with launch("--data-dir", folder) as server:
            link = upload(server.url, "file", "keep.txt", "text/plain", b"kept")
        meta = os.path.join(folder, "meta")
        os.mkdir(os.path.join(meta, "dir.json"))
        os.mkfifo(os.path.join(meta, "fifo.json"))
        with open(os.path.join(meta, "big.json"), "wb") as big:
            big.write(b"{" + b" " * (2 * 1024 * 1024) + b"}")
        os.symlink("/etc/hostname", os.path.join(meta, "link.json"))
        started = time.monotonic()
        with launch("--data-dir", folder) as server:
            assert time.monotonic() - started < 10
            path = urllib.parse.urlparse(link).path
            signed = subprocess.run(
                [str(BINARY), "sign", "cloudfront", server.url + path], capture_output=True, text=True, check=True
            ).stdout.strip()
            assert request(signed)[1] == b"kept"


# MARK: - 8. Tokens


def raw_jwt(header: dict, payload: str) -> str:
    import base64
    import hashlib
    import hmac

    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    signing_input = b64(json.dumps(header).encode()) + "." + b64(payload.encode())
    return signing_input + "." + b64(hmac.new(API_SECRET.encode(), signing_input.encode(), hashlib.sha256).digest())


@pytest.mark.parametrize(
    "name,header,payload,status,code",
    [
        ("exp as a string", {"alg": "HS256"}, '{"user_id":"a","exp":"1000"}', 401, 5),
        ("exp null", {"alg": "HS256"}, '{"user_id":"a","exp":null}', 401, 5),
        ("exp an object", {"alg": "HS256"}, '{"user_id":"a","exp":{}}', 401, 5),
        ("nbf in the future", {"alg": "HS256"}, '{"user_id":"a","nbf":4000000000}', 401, 5),
        ("server 1 is no server token", {"alg": "HS256"}, '{"server":1}', 401, 5),
        ("unknown crit header", {"alg": "HS256", "crit": ["x-mockcdn"], "x-mockcdn": 1}, '{"user_id":"a"}', 401, 5),
    ],
)
def test_jwt_claims_are_strict(mockcdn, name, header, payload, status, code):
    token = raw_jwt(header, payload)
    got, answer, _ = request(f"{mockcdn.url}/app?api_key=demo-key", headers={"Authorization": token})
    assert got == status, (name, answer)
    stream_error(answer, status, code)


def test_far_future_expiry_is_valid(mockcdn):
    token = raw_jwt({"alg": "HS256"}, '{"server":true,"exp":1e30}')
    assert request(f"{mockcdn.url}/app?api_key=demo-key", headers={"Authorization": token})[0] == 200
