"""Compatibility suite: S3 presigned URLs made by real AWS tooling (boto3 `generate_presigned_url` and
`aws s3 presign`, path-style, endpoint = MockCDN, credentials = the demo app's api_key/api_secret) are
served: SigV4 scoped to the app's S3 region (`us-east-1` unless `s3_region` says otherwise, so the tools'
defaults work with no region configured) and SigV2, which both tools still use by default for
`us-east-1`. The clock, a changed character, a wrong region and MockCDN's own presign endpoint are checked
against the same tools. Every test runs with no AWS configuration of the machine's: no `AWS_*` variables,
no config or credentials file.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import datetime
import http.client
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse
import xml.etree.ElementTree as ET
from unittest import mock

import boto3
import botocore.auth
import pytest
from botocore.config import Config

from conftest import launch
from support import API_KEY, API_SECRET, BINARY, REPO, jwt, request, upload

# The demo app's S3 region: nobody configures it, it is what AWS tooling signs for with no region.
S3_REGION = "us-east-1"
FILE_BYTES = b"MockCDN SigV4 compat \x00\x01\x02\xff payload\n"
SAMPLE = "fixtures/sample.jpg"
SAMPLE_BYTES = (REPO / "Fixtures" / "media" / "sample.jpg").read_bytes()


pytestmark = pytest.mark.usefixtures("no_aws_configuration")


def _s3(server: str, region: str | None = None, signature_version: str | None = "s3v4", path_style: bool = True):
    """A boto3 S3 client with only the endpoint and the demo app's keys, plus what is asked for: a region,
    a signature version (None: botocore's default), path-style addressing. A fresh session each time, so
    nothing read before the environment was cleaned is reused."""
    options = {}
    if signature_version:
        options["signature_version"] = signature_version
    if path_style:
        options["s3"] = {"addressing_style": "path"}
    return boto3.session.Session().client(
        "s3",
        endpoint_url=server,
        aws_access_key_id=API_KEY,
        aws_secret_access_key=API_SECRET,
        **({"region_name": region} if region else {}),
        **({"config": Config(**options)} if options else {}),
    )


def _aws(*arguments: str) -> str:
    """Runs awscli with the demo app's keys and nothing else configured; returns its output line."""
    aws = shutil.which("aws")
    assert aws, "awscli is required (make py-deps installs it)"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET)
    result = subprocess.run([aws, *arguments], capture_output=True, text=True, env=env, timeout=60, check=True)
    return result.stdout.strip()


def _query(url: str) -> dict:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(url).query))


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
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in url and "%2Fus-east-1%2Fs3%2Faws4_request" in url, url
    status, body, _ = request(url)
    assert status == 200, body
    assert body == FILE_BYTES


@pytest.mark.parametrize("region", [[], ["--region", S3_REGION]], ids=["no-region", "us-east-1"])
def test_2_aws_s3_presign_is_served(server, key, region):
    url = _aws("s3", "presign", f"s3://demo/{key}", "--endpoint-url", server, *region, "--expires-in", "300")
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
    hostile = url.replace("%2Fus-east-1%2Fs3", "%2F%01%3C" + "A" * 3000 + "%2Fs3", 1)
    assert hostile != url
    status, body, _ = request(hostile)
    assert status == 400, body
    root = _error(body)
    assert len(body) < 1000, len(body)
    assert root.findtext("Code") == "AuthorizationQueryParametersError", body
    assert "region" in root.findtext("Message"), body
    assert root.findtext("Region") == S3_REGION, body


# What boto3 does by default, checked rather than assumed: with only `endpoint_url` and keys, the client's
# region is us-east-1 and a presigned GET is SigV2, path-style (the endpoint is an IP address, so no
# `demo.127.0.0.1` host that would not resolve). The other cases ask for path-style explicitly, as a
# client pointed at a host name must.
BOTO3_CLIENTS = {
    "defaults": dict(signature_version=None, path_style=False),
    "path-style": dict(signature_version=None),
    "path-style, us-east-1": dict(region=S3_REGION, signature_version=None),
    "s3v4": dict(),
    "s3v4, us-east-1": dict(region=S3_REGION),
    "s3 (SigV2)": dict(signature_version="s3"),
    "s3 (SigV2), us-east-1": dict(region=S3_REGION, signature_version="s3"),
}


def _expect_expired(url: str) -> ET.Element:
    status, body, _ = request(url)
    assert status == 403, body
    root = _error(body)
    assert root.findtext("Code") == "AccessDenied", body
    assert root.findtext("Message") == "Request has expired", body
    assert b"CloudFront" not in body and b"Key-Pair-Id" not in body, body
    return root


