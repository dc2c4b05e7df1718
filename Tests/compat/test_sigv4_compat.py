"""Compatibility suite: SigV4 presigned URLs made by real AWS tooling (boto3 `generate_presigned_url` and
`aws s3 presign`, path-style, endpoint = MockCDN, credentials = the demo app's api_key/api_secret, region
= the app's region) are served; the clock, a changed character and MockCDN's own presign endpoint are
checked against the same tools.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import datetime
import http.client
import json
import os
import shutil
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET
from unittest import mock

import boto3
import botocore.auth
import pytest
from botocore.config import Config

from support import API_KEY, API_SECRET, jwt, request, upload

REGION = "us"
FILE_BYTES = b"MockCDN SigV4 compat \x00\x01\x02\xff payload\n"


def _s3(server: str):
    return boto3.client(
        "s3",
        endpoint_url=server,
        aws_access_key_id=API_KEY,
        aws_secret_access_key=API_SECRET,
        region_name=REGION,
        config=Config(signature_version="s3v4", s3={"addressing_style": "path"}),
    )


def _advance(server: str, seconds: int) -> None:
    status, body, _ = request(
        f"{server}/_mockcdn/clock/advance", "POST", json.dumps({"seconds": seconds}).encode(),
        {"Content-Type": "application/json"},
    )
    assert status == 200, body


def _error(body: bytes) -> ET.Element:
    root = ET.fromstring(body)
    assert root.tag == "Error", body
    return root


@pytest.fixture(scope="module")
def key(server):
    """The store key (after the bucket, i.e. the app id) of an uploaded file."""
    url = upload(server, "file", "sigv4-compat.bin", "application/octet-stream", FILE_BYTES)
    path = urllib.parse.urlparse(url).path
    assert path.startswith("/demo/attachments/"), url
    return urllib.parse.unquote(path[len("/demo/") :])


@pytest.fixture(scope="module")
def fat(server):
    status, body, _ = request(
        f"{server}/v1/apps/demo/fat",
        "POST",
        json.dumps({"user_id": "alice", "ttl": 3600}).encode(),
        {"Authorization": "Bearer " + jwt({"server": True})},
    )
    assert status == 200, body
    return json.loads(body)["fat"]


def test_1_boto3_presigned_url_is_served(server, key):
    url = _s3(server).generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300
    )
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in url and "%2Fus%2Fs3%2Faws4_request" in url, url
    status, body, _ = request(url)
    assert status == 200, body
    assert body == FILE_BYTES


def test_2_aws_s3_presign_is_served(server, key):
    aws = shutil.which("aws")
    assert aws, "awscli is required (make py-deps installs it)"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET, AWS_CONFIG_FILE="/dev/null")
    env.pop("AWS_PROFILE", None)
    result = subprocess.run(
        [aws, "s3", "presign", f"s3://demo/{key}", "--endpoint-url", server, "--region", REGION, "--expires-in", "300"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    url = result.stdout.strip()
    assert url.startswith(f"{server}/demo/attachments/"), url
    status, body, _ = request(url)
    assert status == 200, body
    assert body == FILE_BYTES


def test_3_expiry_follows_the_server_clock(server, key):
    url = _s3(server).generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=120
    )
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(url).query))
    signed_at = datetime.datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(
        tzinfo=datetime.timezone.utc
    )
    assert request(url)[0] == 200
    _advance(server, 121)
    try:
        status, body, _ = request(url)
        assert status == 403, body
        root = _error(body)
        assert root.findtext("Code") == "AccessDenied", body
        assert root.findtext("Message") == "Request has expired", body
        assert root.findtext("X-Amz-Expires") == "120", body
        expires = signed_at + datetime.timedelta(seconds=120)
        assert root.findtext("Expires") == expires.strftime("%Y-%m-%dT%H:%M:%SZ"), body
        server_time = datetime.datetime.strptime(root.findtext("ServerTime"), "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc
        )
        assert server_time >= expires, body
    finally:
        _advance(server, -121)
    assert request(url)[0] == 200


@pytest.mark.parametrize("part", ["signature", "path", "expires", "access-key"])
def test_4_one_changed_character_is_refused(server, key, part):
    url = _s3(server).generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300
    )
    if part == "signature":
        head, sig = url.rsplit("X-Amz-Signature=", 1)
        changed = head + "X-Amz-Signature=" + sig[:10] + ("0" if sig[10] != "0" else "1") + sig[11:]
    elif part == "path":
        changed = url.replace("/attachments/", "/attachmentz/", 1)
    elif part == "expires":
        changed = url.replace("X-Amz-Expires=300", "X-Amz-Expires=301")
    else:
        changed = url.replace(f"X-Amz-Credential={API_KEY}", "X-Amz-Credential=demo-kez", 1)
    assert changed != url and len(changed) == len(url)
    status, body, _ = request(changed)
    assert status == 403, body
    code = _error(body).findtext("Code")
    expected = "InvalidAccessKeyId" if part == "access-key" else "SignatureDoesNotMatch"
    assert code == expected, body
    assert url.rsplit("X-Amz-Signature=", 1)[1].encode() not in body


def test_5_mockcdn_presign_equals_boto3_for_the_same_instant(server, key, fat):
    media_url = f"{server}/demo/{urllib.parse.quote(key)}"
    status, body, _ = request(
        f"{server}/v1/apps/demo/presign", "POST", json.dumps({"url": media_url}).encode(), {"fat": fat}
    )
    assert status == 200, body
    answer = json.loads(body)
    assert answer["expires_in"] == 300
    ours = answer["url"]
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(ours).query))
    instant = datetime.datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    assert answer["expires_at"] == int(instant.timestamp()) + 300
    with mock.patch.object(botocore.auth, "get_current_datetime", return_value=instant.replace(tzinfo=None)):
        theirs = _s3(server).generate_presigned_url(
            "get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300
        )
    assert ours == theirs
    assert request(ours)[1] == FILE_BYTES
    _advance(server, 300)
    try:
        status, body, _ = request(ours)
        assert status == 403 and _error(body).findtext("Message") == "Request has expired", body
    finally:
        _advance(server, -300)


@pytest.mark.parametrize(
    "name",
    ["a b+c=d.bin", "ünïcödé ~tilde.bin", "semi;colon,comma@at:colon$.bin", "brackets!'()*.bin", "pct%41.bin"],
)
def test_6_keys_that_need_encoding_pass_signature_checks(server, name):
    """Uploads sanitise names, so these keys do not exist: a 404 NoSuchKey shows the signature was
    accepted (credentials are checked before the lookup), where a canonicalisation slip would be 403."""
    url = _s3(server).generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": f"attachments/x/{name}"}, ExpiresIn=300
    )
    status, body, _ = request(url)
    assert status == 404, body
    assert _error(body).findtext("Code") == "NoSuchKey", body


def test_7_default_port_is_left_out_of_the_signed_host(server, key):
    """botocore leaves :80 out of the host it signs, as clients leave it out of Host."""
    port = int(urllib.parse.urlparse(server).port)
    url = _s3("http://127.0.0.1:80").generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300
    )
    parsed = urllib.parse.urlparse(url)
    target = parsed.path + "?" + parsed.query
    for host in ("127.0.0.1", "127.0.0.1:80"):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.putrequest("GET", target, skip_host=True)
        connection.putheader("Host", host)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read()
        connection.close()
        assert response.status == 200, (host, body)
        assert body == FILE_BYTES


def test_8_hostile_credential_fields_give_short_well_formed_xml(server, key):
    url = _s3(server).generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300
    )
    hostile = url.replace("%2Fus%2Fs3", "%2F%01%3C" + "A" * 3000 + "%2Fs3", 1)
    status, body, _ = request(hostile)
    assert status == 403, body
    root = _error(body)
    assert len(body) < 1000, len(body)
    assert "region" in root.findtext("Message"), body
