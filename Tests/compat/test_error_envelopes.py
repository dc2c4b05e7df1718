"""Each surface refuses in its own envelope, whatever is wrong with a request: every refusal of an S3-addressed
request (`/{app}...`, path-style or virtual-hosted) is S3's XML, `<Error><Code>`, and never JSON; no refusal of
a Stream or CometChat route is XML. A sweep of methods, paths, S3 sub-resources and credentials, good and bad,
so that a new route or an early refusal cannot answer in the wrong shape unseen.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_error_envelopes.py``.
"""

from __future__ import annotations

import http.client
import itertools
import json
import urllib.parse
import xml.etree.ElementTree as ET

import pytest

from s3support import HeaderSigner, journal
from support import API_KEY, jwt

S3_METHODS = ["GET", "HEAD", "PUT", "POST", "DELETE", "PATCH", "OPTIONS", "PROPFIND"]
S3_PATHS = ["/demo", "/demo/", "/demo/fixtures/sample.pdf", "/demo/no/such.txt", "/demo/images/x.png", "/nosuchapp",
            "/nosuchapp/k.txt"]
S3_QUERIES = [
    "", "?uploads", "?uploadId=nope", "?uploadId=nope&partNumber=1", "?partNumber=0", "?delete", "?list-type=2",
    "?list-type=2&max-keys=-1", "?location", "?acl", "?versioning",
    "?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=demo-key%2F20260101%2Fus-east-1%2Fs3%2Faws4_request"
    "&X-Amz-Date=20260101T000000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=00",
    "?AWSAccessKeyId=demo-key&Expires=1&Signature=AA%3D%3D", "?fat=not-a-token",
]


