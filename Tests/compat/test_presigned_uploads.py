"""CometChat's presigned uploads against the real binary: `POST /v1/apps/{app}/uploads` hands out one upload
URL per file (a SigV4 presigned PUT with the content type, the size limit and the uploader signed in), and a
`PUT` to it streams the file into the store under the app's policy and answers the media URL in the app's
mode. Presigned PUTs made by boto3 itself (`generate_presigned_url('put_object')`, SigV4 and SigV2, with its
defaults) are checked the same way. Every refusal is checked for its status, its code in CometChat's
envelope, and that nothing was stored: tampering, expiry by the clock to the second, the size boundary byte,
a stall (a 1 s stall timeout) and a PUT cancelled half way.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.parse
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

from conftest import launch, start_outcome
from support import eventually, jwt, request

SECRET = "uploads-secret-at-least-32-bytes-long!!"
APPS = {
    # The file limit is small so that the boundary byte is cheap to send; a 1 s stall keeps the test short.
    "uploads": "    upload_stall_timeout: 1\n    file_upload_config:\n      size_limit: 4096\n"
    "      blocked_file_extensions: [exe]\n",
    "signedmedia": "    media_url_access: presigned\n",
}
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
                    "0000000d4944415478da63f8cfc0f01f0005000201a3e2c6bc0000000049454e44ae426082")


pytestmark = pytest.mark.usefixtures("no_aws_configuration")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder: Path = tmp_path_factory.mktemp("uploads")
    text = "apps:\n"
    for app, lines in APPS.items():
        text += f"  - app_id: {app}\n    api_key: {app}-key\n    api_secret: {SECRET}\n" + lines
    (folder / "apps.yaml").write_text(text)
    with launch("--config", str(folder / "apps.yaml")) as server:
        yield server.url


@pytest.fixture(autouse=True)
def real_time(served):
    """Each test starts with MockCDN's clock at real time, as boto3 signs by it; some tests move it on."""
    control(served, "/_mockcdn/clock", "PUT", {"now": int(time.time())})


def control(base: str, path: str, method: str = "GET", payload: dict | None = None) -> dict:
    status, body, _ = request(base + path, method, json.dumps(payload).encode() if payload is not None else None,
                              {"Content-Type": "application/json"} if payload is not None else {})
    assert status in (200, 201), body
    return json.loads(body)


def fat(base: str, app: str = "uploads", user: str = "ana") -> str:
    return control(base, "/_mockcdn/tokens", "POST", {"kind": "fat", "user_id": user, "app_id": app})["token"]


def keys(base: str, app: str = "uploads") -> list[str]:
    return [item["key"] for item in control(base, f"/_mockcdn/objects?app={app}")["objects"]]


def ask(base: str, files: list[dict] | None, headers: dict | None = None, app: str = "uploads",
        raw: bytes | None = None) -> tuple[int, dict]:
    """POSTs to the upload URL route with a FAT for ana unless other headers are given."""
    body = raw if raw is not None else json.dumps({"files": files}).encode()
    status, answer, _ = request(f"{base}/v1/apps/{app}/uploads", "POST", body,
                                {"Content-Type": "application/json",
                                 **(headers if headers is not None else {"fat": fat(base, app)})})
    return status, json.loads(answer)


def upload_url(base: str, name: str = "note.txt", content_type: str = "text/plain", size: int = 100,
               app: str = "uploads") -> dict:
    status, answer = ask(base, [{"name": name, "content_type": content_type, "size": size}], app=app)
    assert status == 200, answer
    return answer["uploads"][0]


