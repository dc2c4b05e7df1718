"""The S3 API as backends call it, with their clients' defaults: boto3, awscli and curl sign in the
`Authorization` header, list through paginators and ask for `encoding-type=url`. Only the endpoint and the
demo app's key and secret are set. Every refusal is S3's XML, with S3's code, and is journaled.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_api.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from botocore.exceptions import ClientError

from conftest import launch
from s3support import advance, journal, refused, reset, s3
from support import API_KEY, API_SECRET, REPO, request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")

SAMPLE = "fixtures/sample.pdf"
SAMPLE_BYTES = (REPO / "Fixtures" / "media" / "sample.pdf").read_bytes()
KEY_COUNT = 1200


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """A server whose fixtures are 1,200 small files (and the repository's sample.pdf)."""
    folder = tmp_path_factory.mktemp("many")
    for index in range(KEY_COUNT - 1):
        (folder / f"k{index:04d}.txt").write_bytes(b"%d" % index)
    shutil.copy(REPO / "Fixtures" / "media" / "sample.pdf", folder / "sample.pdf")
    with launch("--fixtures", str(folder)) as server:
        yield server.url


def test_get_and_head_object_header_signed(server):
    client = s3(server)
    head = client.head_object(Bucket="demo", Key=SAMPLE)
    assert head["ContentLength"] == len(SAMPLE_BYTES)
    whole = client.get_object(Bucket="demo", Key=SAMPLE)
    assert whole["Body"].read() == SAMPLE_BYTES
    part = client.get_object(Bucket="demo", Key=SAMPLE, Range="bytes=0-9")
    assert part["Body"].read() == SAMPLE_BYTES[:10] and part["ContentRange"].startswith("bytes 0-9/")
    with pytest.raises(ClientError) as unchanged:
        client.get_object(Bucket="demo", Key=SAMPLE, IfNoneMatch=head["ETag"])
    assert unchanged.value.response["ResponseMetadata"]["HTTPStatusCode"] == 304
    reads = [entry for entry in journal(server) if entry["path"] == f"/demo/{SAMPLE}"]
    assert [entry["credential"] for entry in reads[-4:]] == ["s3-header-sigv4"] * 4, reads


def test_head_bucket_and_location(server):
    client = s3(server)
    head = client.head_bucket(Bucket="demo")
    assert head["ResponseMetadata"]["HTTPHeaders"]["x-amz-bucket-region"] == "us-east-1"
    assert client.get_bucket_location(Bucket="demo")["LocationConstraint"] is None


def test_list_objects_v2_paginator_over_1200_keys(many):
    client = s3(many)
    pages = list(client.get_paginator("list_objects_v2").paginate(Bucket="demo"))
    assert [page["KeyCount"] for page in pages] == [1000, KEY_COUNT - 1000]
    keys = [item["Key"] for page in pages for item in page["Contents"]]
    expected = sorted([f"fixtures/k{index:04d}.txt" for index in range(KEY_COUNT - 1)] + [SAMPLE])
    assert keys == expected
    assert pages[0]["Contents"][0]["Size"] == 1 and pages[0]["Contents"][0]["ETag"].startswith('"')
    # A prefix, and a delimiter that rolls the keys up.
    assert [item["Key"] for item in client.list_objects_v2(Bucket="demo", Prefix="fixtures/k119")["Contents"]] == [
        f"fixtures/k119{digit}.txt" for digit in range(9)
    ]
    rolled = client.list_objects_v2(Bucket="demo", Delimiter="/")
    assert rolled["CommonPrefixes"] == [{"Prefix": "fixtures/"}] and "Contents" not in rolled
    after = client.list_objects_v2(Bucket="demo", StartAfter="fixtures/k1197.txt")
    assert [item["Key"] for item in after["Contents"]] == ["fixtures/k1198.txt", SAMPLE]
    # ListObjects (v1), which awscli still uses for some calls, pages by marker.
    v1 = list(client.get_paginator("list_objects").paginate(Bucket="demo", PaginationConfig={"PageSize": 500}))
    assert [item["Key"] for page in v1 for item in page["Contents"]] == expected


def test_awscli_ls_and_cp(server, tmp_path):
    aws = shutil.which("aws")
    assert aws, "awscli is required (make py-deps installs it)"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET)
    listing = subprocess.run([aws, "--endpoint-url", server, "s3", "ls", "s3://demo/fixtures/"], env=env,
                             capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0, listing.stderr
    assert any(line.endswith(" sample.pdf") for line in listing.stdout.splitlines()), listing.stdout
    target = tmp_path / "sample.pdf"
    copied = subprocess.run([aws, "--endpoint-url", server, "s3", "cp", f"s3://demo/{SAMPLE}", str(target)],
                            env=env, capture_output=True, text=True, timeout=60)
    assert copied.returncode == 0, copied.stderr
    assert target.read_bytes() == SAMPLE_BYTES


def test_curl_aws_sigv4(server, tmp_path):
    # curl's own defaults first. S3 requires x-amz-content-sha256 on every header-signed request; curl 8 sends
    # it for the s3 service, curl 7.88 (Debian 12's) does not, and then S3's answer is 400 InvalidRequest.
    plain = subprocess.run(
        ["curl", "-sS", "-v", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{API_KEY}:{API_SECRET}",
         "-w", "\n%{http_code}", f"{server}/demo/{SAMPLE}", "-o", str(tmp_path / "plain")],
        capture_output=True, text=True, timeout=60,
    )
    assert plain.returncode == 0, plain.stderr
    status = plain.stdout.strip().splitlines()[-1]
    if "x-amz-content-sha256:" in plain.stderr.lower():
        assert status == "200" and (tmp_path / "plain").read_bytes() == SAMPLE_BYTES
    else:
        assert status == "400", plain.stderr
        assert b"<Code>InvalidRequest</Code>" in (tmp_path / "plain").read_bytes()
    # With the header S3 asks for, as curl's documentation shows for S3.
    target = tmp_path / "sample.pdf"
    result = subprocess.run(
        ["curl", "-fsS", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{API_KEY}:{API_SECRET}",
         "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-o", str(target), f"{server}/demo/{SAMPLE}"],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == SAMPLE_BYTES


def test_refusals_are_s3_xml_with_s3_codes(server):
    wrong = s3(server, secret="not-the-secret")
    assert refused(lambda: wrong.get_object(Bucket="demo", Key=SAMPLE)) == (403, "SignatureDoesNotMatch")
    assert refused(lambda: wrong.list_objects_v2(Bucket="demo")) == (403, "SignatureDoesNotMatch")
    client = s3(server)
    assert refused(lambda: client.list_objects_v2(Bucket="nosuchapp")) == (404, "NoSuchBucket")
    assert refused(lambda: client.get_object(Bucket="demo", Key="fixtures/none.txt")) == (404, "NoSuchKey")
    assert refused(lambda: client.get_bucket_versioning(Bucket="demo")) == (501, "NotImplemented")
    # The raw answer of a refused listing is XML, never JSON, and names the rule.
    status, body, headers = request(f"{server}/demo?list-type=2")
    assert status == 403 and headers["content-type"] == "application/xml", body
    assert ET.fromstring(body).findtext("Code") == "AccessDenied", body
    denials = [entry for entry in journal(server) if entry["status"] == 403]
    assert any((entry["reason"] or "").startswith("SignatureDoesNotMatch") for entry in denials), denials


def test_a_skewed_clock_is_request_time_too_skewed(server):
    client = s3(server)
    client.head_object(Bucket="demo", Key=SAMPLE)
    advance(server, 901)
    try:
        assert refused(lambda: client.get_object(Bucket="demo", Key=SAMPLE)) == (403, "RequestTimeTooSkewed")
        assert refused(lambda: client.list_objects_v2(Bucket="demo")) == (403, "RequestTimeTooSkewed")
    finally:
        reset(server)
    client.head_object(Bucket="demo", Key=SAMPLE)


def _presigned_put(client, key: str, body: bytes) -> None:
    url = client.generate_presigned_url("put_object", Params={"Bucket": "demo", "Key": key, "ContentType": "text/plain"},
                                        ExpiresIn=300)
    status, answer, _ = request(url, "PUT", body, {"Content-Type": "text/plain"})
    assert status == 200, answer


def test_delete_object_header_signed_and_with_awscli(server):
    client = s3(server)
    _presigned_put(client, "notes/a.txt", b"a")
    _presigned_put(client, "notes/b.txt", b"b")
    wrong = s3(server, secret="not-the-secret")
    assert refused(lambda: wrong.delete_object(Bucket="demo", Key="notes/a.txt")) == (403, "SignatureDoesNotMatch")
    assert client.get_object(Bucket="demo", Key="notes/a.txt")["Body"].read() == b"a", "a refused delete kept it"
    deleted = client.delete_object(Bucket="demo", Key="notes/a.txt")
    assert deleted["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert refused(lambda: client.head_object(Bucket="demo", Key="notes/a.txt"))[0] == 404
    # Nothing there: still 204, as on S3.
    assert client.delete_object(Bucket="demo", Key="notes/a.txt")["ResponseMetadata"]["HTTPStatusCode"] == 204
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET)
    removed = subprocess.run(["aws", "--endpoint-url", server, "s3", "rm", "s3://demo/notes/b.txt"], env=env,
                             capture_output=True, text=True, timeout=60)
    assert removed.returncode == 0, removed.stderr
    assert "Contents" not in client.list_objects_v2(Bucket="demo", Prefix="notes/")
    deletes = [entry for entry in journal(server) if entry["method"] == "DELETE"]
    assert [entry["credential"] for entry in deletes][-4:] == ["none", "s3-header-sigv4", "s3-header-sigv4",
                                                               "s3-header-sigv4"], deletes
    # Without a credential: S3's XML, and the object stays.
    _presigned_put(client, "notes/c.txt", b"c")
    status, body, headers = request(f"{server}/demo/notes/c.txt", "DELETE")
    assert status == 403 and headers["content-type"] == "application/xml", body
    assert client.get_object(Bucket="demo", Key="notes/c.txt")["Body"].read() == b"c"
