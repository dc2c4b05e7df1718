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

from pathlib import Path

import pytest

from conftest import launch
from support import API_SECRET, BINARY, REPO, jwt, multipart, read_all, read_response, request, upload

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


def until(condition, failure: str, timeout: float = 30.0):
    """Polls `condition` until it is true (at once when it is) or `timeout` seconds pass: a wait for an event,
    whose deadline is many times what any machine needs, never a margin."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            pytest.fail(failure)
        time.sleep(0.02)
    return value


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
    for path in ("/_mockcdn/requests", "/_mockcdn/clock", "/_mockcdn/faults"):
        status, answer, headers = request(base + path, headers=origin)
        assert status == 403 and b"Origin http://evil.example is not this server's" in answer, (path, answer)
        assert headers.get("Access-Control-Allow-Origin") is None, path
    assert request(base + "/metrics", headers=origin)[2].get("Access-Control-Allow-Origin") is None
    # A preflight is not answered with permission.
    status, _, headers = request(
        base + "/_mockcdn/clock/advance",
        "OPTIONS",
        headers={**origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"},
    )
    assert headers.get("Access-Control-Allow-Origin") is None and headers.get("Access-Control-Allow-Methods") is None
    # Requests a page can send without a preflight carry the browser's Origin, or its Sec-Fetch-Site: refused,
    # whatever their body type, and nothing changes.
    senders = [origin, {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
               {"Origin": base.replace("127.0.0.1", "localhost")}, {"Origin": "null"}]
    for sender in senders:
        for content_type in ("text/plain", "application/x-www-form-urlencoded", "application/json", None):
            for path, body in (("/_mockcdn/clock/advance", b'{"seconds":86400}'), ("/_mockcdn/reset", b"{}"),
                               ("/_mockcdn/faults", b'{"action":{"status":503}}')):
                headers = {**sender, **({"Content-Type": content_type} if content_type else {})}
                status, answer, _ = request(base + path, "POST", body, headers)
                assert status == 403, (path, sender, content_type, status)
                assert b"takes no requests from web pages" in answer, answer
    # The clock follows real time: it may have ticked, but never by the day the requests asked for.
    assert 0 <= json.loads(request(base + "/_mockcdn/clock")[1])["now"] - clock < 60
    assert json.loads(request(base + "/_mockcdn/faults")[1])["faults"] == []
    # Media routes keep CORS for web players.
    assert request(base + "/demo/fixtures/sample.jpg", headers=origin)[2].get("Access-Control-Allow-Origin") == "*"


def test_clients_that_are_not_browsers_post_without_a_body_type(mockcdn):
    """curl -X POST .../_mockcdn/reset (no body, no Content-Type), the server's own origin, and a person's own
    navigation all pass; so does a JSON POST with no browser headers."""
    base = mockcdn.url
    assert request(base + "/_mockcdn/reset", "POST", b"")[0] in (200, 204)
    curl = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                           base + "/_mockcdn/reset"], capture_output=True, text=True, timeout=60)
    assert curl.stdout in ("200", "204"), curl
    own = {"Origin": base, "Sec-Fetch-Site": "same-origin"}
    status, answer, _ = request(base + "/_mockcdn/clock/advance", "POST", b'{"seconds":5}',
                                {**own, "Content-Type": "application/json"})
    assert status == 200, answer
    navigate = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
    assert request(base + "/_mockcdn/ui", headers=navigate)[0] == 200
    assert request(base + "/_mockcdn/reset", "POST", b"", navigate)[0] == 403


def test_the_public_urls_origin_is_the_servers_own_behind_a_proxy():
    """Behind a proxy that rewrites `Host`, the console's page has the public URL's origin: accepted."""
    with launch("--public-url", "http://cdn.example:9999") as server:
        own = {"Origin": "http://cdn.example:9999", "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"}
        assert request(server.url + "/_mockcdn/clock/advance", "POST", b'{"seconds":5}', own)[0] == 200
        other = {**own, "Origin": "http://cdn.example:9998"}
        assert request(server.url + "/_mockcdn/clock/advance", "POST", b'{"seconds":5}', other)[0] == 403


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
    refused = request(mockcdn.url + "/_mockcdn/reset", "POST", b"x", {"Origin": "http://evil.example"})
    assert refused[0] == 403 and refused[2]["X-Content-Type-Options"] == "nosniff"


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
        # While idle connections fill the cap, a new request waits; the 2-s timeout frees the slots. The bound
        # is 15 times that: it tells "freed by the timeout" from "never freed", on any machine.
        assert request(server.url + "/_mockcdn/health")[0] == 200
        waited = time.monotonic() - started
        assert waited < 30, waited
        slow.settimeout(30)  # the server closes it after 2 s of idleness: 15 times that
        for _ in range(3):  # drip a header byte every second (pacing, not a margin): the head never completes
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
    with socket.create_connection((parsed.hostname, parsed.port), timeout=60) as connection:
        connection.sendall(head + body[: len(body) // 2])
        # An event, not a pause: the reset goes once the journal shows the upload in flight (status 0).
        until(lambda: any(entry["path"] == UPLOAD.split("?")[0] and entry["status"] == 0
                          for entry in json.loads(request(base + "/_mockcdn/requests")[1])["requests"]),
              "the upload never showed in the journal")
        status, _, _ = request(base + "/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
        assert status == 200
        connection.sendall(body[len(body) // 2 :])
        reply = read_all(connection)
    assert reply.startswith(b"HTTP/1.1 503"), reply[:200]
    stream_error(reply.split(b"\r\n\r\n", 1)[1], 503, -1)
    assert listing(base) == []


# MARK: - 6b. Malformed framing: 400 in the route's envelope, journaled, nothing stored, no partial file

RAW_UPLOAD_HEAD = "POST {route} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {token}\r\n" \
    "Content-Type: multipart/form-data; boundary=frame\r\n"


def raw_exchange(base: str, head: str, rest: bytes) -> tuple[int, dict, bytes]:
    """Sends a raw request and reads its answer (the stall timeout in these servers is 2 s; the socket waits
    60 s, 30 times that). Returns the status, the headers (names in lower case) and the body."""
    parsed = urllib.parse.urlparse(base)
    with socket.create_connection((parsed.hostname, parsed.port), timeout=60) as connection:
        connection.sendall(head.encode() + rest)
        return read_response(connection)


def journal_reasons(base: str, status: int) -> str:
    """Every journaled reason of the answers with `status`, one a line."""
    entries = json.loads(request(f"{base}/_mockcdn/requests?status={status}")[1])["requests"]
    return "\n".join(entry.get("reason") or "" for entry in entries)


def stored_files(folder: Path) -> list[str]:
    """Every file under the data directory's blobs and temporary folders (a partial upload would be one)."""
    return sorted(str(path.relative_to(folder)) for sub in ("blobs", "tmp") for path in (folder / sub).rglob("*")
                  if path.is_file())