def put(url: str, body: bytes, headers: dict | None = None) -> tuple[int, dict | bytes, dict]:
    """A PUT with exactly the headers given plus Content-Length (urllib would add a Content-Type)."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("PUT", parts.path + "?" + parts.query, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    try:
        return response.status, json.loads(data), dict(response.headers)
    except ValueError:
        return response.status, data, dict(response.headers)


def refused(answer: dict, code: str) -> dict:
    assert set(answer) == {"error"} and answer["error"]["code"] == code, answer
    return answer["error"]


def s3_code(answer: bytes) -> str:
    """The `Code` of an S3 XML error."""
    return ET.fromstring(answer).findtext("Code")


def s3(base: str, signature_version: str | None = None):
    """boto3 with the endpoint and the app's keys only: its default region and, unless asked, its default
    signature (SigV2 for a presigned URL to a custom endpoint) and addressing (path-style for an IP address)."""
    options = {"config": Config(signature_version=signature_version)} if signature_version else {}
    return boto3.session.Session().client("s3", endpoint_url=base, aws_access_key_id="uploads-key",
                                          aws_secret_access_key=SECRET, **options)


def advance(base: str, seconds: int) -> None:
    control(base, "/_mockcdn/clock/advance", "POST", {"seconds": seconds})


# MARK: - The upload URL route


def test_an_upload_url_stores_the_file_and_answers_a_plain_media_url_in_fat_mode(served):
    data = b"hello, " + uuid.uuid4().bytes
    upload = upload_url(served, size=len(data))
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(upload["url"]).query))
    assert upload["method"] == "PUT" and upload["headers"] == {"Content-Type": "text/plain"}
    assert upload["max_bytes"] == len(data) and upload["expires_in"] == 900
    assert upload["key"].startswith("uploads/media/") and upload["key"].endswith("/note.txt")
    assert query["X-Amz-SignedHeaders"] == "content-type;host" and query["X-Amz-Expires"] == "900"
    assert query["x-mockcdn-max-bytes"] == str(len(data)) and query["x-mockcdn-owner"] == "ana"
    assert upload["key"] not in keys(served), "nothing is stored before the PUT"

    status, answer, headers = put(upload["url"], data, {"Content-Type": "text/plain"})
    assert status == 200, answer
    assert answer["key"] == upload["key"] and answer["size"] == len(data) and answer["content_type"] == "text/plain"
    assert answer["url"] == f"{served}/{upload['key']}" and headers["ETag"].startswith('"')
    assert request(answer["url"])[0] == 401
    status, body, _ = request(answer["url"], headers={"fat": fat(served)})
    assert status == 200 and body == data
    listed = [item for item in control(served, "/_mockcdn/objects?app=uploads")["objects"]
              if item["key"] == upload["key"]]
    assert listed and listed[0]["owner"] == "ana"
    journal = control(served, "/_mockcdn/requests?method=PUT&path=/" + upload["key"])["requests"]
    assert [(entry["status"], entry["credential"]) for entry in journal] == [(200, "presigned")]


def test_presigned_mode_answers_a_canned_link(served):
    upload = upload_url(served, name="dot.png", content_type="image/png", size=len(PNG), app="signedmedia")
    # The clock runs while the PUT is answered: the link's expiry is a day from a moment between these two.
    before = control(served, "/_mockcdn/clock")["now"]
    status, answer, _ = put(upload["url"], PNG, {"Content-Type": "image/png"})
    after = control(served, "/_mockcdn/clock")["now"]
    assert status == 200, answer
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer["url"]).query))
    assert set(query) == {"Expires", "Signature", "Key-Pair-Id"}
    assert before + 86400 <= int(query["Expires"]) <= after + 86400
    status, body, _ = request(answer["url"])
    assert status == 200 and body == PNG


@pytest.mark.parametrize("how", ["fat-query", "server-jwt", "user-jwt"])
def test_the_route_takes_a_fat_in_the_query_or_a_jwt_of_the_app(served, how):
    headers = {
        "fat-query": {},
        "server-jwt": {"Authorization": "Bearer " + jwt({"server": True}, SECRET)},
        "user-jwt": {"Authorization": "Bearer " + jwt({"user_id": "bo"}, SECRET)},
    }[how]
    url = f"{served}/v1/apps/uploads/uploads" + (f"?fat={fat(served, user='cy')}" if how == "fat-query" else "")
    status, body, _ = request(url, "POST", json.dumps({"files": [{"name": "a.txt", "content_type": "text/plain",
                                                                  "size": 3}]}).encode(),
                              {"Content-Type": "application/json", **headers})
    assert status == 200, body
    upload = json.loads(body)["uploads"][0]
    owner = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(upload["url"]).query)).get("x-mockcdn-owner")
    assert owner == {"fat-query": "cy", "server-jwt": None, "user-jwt": "bo"}[how]
    assert put(upload["url"], b"abc", {"Content-Type": "text/plain"})[0] == 200


def test_an_empty_fat_header_leaves_the_jwt_to_decide(served):
    """CometChat's SDK sends an empty `fat` header when nobody is logged in: it is no FAT, so the JWT next to
    it authorises the request."""
    status, answer = ask(served, [{"name": "a.txt", "content_type": "text/plain", "size": 1}],
                         {"fat": "", "Authorization": "Bearer " + jwt({"user_id": "dee"}, SECRET)})
    assert status == 200, answer
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer["uploads"][0]["url"]).query))
    assert query["x-mockcdn-owner"] == "dee"
    status, answer = ask(served, [{"name": "a.txt", "content_type": "text/plain", "size": 1}], {"fat": ""})
    assert status == 401 and refused(answer, "ERR_NOT_LOGGED_IN")


def test_ten_files_get_ten_distinct_urls(served):
    files = [{"name": f"f{index}.txt", "content_type": "text/plain", "size": 1} for index in range(10)]
    status, answer = ask(served, files)
    assert status == 200 and len({upload["key"] for upload in answer["uploads"]}) == 10


@pytest.mark.parametrize(
    "files, headers, status, code",
    [
        ([{"name": "a.txt", "content_type": "text/plain", "size": 1}], {}, 401, "ERR_NOT_LOGGED_IN"),
        ([{"name": "a.txt", "content_type": "text/plain", "size": 1}],
         {"Authorization": "Bearer " + jwt({"server": True}, "another-secret-that-is-32-bytes-long")}, 401,
         "ERR_UNAUTHORIZED"),
        ([{"name": "a.txt", "content_type": "text/plain", "size": 1}], {"fat": "not-a-token"}, 401,
         "ERR_NOT_LOGGED_IN"),
        (None, None, 400, "ERR_BAD_REQUEST"),
        ([], None, 400, "ERR_BAD_REQUEST"),
        ([{"name": f"{index}.txt", "content_type": "text/plain", "size": 1} for index in range(11)], None, 400,
         "ERR_FILE_COUNT_EXCEEDED"),
        ([{"content_type": "text/plain", "size": 1}], None, 400, "ERR_INVALID_FILE_OBJECT"),
        ([{"name": "a.txt", "size": 1}], None, 400, "ERR_INVALID_FILE_OBJECT"),
        ([{"name": "a.txt", "content_type": "text", "size": 1}], None, 400, "ERR_INVALID_FILE_OBJECT"),
        ([{"name": "a.txt", "content_type": "text/plain\r\nX: y", "size": 1}], None, 400, "ERR_INVALID_FILE_OBJECT"),
        ([{"name": "a.txt", "content_type": "text/plain", "size": 0}], None, 400, "ERR_INVALID_FILE_OBJECT"),
        ([{"name": "a.txt", "content_type": "text/plain"}], None, 400, "ERR_INVALID_FILE_OBJECT"),
        ([{"name": "a.txt", "content_type": "text/plain", "size": 4097}], None, 413, "ERR_FILE_SIZE_EXCEEDED"),
        ([{"name": "tool.exe", "content_type": "application/octet-stream", "size": 1}], None, 400,
         "ERR_BAD_REQUEST"),
    ],
    ids=["no-credential", "foreign-jwt", "bad-fat", "no-files", "empty-files", "eleven-files", "no-name",
         "no-type", "bad-type", "header-injection", "empty-file", "no-size", "over-the-limit", "blocked-extension"],
)
def test_bad_requests_for_upload_urls(served, files, headers, status, code):
    before = keys(served)
    got, answer = ask(served, files, headers)
    assert got == status
    refused(answer, code)
    assert keys(served) == before


def test_not_json_and_unknown_app(served):
    status, answer = ask(served, None, raw=b"{not json")
    assert status == 400 and refused(answer, "ERR_BAD_REQUEST")
    status, answer = ask(served, [{"name": "a.txt", "content_type": "text/plain", "size": 1}], {}, app="nope")
    assert status == 404 and refused(answer, "ERR_APP_NOT_FOUND")


# MARK: - The PUT


def test_the_size_boundary_byte(served):
    """The declared size is the limit: that many bytes are stored, one more is 413 before a byte is read
    (Content-Length) and while streaming (chunked), and nothing is kept."""
    upload = upload_url(served, size=50)
    status, answer, _ = put(upload["url"], b"x" * 51, {"Content-Type": "text/plain"})
    assert status == 413 and "50 bytes" in refused(answer, "ERR_FILE_SIZE_EXCEEDED")["message"]
    parts = urllib.parse.urlsplit(upload["url"])
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.request("PUT", parts.path + "?" + parts.query, body=iter([b"x" * 30, b"x" * 21]),
                       headers={"Content-Type": "text/plain"}, encode_chunked=True)
    response = connection.getresponse()
    assert response.status == 413 and refused(json.loads(response.read()), "ERR_FILE_SIZE_EXCEEDED")
    connection.close()
    assert upload["key"] not in keys(served)
    status, answer, _ = put(upload["url"], b"x" * 50, {"Content-Type": "text/plain"})
    assert status == 200 and answer["size"] == 50


def test_expiry_by_the_clock_to_the_second(served):
    first, second = upload_url(served, size=1), upload_url(served, size=1)
    advance(served, 899)
    assert put(first["url"], b"a", {"Content-Type": "text/plain"})[0] == 200
    advance(served, 1)
    status, answer, _ = put(second["url"], b"a", {"Content-Type": "text/plain"})
    assert status == 403
    error = refused(answer, "ERR_PRESIGNED_URL_EXPIRED")
    assert error["message"] == "Request has expired" and error["details"]["S3Code"] == "AccessDenied"
    assert set(error["details"]) >= {"Expires", "ServerTime"}
    assert second["key"] not in keys(served)


@pytest.mark.parametrize("tamper", ["key", "max-bytes", "owner", "content-type", "signature", "unsigned"])
def test_a_tampered_upload_url_is_refused_and_stores_nothing(served, tamper):
    upload = upload_url(served, size=10)
    url, headers = upload["url"], {"Content-Type": "text/plain"}
    if tamper == "key":
        url = url.replace("/note.txt?", "/other.txt?")
    elif tamper == "max-bytes":
        url = url.replace("x-mockcdn-max-bytes=10", "x-mockcdn-max-bytes=4096")
    elif tamper == "owner":
        url = url.replace("x-mockcdn-owner=ana", "x-mockcdn-owner=eve")
    elif tamper == "content-type":
        headers = {"Content-Type": "text/html"}
    elif tamper == "signature":
        signature = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))["X-Amz-Signature"]
        url = url.replace(signature, ("0" if signature[0] != "0" else "1") + signature[1:])
    else:
        url = url.split("?")[0]
    before = keys(served)
    status, answer, _ = put(url, b"0123456789", headers)
    assert status == 403
    journal = control(served, "/_mockcdn/requests?method=PUT&status=403")["requests"]
    assert keys(served) == before
    if tamper == "unsigned":
        # Without the URL's query it is no longer MockCDN's upload URL but a plain S3 PUT: S3's answer.
        assert b"<Code>AccessDenied</Code>" in answer, answer
        assert journal[-1]["credential"] == "none" and journal[-1]["reason"].startswith("AccessDenied: ")
        return
    error = refused(answer, "ERR_PERMISSION_DENIED")
    assert error["details"]["S3Code"] == "SignatureDoesNotMatch"
    assert journal[-1]["credential"] == "none" and journal[-1]["reason"].startswith("ERR_PERMISSION_DENIED: ")


def test_the_bytes_decide_the_stored_type(served):
    """A URL for `text/plain` that receives a PNG stores it as what the bytes are, as the multipart route does."""
    upload = upload_url(served, name="dot.txt", size=len(PNG))
    status, answer, _ = put(upload["url"], PNG, {"Content-Type": "text/plain"})
    assert status == 200 and answer["content_type"] == "image/png"


def partial_put(url: str, length: int, sent: int) -> socket.socket:
    """A PUT of `length` bytes of which only the first `sent` are sent; the connection stays open. Its reads
    time out after 30 s, >= 10x the stalls these tests wait for."""
    parts = urllib.parse.urlsplit(url)
    connection = socket.create_connection((parts.hostname, parts.port), timeout=30)
    connection.sendall((f"PUT {parts.path}?{parts.query} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                        f"Content-Type: text/plain\r\nContent-Length: {length}\r\n\r\n").encode() + b"x" * sent)
    return connection


def stalled_answer(connection: socket.socket) -> bytes:
    """The answer to a partial PUT: its head and its JSON body, however the bytes arrive."""
    answer = b""
    while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
        chunk = connection.recv(65536)
        if not chunk:
            break
        answer += chunk
    return answer


def test_a_stalled_put_fails_and_stores_nothing(served):
    upload = upload_url(served, size=100)
    # Timed from before the first byte is sent: the server's stall clock starts after it has read them, so
    # `waited` can only be longer than the stall, however slow the machine.
    started = time.monotonic()
    with partial_put(upload["url"], 100, 40) as connection:
        answer = stalled_answer(connection)
        waited = time.monotonic() - started
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), answer
    assert "1 s" in refused(json.loads(body), "ERR_UPLOAD_STALLED")["message"]
    # The 1 s stall really waited (one-sided, safe: it cannot be declared early); and it is the app's 1 s, not
    # the default 30 s: the upper bound is 15x the stall and half the default.
    assert 0.9 < waited < 15, waited
    assert upload["key"] not in keys(served)
    journal = control(served, "/_mockcdn/requests?method=PUT&status=408")["requests"]
    assert journal[-1]["path"] == "/" + upload["key"] and journal[-1]["credential"] == "presigned"


def test_the_stall_is_declared_before_a_shorter_idle_timeout_closes_the_connection(tmp_path):
    """With `--idle-timeout 3` and the default 30 s stall, the stall is declared at 2 s, so the client still
    hears 408 rather than a closed connection."""
    (tmp_path / "apps.yaml").write_text(f"apps:\n  - app_id: idle\n    api_key: idle-key\n    api_secret: {SECRET}\n")
    with launch("--config", str(tmp_path / "apps.yaml"), "--idle-timeout", "3") as server:
        upload = upload_url(server.url, size=100, app="idle")
        started = time.monotonic()
        with partial_put(upload["url"], 100, 10) as connection:
            answer = stalled_answer(connection)
            waited = time.monotonic() - started
        # The 408 itself shows that the stall came first: had the 3 s idle timeout closed the connection, there
        # would be no answer. "for 2 s" is the stall it chose; `waited` is checked one-sided only (timed from
        # before the first byte, it cannot be shorter than the stall), since the second between the stall and
        # the idle timeout is no margin a loaded machine keeps.
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert b"ERR_UPLOAD_STALLED" in answer and b"for 2 s" in answer and waited > 1.9, (answer, waited)
        assert upload["key"] not in keys(server.url, "idle")


def test_a_put_cancelled_half_way_stores_nothing(served):
    upload = upload_url(served, size=4000)
    journal = f"/_mockcdn/requests?method=PUT&path=/{upload['key']}"
    with partial_put(upload["url"], 4000, 2000):
        # Cancelled only once the server is handling the PUT: the journal records a request as it arrives,
        # with status 0 until it is answered.
        eventually(lambda: control(served, journal)["requests"], message="the PUT never reached the journal")
    entry = eventually(lambda: [entry for entry in control(served, journal)["requests"] if entry["status"]],
                       message="the cancelled PUT was never answered")[0]
    # Its signature held, and it failed. (How much of the half sent was read before the cut depends on when the
    # connection closed against the route's first read: at most what was sent.)
    assert entry["credential"] == "presigned" and entry["bytes_in"] <= 2000 and entry["status"] >= 400, entry
    assert upload["key"] not in keys(served)
    assert request(f"{served}/{upload['key']}", headers={"fat": fat(served)})[0] == 404
    # The URL still works for a whole upload afterwards.
    assert put(upload["url"], b"y" * 4000, {"Content-Type": "text/plain"})[0] == 200


# MARK: - boto3's own presigned PUTs


@pytest.mark.parametrize("signature_version", [None, "s3v4", "s3"], ids=["defaults", "sigv4", "sigv2"])
def test_boto3_presigned_puts_are_accepted(served, signature_version):
    key = f"media/{uuid.uuid4()}/dot.png"
    url = s3(served, signature_version).generate_presigned_url(
        "put_object", Params={"Bucket": "uploads", "Key": key, "ContentType": "image/png"}, ExpiresIn=600)
    assert ("X-Amz-Signature" in url) == (signature_version == "s3v4")
    status, answer, headers = put(url, PNG, {"Content-Type": "image/png"})
    # S3's answer: the ETag, no body.
    assert status == 200 and answer == b"" and headers["ETag"].startswith('"'), answer
    status, body, stored = request(f"{served}/uploads/{key}", headers={"fat": fat(served)})
    assert status == 200 and body == PNG and stored["Content-Type"] == "image/png"
    journal = control(served, "/_mockcdn/requests?method=PUT&path=/uploads/" + key)["requests"]
    assert journal[-1]["credential"] == ("presigned" if signature_version == "s3v4" else "presigned-v2")


@pytest.mark.parametrize("signature_version", [None, "s3v4", "s3"], ids=["defaults", "sigv4", "sigv2"])
@pytest.mark.parametrize("case", ["tampered-key", "other-content-type", "expired", "over-the-app-limit"])
def test_boto3_presigned_puts_are_refused(served, signature_version, case):
    key = f"media/{uuid.uuid4()}/file.txt"
    url = s3(served, signature_version).generate_presigned_url(
        "put_object", Params={"Bucket": "uploads", "Key": key, "ContentType": "text/plain"}, ExpiresIn=60)
    body, headers = b"x" * 4096, {"Content-Type": "text/plain"}
    if case == "tampered-key":
        url = url.replace("/file.txt?", "/other.txt?")
    elif case == "other-content-type":
        headers = {"Content-Type": "text/html"}
    elif case == "expired":
        # boto3 signs by real time, which may be a second past the clock set when the test began; the
        # boundary second itself is tested on MockCDN's own URLs.
        advance(served, 62)
    else:
        body = b"x" * 4097
    status, answer, _ = put(url, body, headers)
    # boto3's URLs are S3's, so is every refusal: XML with S3's code.
    expected = {
        "tampered-key": (403, "SignatureDoesNotMatch"),
        "other-content-type": (403, "SignatureDoesNotMatch"),
        "expired": (403, "AccessDenied"),
        "over-the-app-limit": (400, "EntityTooLarge"),
    }[case]
    assert status == expected[0], answer
    assert s3_code(answer) == expected[1], answer
    assert not [stored for stored in keys(served) if stored.startswith(f"uploads/{key.rsplit('/', 1)[0]}")]
    if case == "over-the-app-limit":
        # The byte before the boundary goes through.
        assert put(url, b"x" * 4096, headers)[0] == 200


def test_boto3_put_to_a_blocked_extension_is_refused_by_the_policy(served):
    key = f"media/{uuid.uuid4()}/tool.exe"
    url = s3(served).generate_presigned_url("put_object", Params={"Bucket": "uploads", "Key": key}, ExpiresIn=60)
    status, answer, _ = put(url, b"MZ" + b"\0" * 62)
    assert status == 415 and s3_code(answer) == "UnsupportedMediaType" and b".exe is blocked" in answer, answer
    assert "uploads/" + key not in keys(served)


def test_settings_report_the_upload_limits(served):
    settings = control(served, "/v1/apps/uploads/settings")
    assert (settings["UPLOAD_URL_TTL"], settings["UPLOAD_STALL_TIMEOUT"]) == (900, 1)
    assert (settings["FILE_SIZE_MAX"], settings["FILE_COUNT_MAX"]) == (4096, 10)


@pytest.mark.parametrize("line, error", [
    ("upload_url_ttl: 60", None), ("upload_url_ttl: 604800", None), ("upload_stall_timeout: 1", None),
    ("upload_stall_timeout: 3600", None),
    ("upload_url_ttl: 59", "upload_url_ttl must be 60...604800 seconds"),
    ("upload_url_ttl: 604801", "upload_url_ttl must be 60...604800 seconds"),
    ("upload_stall_timeout: 0", "upload_stall_timeout must be 1...3600 seconds"),
    ("upload_stall_timeout: 3601", "upload_stall_timeout must be 1...3600 seconds"),
    ("s3_size_limit: 1", None), ("s3_size_limit: 5497558138880", None),
    ("s3_size_limit: 0", "s3_size_limit must be 1...5497558138880 (bytes, up to 5 TiB)"),
    ("s3_size_limit: 5497558138881", "s3_size_limit must be 1...5497558138880 (bytes, up to 5 TiB)"),
])
def test_each_bound_of_the_upload_settings_at_start(tmp_path, line, error):
    path = tmp_path / "apps.yaml"
    path.write_text(f"apps:\n  - app_id: bounds\n    api_key: k\n    api_secret: {SECRET}\n    {line}\n")
    first, message = start_outcome(str(path))
    if error is None:
        assert first.startswith("mockcdn ready on"), first
    else:
        assert f"app bounds: {error}" in message, message