@pytest.mark.parametrize("client", list(BOTO3_CLIENTS), ids=list(BOTO3_CLIENTS))
def test_9_boto3_with_its_defaults_is_served_and_expires_by_the_clock(server, client):
    s3 = _s3(server, **BOTO3_CLIENTS[client])
    assert s3.meta.region_name == S3_REGION
    url = s3.generate_presigned_url("get_object", Params={"Bucket": "demo", "Key": SAMPLE}, ExpiresIn=120)
    assert url.startswith(f"{server}/demo/{SAMPLE}?"), url
    query = _query(url)
    if "s3v4" in client:
        assert query["X-Amz-Credential"].split("/")[2] == S3_REGION, url
    else:
        assert set(query) == {"AWSAccessKeyId", "Signature", "Expires"}, url
    status, body, _ = request(url)
    assert status == 200, body
    assert body == SAMPLE_BYTES
    _advance(server, 125)
    try:
        root = _expect_expired(url)
        server_time = root.findtext("ServerTime")
        if "s3v4" in client:
            assert root.findtext("X-Amz-Expires") == "120", root
        else:
            expires = datetime.datetime.fromtimestamp(int(query["Expires"]), datetime.timezone.utc)
            assert root.findtext("Expires") == expires.strftime("%Y-%m-%dT%H:%M:%SZ"), root
            assert root.findtext("X-Amz-Expires") is None
            assert server_time > root.findtext("Expires"), root
    finally:
        _advance(server, -125)
    assert request(url)[0] == 200


@pytest.mark.parametrize("region", [[], ["--region", S3_REGION]], ids=["no-region", "us-east-1"])
def test_10_aws_s3_presign_with_its_defaults_is_sigv2_and_expires_by_the_clock(server, region):
    url = _aws("s3", "presign", f"s3://demo/{SAMPLE}", "--endpoint-url", server, *region)
    # awscli v1 in us-east-1 presigns with SigV2, for an hour, unless told otherwise.
    query = _query(url)
    assert set(query) == {"AWSAccessKeyId", "Signature", "Expires"}, url
    assert query["AWSAccessKeyId"] == API_KEY
    status, body, _ = request(url)
    assert status == 200, body
    assert body == SAMPLE_BYTES
    _advance(server, 3605)
    try:
        _expect_expired(url)
    finally:
        _advance(server, -3605)
    assert request(url)[0] == 200


@pytest.mark.parametrize("part", ["signature", "path", "expires", "access-key"])
def test_11_sigv2_one_changed_character_is_refused(server, key, part):
    url = _s3(server, signature_version="s3").generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300
    )
    query = _query(url)
    if part == "signature":
        signature = urllib.parse.quote(query["Signature"], safe="")
        changed_signature = ("B" if signature[0] != "B" else "C") + signature[1:]
        changed = url.replace("Signature=" + signature, "Signature=" + changed_signature, 1)
    elif part == "path":
        changed = url.replace("/attachments/", "/attachmentz/", 1)
    elif part == "expires":
        changed = url.replace("Expires=" + query["Expires"], "Expires=" + str(int(query["Expires"]) - 1), 1)
    else:
        changed = url.replace(f"AWSAccessKeyId={API_KEY}", "AWSAccessKeyId=demo-kez", 1)
    assert changed != url and len(changed) == len(url)
    status, body, _ = request(changed)
    assert status == 403, body
    root = _error(body)
    if part == "access-key":
        assert root.findtext("Code") == "InvalidAccessKeyId", body
    else:
        assert root.findtext("Code") == "SignatureDoesNotMatch", body
        assert root.findtext("AWSAccessKeyId") == API_KEY, body
        path = urllib.parse.urlparse(changed).path
        expires = _query(changed)["Expires"]
        assert root.findtext("StringToSign") == f"GET\n\n\n{expires}\n{path}", body
    assert query["Signature"].encode() not in body and b"CloudFront" not in body, body


@pytest.mark.parametrize("tool", ["boto3", "awscli"])
def test_12_sigv4_for_another_region_is_400_naming_the_app_region(server, tool):
    if tool == "boto3":
        url = _s3(server, region="eu-west-1").generate_presigned_url(
            "get_object", Params={"Bucket": "demo", "Key": SAMPLE}, ExpiresIn=300
        )
        region = "eu-west-1"
    else:
        # eu-central-1 takes SigV4 only, so awscli signs SigV4 there by default.
        url = _aws("s3", "presign", f"s3://demo/{SAMPLE}", "--endpoint-url", server, "--region", "eu-central-1")
        region = "eu-central-1"
    assert f"%2F{region}%2Fs3%2Faws4_request" in url, url
    status, body, _ = request(url)
    assert status == 400, body
    root = _error(body)
    assert root.findtext("Code") == "AuthorizationQueryParametersError", body
    assert root.findtext("Message") == (
        f"Error parsing the X-Amz-Credential parameter; the region '{region}' is wrong; expecting '{S3_REGION}'"
    ), body
    assert root.findtext("Region") == S3_REGION, body
    # HEAD gets the same status, without a body.
    assert request(url, "HEAD")[0] == 400