PART = b"--frame\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.txt\"\r\nContent-Type: text/plain\r\n\r\n"
BODY_FRAMING = [
    # (case, extra head lines, bytes after the head, the reason the journal and the envelope give)
    ("a bad chunk-size line", "Transfer-Encoding: chunked\r\n\r\n", b"zz\r\n" + PART + b"\r\n0\r\n\r\n",
     "malformed request body framing"),
    ("a chunk longer than announced", "Transfer-Encoding: chunked\r\n\r\n",
     b"%x\r\n" % 4 + PART + b"\r\n0\r\n\r\n", "malformed request body framing"),
    ("a missing final CRLF", "Transfer-Encoding: chunked\r\n\r\n",
     b"%x\r\n" % len(PART + b"hello") + PART + b"hello\r\n0\r\n", "no bytes arrived for 2 s"),
    ("a body shorter than announced", "Content-Length: 4096\r\n\r\n", PART + b"hello", "no bytes arrived for 2 s"),
    ("trailers on a body sized by Content-Length", "Trailer: x-checksum\r\nContent-Length: 5\r\n\r\n", b"hello",
     "only a chunked body carries trailers"),
]
HEAD_FRAMING = [
    ("Content-Length with Transfer-Encoding", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", b"0\r\n\r\n"),
    ("a negative Content-Length", "Content-Length: -5\r\n\r\n", b""),
    ("a non-numeric Content-Length", "Content-Length: five\r\n\r\n", b"hello"),
]


@pytest.fixture(scope="module")
def framed(tmp_path_factory):
    """A disk-backed server whose stall timeout is 2 s (a second under its 3-s idle timeout)."""
    folder = tmp_path_factory.mktemp("framing")
    with launch("--data-dir", str(folder), "--idle-timeout", "3") as server:
        yield server.url, folder


@pytest.mark.parametrize("case,extra,rest,reason", BODY_FRAMING, ids=[case[0] for case in BODY_FRAMING])
def test_malformed_body_framing_is_400_in_the_envelope_and_journaled(framed, case, extra, rest, reason):
    base, folder = framed
    before, files = len(listing(base)), stored_files(folder)
    head = RAW_UPLOAD_HEAD.format(route=UPLOAD, token=jwt()) + extra
    status, headers, body = raw_exchange(base, head, rest)
    assert status == 400, (case, status, body[:300])
    assert reason in stream_error(body, 400, 4)["message"], body
    entries = json.loads(request(base + "/_mockcdn/requests?status=400")[1])["requests"]
    assert any(reason in (entry.get("reason") or "") for entry in entries), entries[-3:]
    assert len(listing(base)) == before and stored_files(folder) == files
    assert healthy(base)


def test_malformed_body_framing_on_a_presigned_put_is_cometchat_json(framed):
    base, folder = framed
    fat = json.loads(request(base + "/_mockcdn/tokens", "POST", json.dumps({"kind": "fat", "user_id": "ana"}).encode(),
                             {"Content-Type": "application/json"})[1])["token"]
    status, answer, _ = request(base + "/v1/apps/demo/uploads", "POST", json.dumps(
        {"files": [{"name": "n.txt", "content_type": "text/plain", "size": 5}]}).encode(),
        {"fat": fat, "Content-Type": "application/json"})
    assert status == 200, answer
    url = urllib.parse.urlsplit(json.loads(answer)["uploads"][0]["url"])
    files = stored_files(folder)
    head = (f"PUT {url.path}?{url.query} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: text/plain\r\n"
            "Transfer-Encoding: chunked\r\n\r\n")
    status, _, body = raw_exchange(base, head, b"5\r\nhello world\r\n0\r\n\r\n")
    assert status == 400, body[:300]
    error = json.loads(body)["error"]
    assert "malformed request body framing" in error["message"], error
    assert stored_files(folder) == files


@pytest.mark.parametrize("case,extra,rest", HEAD_FRAMING, ids=[case[0] for case in HEAD_FRAMING])
def test_a_malformed_request_head_is_400_closed_and_journaled(framed, case, extra, rest):
    """The HTTP parser refuses these before any route sees the request, so there is no route envelope: 400,
    `Connection: close` and an empty body, and a journal entry (method and path `-`) with the reason."""
    base, folder = framed
    files = stored_files(folder)
    status, headers, body = raw_exchange(base, RAW_UPLOAD_HEAD.format(route=UPLOAD, token=jwt()) + extra, rest)
    assert (status, headers.get("connection"), body) == (400, "close", b""), (case, status, headers, body)
    entries = json.loads(request(base + "/_mockcdn/requests?status=400")[1])["requests"]
    assert entries and entries[-1]["path"] == "-" and "malformed request framing" in entries[-1]["reason"]
    assert stored_files(folder) == files and healthy(base)


# MARK: - 6c. Store faults answer by cause, in the route's envelope, and heal without a restart


@pytest.fixture
def small_disk(tmp_path):
    """A 1-MiB tmpfs as the data directory (root only: mount)."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs; make test runs as root in CI")
    folder = tmp_path / "disk"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_is_507_and_the_next_upload_succeeds_once_there_is_room(small_disk):
    with launch("--data-dir", str(small_disk), "--fixtures", "none") as server:
        status, answer, _ = post_file(server.url, os.urandom(2 * 1024 * 1024), "big.bin", "application/octet-stream")
        assert status == 507, answer
        assert stream_error(answer, 507, -1)["message"] == "insufficient storage: the data directory is full"
        assert "the data directory is full" in journal_reasons(server.url, 507)
        assert listing(server.url) == [] and stored_files(small_disk) == []
        subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
        status, answer, _ = post_file(server.url, os.urandom(2 * 1024 * 1024), "big.bin", "application/octet-stream")
        assert status == 201, answer


def test_a_read_only_data_directory_is_503_naming_it_and_heals(small_disk):
    with launch("--data-dir", str(small_disk), "--fixtures", "none") as server:
        subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
        status, answer, _ = post_file(server.url, b"hello", "a.txt", "text/plain")
        assert status == 503, answer
        message = stream_error(answer, 503, -1)["message"]
        assert message == f"the data directory {small_disk} is on a read-only file system", message
        assert message in journal_reasons(server.url, 503)
        assert listing(server.url) == [] and stored_files(small_disk) == []
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
        assert post_file(server.url, b"hello", "a.txt", "text/plain")[0] == 201


def test_an_unreachable_s3_store_is_503_naming_the_endpoint_in_each_envelope():
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    endpoint = f"http://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()  # nothing listens there
    env = {"AWS_ENDPOINT_URL_S3": endpoint, "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s",
           "AWS_DEFAULT_REGION": "us-east-1"}
    with launch("--store", "s3://nowhere", "--s3-path-style", "true", "--fixtures", "none", env=env) as server:
        status, answer, _ = post_file(server.url, b"hello", "a.txt", "text/plain")
        assert status == 503 and endpoint in stream_error(answer, 503, -1)["message"], answer
        assert endpoint in journal_reasons(server.url, 503)
        fat = json.loads(request(server.url + "/_mockcdn/tokens", "POST", json.dumps(
            {"kind": "fat", "user_id": "ana"}).encode(), {"Content-Type": "application/json"})[1])["token"]
        status, answer, _ = request(server.url + "/demo/any/object.png", headers={"fat": fat})
        assert status == 503 and b"<Code>ServiceUnavailable</Code>" in answer and endpoint.encode() in answer, answer


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
