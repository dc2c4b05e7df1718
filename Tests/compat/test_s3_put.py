"""PutObject as backends call it, with boto3's defaults (only the endpoint and the demo app's keys): the body
signed by its SHA-256 over plain HTTP, stored metadata and headers given back, conditional writes, and the
`response-*` overrides of a read. Every refusal is S3's XML and stores nothing.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_put.py``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import uuid
import xml.etree.ElementTree as ET

import pytest
from botocore.config import Config

from s3support import HeaderSigner, advance, crc32, journal, refused, reset, s3
from support import API_KEY, API_SECRET, request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")


def fresh_key(name: str = "note.txt") -> str:
    return f"put/{uuid.uuid4()}/{name}"


def test_put_object_stores_the_body_metadata_and_headers(server):
    client, key = s3(server), fresh_key()
    answer = client.put_object(Bucket="demo", Key=key, Body=b"hello world", ContentType="text/plain",
                               Metadata={"origin": "backend", "Job-Id": "42"}, CacheControl="no-cache",
                               ContentDisposition='attachment; filename="n.txt"', ContentLanguage="en")
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 200 and answer["ETag"].startswith('"')
    head = client.head_object(Bucket="demo", Key=key)
    assert head["ContentLength"] == 11 and head["ContentType"] == "text/plain"
    assert head["Metadata"] == {"origin": "backend", "job-id": "42"}
    assert (head["CacheControl"], head["ContentDisposition"], head["ContentLanguage"]) == (
        "no-cache", 'attachment; filename="n.txt"', "en")
    assert head["ETag"] == answer["ETag"]
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"hello world"
    puts = [entry for entry in journal(server) if entry["method"] == "PUT" and entry["path"] == f"/demo/{key}"]
    assert [(entry["status"], entry["credential"]) for entry in puts] == [(200, "s3-header-sigv4")], puts


def test_a_presigned_put_keeps_the_md5_etag(server):
    """A body whose signature promised no payload hash (boto3's presigned URL, a SigV2 query by default here) is
    stored without a SHA-256: the ETag is still the MD5 on the PUT, HEAD and GET, and the bytes read back whole.
    The URL signs the content type (SigV2 does), so the PUT sends the one it was made for."""
    client, key = s3(server), fresh_key("presigned.bin")
    body = b"sent by curl or requests through a presigned URL\n" * 100
    url = client.generate_presigned_url(
        "put_object", Params={"Bucket": "demo", "Key": key, "ContentType": "application/octet-stream"})
    status, answer, headers = request(url, "PUT", body, {"Content-Type": "application/octet-stream"})
    assert status == 200 and headers["ETag"] == '"%s"' % hashlib.md5(body).hexdigest(), answer
    assert client.head_object(Bucket="demo", Key=key)["ETag"] == headers["ETag"]
    got = client.get_object(Bucket="demo", Key=key)
    assert got["Body"].read() == body and got["ETag"] == headers["ETag"]


def test_an_empty_object_is_an_object(server):
    client, key = s3(server), fresh_key("empty")
    client.put_object(Bucket="demo", Key=key, Body=b"")
    assert client.head_object(Bucket="demo", Key=key)["ContentLength"] == 0
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b""


def test_a_replaced_object_is_replaced_whole(server):
    client, key = s3(server), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"first")
    client.put_object(Bucket="demo", Key=key, Body=b"second version")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"second version"


def _tamper_body(request, **_):
    """Changes the body after botocore signed its SHA-256: what a proxy that rewrites bodies does."""
    if request.method == "PUT":
        request.body = b"tampered!!!"
        request.headers["Content-Length"] = str(len(request.body))


def test_a_body_that_is_not_the_signed_one_is_refused_and_nothing_is_stored(server):
    client, key = s3(server), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"kept as it was")
    tampering = s3(server)
    tampering.meta.events.register("before-send.s3.PutObject", _tamper_body)
    assert refused(lambda: tampering.put_object(Bucket="demo", Key=key, Body=b"signed body")) == (
        400, "XAmzContentSHA256Mismatch")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"kept as it was"
    denial = [entry for entry in journal(server) if entry["method"] == "PUT"][-1]
    assert denial["credential"] == "s3-header-sigv4" and denial["reason"].startswith("XAmzContentSHA256Mismatch")


def test_wrong_secret_and_skewed_clock_store_nothing(server):
    key = fresh_key()
    wrong = s3(server, secret="not-the-secret")
    assert refused(lambda: wrong.put_object(Bucket="demo", Key=key, Body=b"x")) == (403, "SignatureDoesNotMatch")
    client = s3(server)
    advance(server, 901)
    try:
        assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=b"x")) == (403, "RequestTimeTooSkewed")
    finally:
        reset(server)
    assert refused(lambda: client.head_object(Bucket="demo", Key=key))[0] == 404


def test_over_the_size_limit_is_entity_too_large(server):
    client, key = s3(server), fresh_key("big.bin")
    # The demo app's files may have 100 MiB; one byte more is refused by its Content-Length, before the body
    # (test_early_answers checks the connection after it).
    assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=b"\0" * (100 * 1024 * 1024 + 1))) == (
        400, "EntityTooLarge")
    assert refused(lambda: client.head_object(Bucket="demo", Key=key))[0] == 404


def test_a_type_the_policy_refuses_is_unsupported_media_type(server):
    # Keys under `images/` take images only, as the upload routes' image folder does.
    client, key = s3(server), f"images/{uuid.uuid4()}/photo.png"
    assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=b"plain text, not a PNG")) == (
        415, "UnsupportedMediaType")
    assert refused(lambda: client.head_object(Bucket="demo", Key=key))[0] == 404


def test_conditional_writes(server):
    client, key = s3(server), fresh_key()
    created = client.put_object(Bucket="demo", Key=key, Body=b"one", IfNoneMatch="*")
    assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=b"two", IfNoneMatch="*")) == (
        412, "PreconditionFailed")
    assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=b"two", IfMatch='"0000"')) == (
        412, "PreconditionFailed")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"one"
    client.put_object(Bucket="demo", Key=key, Body=b"three", IfMatch=created["ETag"])
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"three"
    assert refused(lambda: client.put_object(Bucket="demo", Key=fresh_key(), Body=b"x", IfMatch=created["ETag"])) == (
        404, "NoSuchKey")


def test_conditional_reads(server):
    client, key = s3(server), fresh_key()
    etag = client.put_object(Bucket="demo", Key=key, Body=b"abc")["ETag"]
    assert client.get_object(Bucket="demo", Key=key, IfMatch=etag)["Body"].read() == b"abc"
    assert refused(lambda: client.get_object(Bucket="demo", Key=key, IfMatch='"other"')) == (412, "PreconditionFailed")
    assert refused(lambda: client.get_object(Bucket="demo", Key=key, IfUnmodifiedSince="2000-01-01T00:00:00Z")) == (
        412, "PreconditionFailed")


def test_response_overrides_apply_to_signed_reads(server):
    client, key = s3(server), fresh_key("report.txt")
    client.put_object(Bucket="demo", Key=key, Body=b"report", ContentType="text/plain")
    url = client.generate_presigned_url("get_object", Params={
        "Bucket": "demo", "Key": key, "ResponseContentDisposition": 'attachment; filename="r.txt"',
        "ResponseCacheControl": "no-store", "ResponseContentLanguage": "fr"}, ExpiresIn=300)
    status, body, headers = request(url)
    assert status == 200 and body == b"report"
    assert headers["Content-Disposition"] == 'attachment; filename="r.txt"'
    assert (headers["Cache-Control"], headers["Content-Language"]) == ("no-store", "fr")
    header_signed = client.get_object(Bucket="demo", Key=key, ResponseContentType="application/x-report")
    assert header_signed["ContentType"] == "application/x-report"


def test_an_override_to_html_stays_sandboxed(server):
    client, key = s3(server), fresh_key("page.txt")
    client.put_object(Bucket="demo", Key=key, Body=b"<script>alert(1)</script>", ContentType="text/plain")
    url = client.generate_presigned_url("get_object", Params={
        "Bucket": "demo", "Key": key, "ResponseContentType": "text/html",
        "ResponseContentDisposition": "inline"}, ExpiresIn=300)
    status, _, headers = request(url)
    assert status == 200 and headers["Content-Type"] == "text/html"
    assert headers["Content-Security-Policy"] == "sandbox" and headers["Content-Disposition"] == "attachment"


def test_delete_objects_batch_quiet_and_per_key_errors(server):
    client, folder = s3(server), f"batch/{uuid.uuid4()}"
    for name in ("a", "b", "c"):
        client.put_object(Bucket="demo", Key=f"{folder}/{name}", Body=name.encode())
    # A key past S3's 1,024 bytes is that key's error; a dot segment is an ordinary key, as on S3.
    long = f"{folder}/" + "k" * 1024
    answer = client.delete_objects(Bucket="demo", Delete={"Objects": [
        {"Key": f"{folder}/a"}, {"Key": f"{folder}/b"}, {"Key": long}, {"Key": f"{folder}/../x"}]})
    assert [item["Key"] for item in answer["Deleted"]] == [f"{folder}/a", f"{folder}/b", f"{folder}/../x"]
    assert [(item["Key"], item["Code"]) for item in answer["Errors"]] == [(long, "KeyTooLongError")]
    quiet = client.delete_objects(Bucket="demo", Delete={"Objects": [{"Key": f"{folder}/c"}], "Quiet": True})
    assert "Deleted" not in quiet and "Errors" not in quiet
    assert "Contents" not in client.list_objects_v2(Bucket="demo", Prefix=folder + "/")
    wrong = s3(server, secret="not-the-secret")
    client.put_object(Bucket="demo", Key=f"{folder}/kept", Body=b"k")
    assert refused(lambda: wrong.delete_objects(Bucket="demo", Delete={"Objects": [{"Key": f"{folder}/kept"}]})) == (
        403, "SignatureDoesNotMatch")
    assert client.get_object(Bucket="demo", Key=f"{folder}/kept")["Body"].read() == b"k"


def test_a_malformed_batch_is_malformed_xml_and_deletes_nothing(server):
    client, key = s3(server), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"k")
    body = b"<Delete><Object><Nothing/></Object></Delete>"
    status, answer, _ = HeaderSigner().send("POST", f"{server}/demo?delete=", body,
                                            {"x-amz-checksum-crc32": crc32(body)})
    assert (status, ET.fromstring(answer).findtext("Code")) == (400, "MalformedXML"), answer
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"k"


def test_copy_object_keeps_or_replaces_metadata(server):
    client, source = s3(server), fresh_key("source.txt")
    etag = client.put_object(Bucket="demo", Key=source, Body=b"s" * 3_000_000, ContentType="text/plain",
                             Metadata={"origin": "upload"})["ETag"]
    copied = client.copy_object(Bucket="demo", Key=fresh_key("copy.txt"), CopySource={"Bucket": "demo", "Key": source})
    assert copied["CopyObjectResult"]["ETag"] == etag
    target = fresh_key("replaced.txt")
    client.copy_object(Bucket="demo", Key=target, CopySource=f"demo/{source}", MetadataDirective="REPLACE",
                       Metadata={"origin": "copy"}, ContentType="application/x-note")
    head = client.head_object(Bucket="demo", Key=target)
    assert (head["Metadata"], head["ContentType"], head["ContentLength"]) == (
        {"origin": "copy"}, "application/x-note", 3_000_000)
    assert client.get_object(Bucket="demo", Key=target)["Body"].read() == b"s" * 3_000_000
    assert refused(lambda: client.copy_object(Bucket="demo", Key=fresh_key(), CopySource="demo/none/such")) == (
        404, "NoSuchKey")
    assert refused(lambda: client.copy_object(Bucket="demo", Key=fresh_key(), CopySource="uploads/a/b")) == (
        403, "AccessDenied")
    assert refused(lambda: client.copy_object(Bucket="demo", Key=source, CopySource=f"demo/{source}")) == (
        400, "InvalidRequest")


def test_sigv2_in_the_authorization_header(server):
    """boto3 with `signature_version="s3"` signs every call with SigV2 in the header (`AWS key:signature`)."""
    client, key = s3(server, config=Config(signature_version="s3")), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"v2", ContentType="text/plain")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"v2"
    assert client.head_object(Bucket="demo", Key=key)["ContentLength"] == 2
    assert key in [item["Key"] for item in client.list_objects_v2(Bucket="demo", Prefix="put/")["Contents"]]
    calls = [entry for entry in journal(server) if entry["path"] == f"/demo/{key}"]
    assert [(entry["method"], entry["credential"]) for entry in calls] == [
        ("PUT", "s3-header-sigv2"), ("GET", "s3-header-sigv2"), ("HEAD", "s3-header-sigv2")]
    wrong = s3(server, secret="not-the-secret", config=Config(signature_version="s3"))
    assert refused(lambda: wrong.delete_object(Bucket="demo", Key=key)) == (403, "SignatureDoesNotMatch")
    assert refused(lambda: wrong.put_object(Bucket="demo", Key=fresh_key(), Body=b"x")) == (403, "SignatureDoesNotMatch")
    advance(server, 901)
    try:
        assert refused(lambda: client.get_object(Bucket="demo", Key=key)) == (403, "RequestTimeTooSkewed")
    finally:
        reset(server)
    assert client.delete_object(Bucket="demo", Key=key)["ResponseMetadata"]["HTTPStatusCode"] == 204


def test_sigv2_dates_with_a_numeric_zone_as_aws_examples_write_them(server):
    """AWS's SigV2 examples date requests `Tue, 27 Mar 2007 19:36:42 +0000`, RFC 1123's numeric zone, which S3
    takes in `Date`: signed by hand here, since botocore always writes `GMT`. The zone is converted, so the
    wall-clock time of UTC labelled `-0700` is seven hours off."""
    key = fresh_key()
    s3(server).put_object(Bucket="demo", Key=key, Body=b"zoned")

    def get(date: str) -> tuple[int, bytes]:
        to_sign = f"GET\n\n\n{date}\n/demo/{key}"
        signature = base64.b64encode(hmac.new(API_SECRET.encode(), to_sign.encode(), hashlib.sha1).digest()).decode()
        status, body, _ = request(f"{server}/demo/{key}", headers={"Date": date,
                                                                   "Authorization": f"AWS {API_KEY}:{signature}"})
        return status, body

    now = time.time()
    for zone, offset in (("+0000", 0), ("-0700", -7 * 3600), ("+0530", 5 * 3600 + 1800)):
        assert get(time.strftime(f"%a, %d %b %Y %H:%M:%S {zone}", time.gmtime(now + offset))) == (200, b"zoned"), zone
    status, body = get(time.strftime("%a, %d %b %Y %H:%M:%S -0700", time.gmtime(now)))
    assert status == 403 and b"<Code>RequestTimeTooSkewed</Code>" in body, body
    calls = [entry for entry in journal(server) if entry["path"] == f"/demo/{key}" and entry["method"] == "GET"]
    # The refused one is journalled without a credential.
    assert [(entry["status"], entry["credential"]) for entry in calls] == [(200, "s3-header-sigv2")] * 3 + [
        (403, "none")], calls