def test_13_a_sigv2_url_is_never_judged_as_a_cloudfront_link(server):
    url = _s3(server, signature_version="s3").generate_presigned_url(
        "get_object", Params={"Bucket": "demo", "Key": SAMPLE}, ExpiresIn=300
    )
    # A Key-Pair-Id beside it changes nothing: AWSAccessKeyId makes Signature and Expires SigV2's.
    status, body, _ = request(url + "&Key-Pair-Id=K2JCJMDEHXQW5F")
    assert status == 200 and body == SAMPLE_BYTES, body
    signature = urllib.parse.quote(_query(url)["Signature"], safe="")
    for broken, code, message in [
        (url.replace("&Signature=" + signature, ""), "AccessDenied", "Query-string authentication requires"),
        (url.replace("Signature=" + signature, "Signature=AAAA"), "SignatureDoesNotMatch", "The request signature"),
        (url.replace("Signature=" + signature, "Signature=AAAA") + "&Key-Pair-Id=K2JCJMDEHXQW5F",
         "SignatureDoesNotMatch", "The request signature"),
    ]:
        assert broken != url
        status, body, _ = request(broken)
        assert status == 403, body
        root = _error(body)
        assert root.findtext("Code") == code and root.findtext("Message").startswith(message), body
        assert b"CloudFront" not in body and b"Key-Pair-Id" not in body, body


def test_14_sigv2_signs_sub_resources_and_moved_headers(server):
    s3 = _s3(server, signature_version="s3")
    params = {
        "Bucket": "demo",
        "Key": SAMPLE,
        "ResponseContentType": "text/plain",
        "ResponseContentDisposition": 'attachment; filename="a b.txt"',
        "RequestPayer": "requester",
    }
    url = s3.generate_presigned_url("get_object", Params=params, ExpiresIn=300)
    assert "response-content-disposition=" in url and "x-amz-request-payer=requester" in url, url
    status, body, _ = request(url)
    assert status == 200 and body == SAMPLE_BYTES, body
    # Image transforms appended after signing are outside the signed resource.
    assert request(url + "&w=8&ro=0")[0] == 200
    for signed in ["&x-amz-request-payer=requester", "response-content-type=text%2Fplain&"]:
        assert signed in url
        status, body, _ = request(url.replace(signed, "", 1))
        assert status == 403 and _error(body).findtext("Code") == "SignatureDoesNotMatch", body


def test_15_the_journal_tells_sigv2_from_sigv4(server):
    for version, source in [("s3", "presigned-v2"), ("s3v4", "presigned")]:
        url = _s3(server, signature_version=version).generate_presigned_url(
            "get_object", Params={"Bucket": "demo", "Key": "fixtures/sample.png"}, ExpiresIn=300
        )
        assert request(url)[0] == 200
        status, body, _ = request(f"{server}/_mockcdn/requests?path=/demo/fixtures/sample.png")
        assert status == 200, body
        entry = json.loads(body)["requests"][-1]
        assert entry["credential"] == source, entry


def test_16_s3_region_is_an_app_setting_of_its_own():
    """`s3_region` in the config file scopes SigV4 (verification, `mockcdn sign presign`); the CometChat
    `region` beside it is left alone, and SigV2 has no region at all."""
    folder = tempfile.mkdtemp()
    config = os.path.join(folder, "apps.yaml")
    with open(config, "w") as file:
        file.write(
            "apps:\n"
            "  - app_id: demo\n"
            f"    api_key: {API_KEY}\n"
            f"    api_secret: {API_SECRET}\n"
            "    region: eu\n"
            "    s3_region: eu-west-1\n"
        )
    try:
        with launch("--config", config) as running:
            base = running.url
            get = dict(Params={"Bucket": "demo", "Key": SAMPLE}, ExpiresIn=300)
            assert request(_s3(base, region="eu-west-1").generate_presigned_url("get_object", **get))[0] == 200
            assert request(_s3(base, signature_version="s3").generate_presigned_url("get_object", **get))[0] == 200
            status, body, _ = request(_s3(base).generate_presigned_url("get_object", **get))
            assert status == 400, body
            assert _error(body).findtext("Region") == "eu-west-1", body
            ours = subprocess.run(
                [str(BINARY), "sign", "presign", f"{base}/demo/{SAMPLE}", "--config", config],
                capture_output=True, text=True, check=True,
            ).stdout.strip()
            assert "%2Feu-west-1%2Fs3%2Faws4_request" in ours, ours
            assert request(ours)[0] == 200
        for bad in ["EU-West-1", "", "eu_west_1", "a" * 33]:
            with open(config, "w") as file:
                file.write(f"apps:\n  - app_id: acme\n    api_key: k\n    api_secret: s\n    s3_region: '{bad}'\n")
            result = subprocess.run(
                [str(BINARY), "serve", "--port", "0", "--config", config], capture_output=True, text=True, timeout=30
            )
            assert result.returncode != 0, bad
            assert "s3_region must be 1-32 of a-z 0-9 -" in result.stderr, result.stderr
    finally:
        shutil.rmtree(folder)
