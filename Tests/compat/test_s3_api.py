"""The S3 API as backends call it, with their clients' defaults: boto3, awscli and curl sign in the
`Authorization` header, list through paginators and ask for `encoding-type=url`. Only the endpoint and the
demo app's key and secret are set. Every refusal is S3's XML, with S3's code, and is journaled.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_api.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
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


def _listing_keys(client, base: str) -> list[str]:
    """Stores objects whose keys S3 encodes differently from a URL path: a space (`+`), a literal `+` (`%2B`), a
    `%`, Hangul, and `/` (left as it is)."""
    keys = [f"{base}/a b.txt", f"{base}/a+b.txt", f"{base}/100%.csv", f"{base}/한글/x.txt", f"{base}/t/foo/bar",
            f"{base}/t/foo/baz"]
    for key in keys:
        client.put_object(Bucket="demo", Key=key, Body=b"listed")
    return keys


def test_encoding_type_url_is_what_s3_encodes_and_botocore_decodes(server):
    """boto3 asks for `encoding-type=url` on every listing and decodes what S3 encodes (`decode_list_object`,
    `decode_list_object_v2`, with `unquote_plus`): the caller sees every key, prefix and marker as stored."""
    client, base = s3(server), f"encoded/{uuid.uuid4()}"
    keys = _listing_keys(client, base)
    in_order = sorted(keys, key=lambda key: key.encode())
    # ListObjects (v1): the `Prefix` is echoed as sent (botocore does not decode it), `t/foo/` is no `t%2Ffoo%2F`.
    v1 = client.list_objects(Bucket="demo", Prefix=f"{base}/t/foo/")
    assert v1["Prefix"] == f"{base}/t/foo/", v1["Prefix"]
    assert [item["Key"] for item in v1["Contents"]] == [f"{base}/t/foo/bar", f"{base}/t/foo/baz"]
    spaced = client.list_objects(Bucket="demo", Prefix=f"{base}/a b")
    assert spaced["Prefix"] == f"{base}/a b" and [item["Key"] for item in spaced["Contents"]] == [f"{base}/a b.txt"]
    rolled = client.list_objects(Bucket="demo", Prefix=f"{base}/", Delimiter="/", MaxKeys=3)
    assert rolled["Delimiter"] == "/" and rolled["IsTruncated"]
    assert [item["Key"] for item in rolled["Contents"]] == in_order[:3]
    assert rolled["NextMarker"] == in_order[2]
    rest = client.list_objects(Bucket="demo", Prefix=f"{base}/", Delimiter="/", Marker=rolled["NextMarker"])
    assert [common["Prefix"] for common in rest["CommonPrefixes"]] == [f"{base}/t/", f"{base}/한글/"]
    assert rest["Marker"] == in_order[2]
    # ListObjectsV2, paginated: every key back as stored, common prefixes too.
    pages = list(client.get_paginator("list_objects_v2").paginate(Bucket="demo", Prefix=f"{base}/",
                                                                    PaginationConfig={"PageSize": 2}))
    assert [item["Key"] for page in pages for item in page.get("Contents", [])] == in_order
    assert all(page["Prefix"] == f"{base}/" for page in pages)
    v2 = client.list_objects_v2(Bucket="demo", Prefix=f"{base}/", Delimiter="/", StartAfter=f"{base}/a b.txt")
    assert v2["StartAfter"] == f"{base}/a b.txt"
    assert [item["Key"] for item in v2["Contents"]] == [f"{base}/a+b.txt"]
    assert [common["Prefix"] for common in v2["CommonPrefixes"]] == [f"{base}/t/", f"{base}/한글/"]


def test_encoding_type_url_on_the_wire_is_s3s(server):
    """What S3 sends under `encoding-type=url`, as a client that asked for it itself reads it (botocore then
    decodes nothing): form encoding with `/` left as it is (a space is `+`, a `+` is `%2B`); ListObjects (v1)
    leaves its `Prefix` as sent, ListObjectsV2 encodes it."""
    client, base = s3(server), f"encoded/{uuid.uuid4()}"
    _listing_keys(client, base)
    v2 = client.list_objects_v2(Bucket="demo", Prefix=f"{base}/", EncodingType="url")
    assert [item["Key"] for item in v2["Contents"]] == [
        f"{base}/100%25.csv", f"{base}/a+b.txt", f"{base}/a%2Bb.txt", f"{base}/t/foo/bar", f"{base}/t/foo/baz",
        f"{base}/%ED%95%9C%EA%B8%80/x.txt"]
    spaced = client.list_objects_v2(Bucket="demo", Prefix=f"{base}/a b", Delimiter="|", EncodingType="url")
    assert (spaced["Prefix"], spaced["Delimiter"], spaced["EncodingType"]) == (f"{base}/a+b", "%7C", "url")
    v1 = client.list_objects(Bucket="demo", Prefix=f"{base}/a b", Marker=f"{base}/a ", EncodingType="url")
    assert (v1["Prefix"], v1["Marker"]) == (f"{base}/a b", f"{base}/a+")
    assert [item["Key"] for item in v1["Contents"]] == [f"{base}/a+b.txt"]
    rolled = client.list_objects(Bucket="demo", Prefix=f"{base}/", Delimiter="/", EncodingType="url")
    assert [common["Prefix"] for common in rolled["CommonPrefixes"]] == [f"{base}/t/", f"{base}/%ED%95%9C%EA%B8%80/"]


def test_max_keys_zero_lists_nothing_and_is_not_truncated(server):
    client = s3(server)
    v2 = client.list_objects_v2(Bucket="demo", MaxKeys=0)
    assert (v2["IsTruncated"], v2["KeyCount"], v2["MaxKeys"]) == (False, 0, 0)
    assert "Contents" not in v2 and "NextContinuationToken" not in v2
    v1 = client.list_objects(Bucket="demo", MaxKeys=0)
    assert (v1["IsTruncated"], v1["MaxKeys"]) == (False, 0) and "Contents" not in v1 and "NextMarker" not in v1
    # The bucket is not empty: one key more is a truncated page.
    assert client.list_objects_v2(Bucket="demo", MaxKeys=1)["IsTruncated"]


def test_owners_in_listings(server):
    """ListObjects (v1) names each object's owner, ListObjectsV2 with `fetch-owner=true` only: the app, whose id
    stands for S3's canonical id and display name (as in ListParts and ListMultipartUploads)."""
    client = s3(server)
    owner = {"ID": "demo", "DisplayName": "demo"}
    assert [item["Owner"] for item in client.list_objects(Bucket="demo", Prefix=SAMPLE)["Contents"]] == [owner]
    assert [item["Owner"] for item in client.list_objects_v2(Bucket="demo", Prefix=SAMPLE,
                                                              FetchOwner=True)["Contents"]] == [owner]
    assert ["Owner" in item for item in client.list_objects_v2(Bucket="demo", Prefix=SAMPLE)["Contents"]] == [False]
