"""S3 POST policy uploads (PostObject) as backends make them and browsers send them: boto3's
`generate_presigned_post` with its defaults (only the endpoint and the demo app's keys: SigV2 fields) or with
SigV4, posted as multipart/form-data built by hand, and a real HTML form in headless Chromium on another
origin. Every refusal is S3's XML with S3's status and code, and stores nothing.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_post_policy.py``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import html
import http.client
import http.server
import json
import shutil
import tempfile
import threading
import urllib.parse
import uuid
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from s3support import advance, code_of, journal, reset, s3
from support import API_KEY, API_SECRET, eventually, multipart

pytestmark = pytest.mark.usefixtures("no_aws_configuration")


def fresh_key(name: str = "note.txt") -> str:
    return f"form/{uuid.uuid4()}/{name}"


def post(url: str, fields, data: bytes, filename: str = "note.txt", content_type: str | None = "text/plain",
         after: list[tuple[str, str]] = (), cut: int = 0) -> tuple[int, bytes, dict]:
    """POSTs a browser's multipart/form-data: `fields` (a dict or (name, value) pairs) in order, then the file
    part, then `after`; `cut` bytes are taken off the body's end. Redirects are not followed. Returns (status,
    body, headers with lower-case names)."""
    items = list(fields.items()) if isinstance(fields, dict) else list(fields)
    parts = [(name, None, None, value.encode()) for name, value in items]
    parts.append(("file", filename, content_type, data))
    parts += [(name, None, None, value.encode()) for name, value in after]
    boundary = "----MockCDNForm" + uuid.uuid4().hex
    body = multipart(parts, boundary)
    body = body[:len(body) - cut]
    target = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    try:
        connection.request("POST", target.path, body=body,
                           headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = connection.getresponse()
        return response.status, response.read(), {name.lower(): value for name, value in response.getheaders()}
    finally:
        connection.close()


def error_of(status: int, body: bytes) -> tuple[int, str, str]:
    """The status, S3 code and message of an XML error answer."""
    error = ET.fromstring(body)
    assert error.tag == "Error", body
    return status, error.findtext("Code"), error.findtext("Message")


def stored(client, key: str) -> bytes | None:
    """The object's bytes, or None when there is none."""
    try:
        return client.get_object(Bucket="demo", Key=key)["Body"].read()
    except ClientError as missing:
        assert code_of(missing) == (404, "NoSuchKey"), missing.response
        return None


def test_a_presigned_post_stores_the_file(server):
    client, key = s3(server), fresh_key()
    form = client.generate_presigned_post("demo", key)
    assert form["url"] == f"{server}/demo" and "AWSAccessKeyId" in form["fields"]  # boto3's defaults: SigV2
    status, body, headers = post(form["url"], form["fields"], b"hello from a form")
    assert (status, body) == (204, b""), body
    assert headers["etag"].startswith('"') and headers["location"] == f"{server}/demo/{key}"
    assert stored(client, key) == b"hello from a form"
    assert client.head_object(Bucket="demo", Key=key)["ETag"] == headers["etag"]
    posts = [entry for entry in journal(server) if entry["method"] == "POST" and entry["path"] == "/demo"]
    assert (posts[-1]["status"], posts[-1]["credential"]) == (204, "s3-post-policy"), posts[-1]


def test_a_sigv4_form_keeps_its_type_metadata_and_headers(server):
    client, key = s3(server, config=Config(signature_version="s3v4")), fresh_key("page.txt")
    fields = {"Content-Type": "text/plain", "x-amz-meta-origin": "browser", "Cache-Control": "no-cache",
              "Content-Disposition": 'attachment; filename="page.txt"', "success_action_status": "200"}
    form = client.generate_presigned_post("demo", key, Fields=fields,
                                          Conditions=[{name: value} for name, value in fields.items()])
    assert "x-amz-signature" in form["fields"]
    status, body, headers = post(form["url"], form["fields"], b"plain words", content_type="application/x-ignored")
    assert (status, body) == (200, b""), body
    head = client.head_object(Bucket="demo", Key=key)
    assert head["ContentType"] == "text/plain" and head["Metadata"] == {"origin": "browser"}
    assert (head["CacheControl"], head["ContentDisposition"]) == ("no-cache", 'attachment; filename="page.txt"')
    assert head["ETag"] == headers["etag"]