def s3_credentials(method: str, url: str) -> dict[str, dict]:
    """No credential, a SigV4 header with the wrong secret, one that is no signature, and a SigV2 header."""
    wrong = HeaderSigner(secret="not-the-secret").sign(method, url, {}, "UNSIGNED-PAYLOAD")[0]
    return {
        "none": {},
        "sigv4 wrong secret": {name: value for name, value in wrong.items() if name != "host"},
        "sigv4 garbage": {"Authorization": "AWS4-HMAC-SHA256 nonsense", "x-amz-date": "20260101T000000Z"},
        "sigv2 wrong": {"Authorization": f"AWS {API_KEY}:AAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                        "Date": "Thu, 01 Jan 2026 00:00:00 GMT"},
    }


class Client:
    """One keep-alive connection, opened again whenever the server closed it (as it does after an early
    refusal)."""

    def __init__(self, server: str):
        parts = urllib.parse.urlsplit(server)
        self.host, self.port, self.connection = parts.hostname, parts.port, None

    def send(self, method: str, target: str, headers: dict, body: bytes | None) -> tuple[int, str, bytes]:
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        self.connection.request(method, target, body=body, headers=headers)
        response = self.connection.getresponse()
        answer = response.status, response.headers.get("content-type", ""), response.read()
        if response.will_close:
            self.connection.close()
            self.connection = None
        return answer


def not_s3_xml(method: str, status: int, content_type: str, body: bytes) -> str | None:
    """What is wrong with a refusal of an S3-addressed request, or None."""
    if not content_type.startswith("application/xml"):
        return f"Content-Type {content_type!r}"
    if method == "HEAD":
        return None if body == b"" else "a body on HEAD"
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return f"no XML: {body[:80]!r}"
    return None if root.tag == "Error" and root.findtext("Code") else f"no <Error><Code>: {body[:80]!r}"


def test_every_s3_addressed_refusal_is_s3_xml(server):
    client, wrong, seen = Client(server), [], set()
    cases = itertools.product(S3_METHODS, S3_PATHS, S3_QUERIES)
    virtual = [(method, "/fixtures/sample.pdf", query, "demo.localhost") for method, query in
               itertools.product(S3_METHODS, S3_QUERIES)]
    for method, path, query, *host in [(*case,) for case in cases] + virtual:
        target = path + query
        for name, headers in s3_credentials(method, server + target).items():
            headers = {**headers, **({"Host": host[0]} if host else {})}
            body = b"x" if method in ("PUT", "POST") else None
            status, content_type, answer = client.send(method, target, headers, body)
            seen.add(status)
            if status >= 400 and (problem := not_s3_xml(method, status, content_type, answer)):
                wrong.append(f"{method} {target} ({name}{', Host ' + host[0] if host else ''}) -> {status}: {problem}")
    assert not wrong, f"{len(wrong)} refusals not in S3's XML, e.g.:\n" + "\n".join(wrong[:20])
    # The sweep meets each kind of refusal: a test that only saw one status could not fail for the others.
    assert {400, 401, 403, 404, 405, 501} <= seen, seen


STREAM_AND_COMETCHAT = [
    ("/api/v2/uploads/image", ["POST", "DELETE", "PATCH"]),
    ("/api/v2/uploads/file", ["POST", "DELETE", "PATCH"]),
    ("/channels/messaging/general/image", ["POST", "DELETE", "PATCH"]),
    ("/channels/messaging/general/file", ["POST", "DELETE"]),
    ("/api/v2/chat/channels/messaging/general/file", ["POST", "DELETE"]),
    ("/channels/messaging/general/uploads", ["GET"]),
    ("/channels/messaging/general/members", ["POST"]),
    ("/app", ["GET", "PATCH"]),
    ("/api/v2/app", ["GET", "PATCH"]),
    ("/demo/media", ["POST"]),
    ("/v1/apps/demo/fat", ["POST"]),
    ("/v1/apps/demo/presign", ["POST"]),
    ("/v1/apps/demo/uploads", ["POST"]),
    ("/v1/apps/demo/settings", ["GET"]),
    ("/v1/apps/nosuchapp/settings", ["GET"]),
]


def test_no_stream_or_cometchat_refusal_is_xml(server):
    client, wrong, refusals = Client(server), [], 0
    credentials = {
        "none": {},
        "wrong stream token": {"Authorization": "not.a.jwt", "stream-auth-type": "jwt", "api_key": API_KEY},
        "stream token, bad body": {"Authorization": jwt(), "stream-auth-type": "jwt",
                                   "Content-Type": "application/json"},
        "wrong cometchat keys": {"appId": "demo", "apiKey": "not-the-key", "Content-Type": "application/json"},
        "fat": {"fat": "not-a-token"},
    }
    for (path, methods), (name, headers) in itertools.product(STREAM_AND_COMETCHAT, credentials.items()):
        for method in methods:
            target = path + ("?api_key=" + API_KEY if path.startswith(("/api", "/channels", "/app")) else "")
            status, content_type, answer = client.send(method, target, headers,
                                                       b"{not json" if method in ("POST", "PATCH") else None)
            if status < 400:
                continue
            refusals += 1
            if "xml" in content_type or answer.lstrip().startswith(b"<"):
                wrong.append(f"{method} {target} ({name}) -> {status}: XML")
            elif answer:
                try:
                    json.loads(answer)
                except ValueError:
                    wrong.append(f"{method} {target} ({name}) -> {status}: neither JSON nor empty: {answer[:80]!r}")
    assert not wrong, "\n".join(wrong[:20])
    assert refusals > 50, refusals


@pytest.mark.parametrize("path, resource", [("/demo", "BUCKET"), ("/demo/", "BUCKET"), ("/demo/a/b.txt", "OBJECT")])
def test_a_method_no_s3_route_takes_is_method_not_allowed(server, path, resource):
    status, content_type, body = Client(server).send("PATCH", path, {}, b"x")
    error = ET.fromstring(body)
    assert (status, error.findtext("Code"), error.findtext("Method"), error.findtext("ResourceType")) == (
        405, "MethodNotAllowed", "PATCH", resource), body
    entry = [entry for entry in journal(server) if entry["method"] == "PATCH" and entry["path"] == path][-1]
    assert (entry["status"], entry["reason"].split(":")[0]) == (405, "MethodNotAllowed"), entry