def test_the_key_takes_the_file_name(server):
    client, folder = s3(server), f"form/{uuid.uuid4()}"
    form = client.generate_presigned_post("demo", folder + "/${filename}")
    status, body, _ = post(form["url"], form["fields"], b"named by the browser", filename="C:\\Users\\me\\report.txt")
    assert status == 204, body
    assert stored(client, f"{folder}/report.txt") == b"named by the browser"


def test_success_action_status_201_answers_a_post_response(server):
    client, key = s3(server), fresh_key()
    form = client.generate_presigned_post("demo", key, Fields={"success_action_status": "201"},
                                          Conditions=[{"success_action_status": "201"}])
    status, body, headers = post(form["url"], form["fields"], b"created")
    assert status == 201, body
    answer = ET.fromstring(body)
    assert answer.tag == "PostResponse"
    assert (answer.findtext("Bucket"), answer.findtext("Key")) == ("demo", key)
    assert answer.findtext("ETag") == headers["etag"] == client.head_object(Bucket="demo", Key=key)["ETag"]
    assert answer.findtext("Location") == headers["location"] == f"{server}/demo/{key}"


def test_success_action_redirect_is_a_303_with_the_object(server):
    client, key = s3(server), fresh_key()
    target = "https://app.example/uploaded?from=form"
    form = client.generate_presigned_post("demo", key, Fields={"success_action_redirect": target},
                                          Conditions=[{"success_action_redirect": target}])
    status, body, headers = post(form["url"], form["fields"], b"redirected")
    assert status == 303, body
    location = urllib.parse.urlsplit(headers["location"])
    assert (location.scheme, location.netloc, location.path) == ("https", "app.example", "/uploaded")
    query = urllib.parse.parse_qs(location.query)
    assert query == {"from": ["form"], "bucket": ["demo"], "key": [key], "etag": [headers["etag"]]}, query
    assert stored(client, key) == b"redirected"


def test_fields_after_the_file_are_ignored(server):
    client, key = s3(server), fresh_key()
    form = client.generate_presigned_post("demo", key)
    status, body, _ = post(form["url"], form["fields"], b"first file",
                           after=[("x-amz-meta-late", "never checked"), ("success_action_status", "201")])
    assert status == 204, body
    assert client.head_object(Bucket="demo", Key=key)["Metadata"] == {}


def test_a_body_that_breaks_off_after_the_file_replaces_nothing(server):
    client, key = s3(server), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"kept as it was")
    form = client.generate_presigned_post("demo", key)
    # The file part is whole; the field after it, and the body, end without a closing boundary.
    status, body, _ = post(form["url"], form["fields"], b"replacement", after=[("x-ignore-late", "cut")], cut=12)
    assert status == 400, body
    assert stored(client, key) == b"kept as it was"


def _sigv2_form(policy_json: str) -> dict:
    """The credential fields of a SigV2 form for a policy written by hand, as its JSON text."""
    policy = base64.b64encode(policy_json.encode()).decode()
    signature = base64.b64encode(hmac.new(API_SECRET.encode(), policy.encode(), hashlib.sha1).digest()).decode()
    return {"AWSAccessKeyId": API_KEY, "policy": policy, "signature": signature}


def _expiration() -> str:
    return (dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_escaped_field_values_as_ceph_s3_tests_send_them(server):
    """ceph's s3-tests `test_post_object_escaped_field_values`: a key starting `\\$` under a policy whose JSON
    escapes its backslash, with an `acl` field and a `Content-Type` starts-with."""
    client = s3(server)
    key = f"form/{uuid.uuid4()}/\\$foo.txt"
    policy = json.dumps({"expiration": _expiration(), "conditions": [
        {"bucket": "demo"}, ["starts-with", "$key", key[:-len("foo.txt")]], {"acl": "private"},
        ["starts-with", "$Content-Type", "text/plain"], ["content-length-range", 0, 1024]]})
    fields = {"key": key, **_sigv2_form(policy), "acl": "private", "Content-Type": "text/plain"}
    status, body, _ = post(f"{server}/demo", fields, b"bar")
    assert status == 204, body
    assert stored(client, key) == b"bar"


def test_s3s_own_policy_escapes_are_read(server):
    """S3's POST policy language escapes `$` as `\\$` (and a vertical tab as `\\v`), which JSON does not: a
    policy written by its table reads, and its condition holds for the literal dollar sign."""
    client, folder = s3(server), f"form/{uuid.uuid4()}"
    policy = ('{"expiration": "%s", "conditions": [{"bucket": "demo"}, ["starts-with", "$key", "%s/\\$"], '
              '["eq", "$x-amz-meta-note", "tab\\vx"]]}') % (_expiration(), folder)
    assert "\\$" in policy and "\\v" in policy
    fields = {"key": f"{folder}/$price.txt", **_sigv2_form(policy), "x-amz-meta-note": "tab\vx"}
    status, body, _ = post(f"{server}/demo", fields, b"five dollars")
    assert status == 204, body
    assert stored(client, f"{folder}/$price.txt") == b"five dollars"
    # The condition is the literal dollar sign: another key is refused.
    other = {**fields, "key": f"{folder}/price.txt"}
    assert error_of(*post(f"{server}/demo", other, b"x")[:2])[:2] == (403, "AccessDenied")


def _crc32(data: bytes) -> str:
    return base64.b64encode(zlib.crc32(data).to_bytes(4, "big")).decode()


def test_checksum_fields_are_checked_against_the_file(server):
    """A form may carry `x-amz-checksum-*` (and `x-amz-checksum-algorithm`) without the policy naming them, as
    ceph's s3-tests `test_post_object_upload_checksum` expects of S3: the file is checked against the value
    (400 `BadDigest` on a mismatch, nothing stored), the checksum is kept and read back, and the ETag is the
    file's MD5, as S3's."""
    client = s3(server, config=Config(signature_version="s3v4"))
    data = b"checked as it streams in\n" * 100
    key = fresh_key("checked.txt")
    form = client.generate_presigned_post("demo", key)
    status, body, headers = post(form["url"], {**form["fields"], "x-amz-checksum-algorithm": "CRC32",
                                               "x-amz-checksum-crc32": _crc32(data)}, data)
    assert status == 204, body
    assert headers["etag"] == '"%s"' % hashlib.md5(data).hexdigest() and headers["x-amz-checksum-crc32"] == _crc32(data)
    head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert (head["ETag"], head["ChecksumCRC32"]) == (headers["etag"], _crc32(data))
    assert stored(client, key) == data
    sha256 = base64.b64encode(hashlib.sha256(data).digest()).decode()
    key = fresh_key("sha.txt")
    form = client.generate_presigned_post("demo", key)
    assert post(form["url"], {**form["fields"], "x-amz-checksum-sha256": sha256}, data)[0] == 204
    assert client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")["ChecksumSHA256"] == sha256
    # Refusals store nothing: a checksum of other bytes, a value that is no checksum, two checksums, an
    # algorithm that is not the value's or that S3 does not have.
    refusals = [
        ({"x-amz-checksum-crc32": _crc32(b"other bytes")}, 400, "BadDigest"),
        ({"x-amz-checksum-sha256": "sailorjerry"}, 400, "InvalidRequest"),
        ({"x-amz-checksum-crc32": _crc32(data), "x-amz-checksum-sha256": sha256}, 400, "InvalidRequest"),
        ({"x-amz-checksum-algorithm": "SHA256", "x-amz-checksum-crc32": _crc32(data)}, 400, "InvalidRequest"),
        ({"x-amz-checksum-algorithm": "MD4"}, 400, "InvalidRequest"),
    ]
    for extra, status, code in refusals:
        key = fresh_key("refused.txt")
        form = client.generate_presigned_post("demo", key)
        answer = post(form["url"], {**form["fields"], **extra}, data)
        assert error_of(*answer[:2])[:2] == (status, code), (extra, answer[1])
        assert stored(client, key) is None
    # A Content-MD5 field (which, as any other field, the policy names) is checked too.
    key = fresh_key("md5.txt")
    form = client.generate_presigned_post("demo", key, Conditions=[["starts-with", "$Content-MD5", ""]])
    wrong = base64.b64encode(hashlib.md5(b"other").digest()).decode()
    answer = post(form["url"], {**form["fields"], "Content-MD5": wrong}, data)
    assert error_of(*answer[:2])[:2] == (400, "BadDigest") and stored(client, key) is None
    right = base64.b64encode(hashlib.md5(data).digest()).decode()
    assert post(form["url"], {**form["fields"], "Content-MD5": right}, data)[0] == 204


# (conditions, fields, file, changes to the signed form, status, code); the key is `form/UUID/${filename}`, for
# which boto3 adds `["starts-with", "$key", "form/UUID/"]`.
REFUSALS = {
    "key outside starts-with": ([], {}, b"x", {"key": "elsewhere/x.txt"}, 403, "AccessDenied"),
    # Refused as the file streams in, past the maximum (small enough to arrive whole: a refusal that leaves a
    # body unread closes the connection under it).
    "content-length-range too large": ([["content-length-range", 1, 1024]], {}, b"\0" * 8192, {}, 400,
                                       "EntityTooLarge"),
    "content-length-range too small": ([["content-length-range", 5, 10]], {}, b"abc", {}, 400, "EntityTooSmall"),
    "Content-Type not eq": ([["eq", "$Content-Type", "image/png"]], {"Content-Type": "image/png"}, b"text",
                            {"Content-Type": "text/plain"}, 403, "AccessDenied"),
    "tampered policy": ([], {}, b"x", {"policy": None}, 403, "SignatureDoesNotMatch"),
    "tampered signature": ([], {}, b"x", {"signature": "AAAAAAAAAAAAAAAAAAAAAAAAAAA="}, 403,
                           "SignatureDoesNotMatch"),
    "extra field": ([], {}, b"x", {"x-extra": "not in the policy"}, 403, "AccessDenied"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_form_the_policy_refuses_stores_nothing(server, case):
    conditions, fields, data, changes, status, code = REFUSALS[case]
    client, folder = s3(server), f"form/{uuid.uuid4()}"
    form = client.generate_presigned_post("demo", folder + "/${filename}", Fields=fields, Conditions=conditions)
    sent = {**form["fields"], **changes}
    if "policy" in changes:
        # Still a policy that reads, but not the one signed.
        sent["policy"] = base64.b64encode(base64.b64decode(form["fields"]["policy"]) + b" ").decode()
    answer = post(form["url"], sent, data, content_type=None)
    assert error_of(*answer[:2])[:2] == (status, code), answer[1]
    if case == "extra field":
        assert error_of(*answer[:2])[2] == "Invalid according to Policy: Extra input fields: x-extra"
    assert stored(client, folder + "/note.txt") is None and stored(client, "elsewhere/x.txt") is None
    posts = [entry for entry in journal(server) if entry["method"] == "POST" and entry["path"] == "/demo"]
    assert posts[-1]["status"] == status and posts[-1]["reason"].startswith(code + ":"), posts[-1]


def test_an_expired_policy_is_refused(server):
    client, key = s3(server), fresh_key()
    form = client.generate_presigned_post("demo", key, ExpiresIn=60)
    advance(server, 61)
    try:
        answer = post(form["url"], form["fields"], b"late")
        refusal = journal(server)[-1]
    finally:
        reset(server)
    assert error_of(*answer[:2]) == (403, "AccessDenied", "Invalid according to Policy: Policy expired.")
    assert stored(client, key) is None
    # The journal dates the refusal: the policy's expiration, by the MockCDN clock.
    expiration = json.loads(base64.b64decode(form["fields"]["policy"]))["expiration"]
    assert refusal["expired_at"] == int(dt.datetime.fromisoformat(expiration.replace("Z", "+00:00")).timestamp())


def test_a_form_without_credentials_is_anonymous_and_refused(server):
    client, key = s3(server), fresh_key()
    answer = post(f"{server}/demo", {"key": key}, b"anonymous")
    assert error_of(*answer[:2])[:2] == (403, "AccessDenied")
    assert stored(client, key) is None
    posts = [entry for entry in journal(server) if entry["method"] == "POST" and entry["path"] == "/demo"]
    assert posts[-1]["credential"] == "none", posts[-1]


def test_fields_past_20_kib_are_refused(server):
    client, key = s3(server), fresh_key()
    form = client.generate_presigned_post("demo", key)
    answer = post(form["url"], {**form["fields"], "x-ignore-padding": "p" * 21_000}, b"x")
    assert error_of(*answer[:2])[:2] == (400, "MaxPostPreDataLengthExceeded")
    assert stored(client, key) is None


# MARK: - A real browser


@pytest.fixture(scope="module")
def chrome():
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("Chromium and chromedriver are not installed (make test installs them)")
    from support import browser

    driver = browser()
    driver.set_page_load_timeout(20)
    driver.set_script_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def foreign():
    """A page origin of its own: a static server on another port (and host name) than MockCDN's."""
    folder = Path(tempfile.mkdtemp())
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=str(folder))  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    (folder / "done.html").write_text("<!doctype html><title>uploaded</title><p>uploaded")
    yield folder, f"http://localhost:{httpd.server_address[1]}"
    httpd.shutdown()
    shutil.rmtree(folder)


def form_page(form: dict) -> str:
    """An HTML form built from `generate_presigned_post`'s answer, the file input last."""
    inputs = "".join(f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">'
                     for name, value in form["fields"].items())
    return (f'<!doctype html><form method="post" enctype="multipart/form-data" action="{html.escape(form["url"])}">'
            f'{inputs}<input type="file" name="file" id="file"><button type="submit">Upload</button></form>')


def test_a_browser_form_on_another_origin_lands_on_the_redirect(server, chrome, foreign):
    folder, origin = foreign
    client, prefix = s3(server), f"browser/{uuid.uuid4()}"
    done = origin + "/done.html"
    form = client.generate_presigned_post("demo", prefix + "/${filename}",
                                          Fields={"success_action_redirect": done},
                                          Conditions=[{"success_action_redirect": done}])
    (folder / "form.html").write_text(form_page(form))
    upload = folder / "photo-notes.txt"
    upload.write_bytes(b"sent by a real browser")
    chrome.get(origin + "/form.html")
    chrome.find_element("id", "file").send_keys(str(upload))
    chrome.find_element("css selector", "button[type=submit]").click()
    eventually(lambda: chrome.current_url.startswith(done), message=lambda: f"the browser is at {chrome.current_url}")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(chrome.current_url).query)
    key = f"{prefix}/photo-notes.txt"
    assert (query["bucket"], query["key"]) == (["demo"], [key]), query
    assert query["etag"] == [client.head_object(Bucket="demo", Key=key)["ETag"]]
    assert stored(client, key) == b"sent by a real browser"


FETCH = """
const [url, fields, done] = arguments;
const form = new FormData();
for (const [name, value] of Object.entries(fields)) form.append(name, value);
form.append('file', new Blob(['fetched by a page'], {type: 'text/plain'}), 'fetched.txt');
fetch(url, {method: 'POST', body: form})
  .then(async answer => done({status: answer.status, etag: answer.headers.get('ETag'), body: await answer.text()}))
  .catch(error => done({error: String(error)}));
"""


def test_a_page_on_another_origin_can_post_and_read_the_answer(server, chrome, foreign):
    _, origin = foreign
    client, key = s3(server), fresh_key("fetched.txt")
    form = client.generate_presigned_post("demo", key, Fields={"success_action_status": "201"},
                                          Conditions=[{"success_action_status": "201"}])
    chrome.get(origin + "/done.html")
    answer = chrome.execute_async_script(FETCH, form["url"], form["fields"])
    assert answer.get("status") == 201, answer
    assert ET.fromstring(answer["body"]).findtext("Key") == key
    assert answer["etag"] == client.head_object(Bucket="demo", Key=key)["ETag"]
    assert stored(client, key) == b"fetched by a page"
