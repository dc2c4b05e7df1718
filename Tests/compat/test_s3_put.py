"""PutObject as backends call it, with boto3's defaults (only the endpoint and the demo app's keys): the body
signed by its SHA-256 over plain HTTP, stored metadata and headers given back, conditional writes, and the
`response-*` overrides of a read. Every refusal is S3's XML and stores nothing.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_put.py``.
"""

from __future__ import annotations

import base64
import email.header
import hashlib
import hmac
import time
import uuid
import xml.etree.ElementTree as ET

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from s3support import HeaderSigner, advance, crc32, journal, refused, reset, s3
from support import API_KEY, API_SECRET, multipart, request

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


@pytest.mark.parametrize("declared", ["audio/ogg", "audio/mpeg", "video/mp4", "image/png", "application/pdf"])
def test_a_declared_type_the_bytes_do_not_show_is_kept(server, declared):
    """S3 stores the `Content-Type` a PUT declares: bytes that show no type (a test's placeholder, a format the
    sniffer does not know) keep the declared type, on PutObject, a multipart upload and a POST form alike."""
    client, key = s3(server), fresh_key("media.bin")
    client.put_object(Bucket="demo", Key=key, Body=b"placeholder bytes of a test", ContentType=declared)
    assert client.head_object(Bucket="demo", Key=key)["ContentType"] == declared
    got = client.get_object(Bucket="demo", Key=key)
    assert (got["ContentType"], got["Body"].read()) == (declared, b"placeholder bytes of a test")
    parted = fresh_key("parted.bin")
    upload = client.create_multipart_upload(Bucket="demo", Key=parted, ContentType=declared)["UploadId"]
    etag = client.upload_part(Bucket="demo", Key=parted, UploadId=upload, PartNumber=1, Body=b"one part")["ETag"]
    client.complete_multipart_upload(Bucket="demo", Key=parted, UploadId=upload,
                                     MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": etag}]})
    assert client.head_object(Bucket="demo", Key=parted)["ContentType"] == declared
    posted = fresh_key("posted.bin")
    form = client.generate_presigned_post("demo", posted, Fields={"Content-Type": declared},
                                          Conditions=[{"Content-Type": declared}])
    boundary = "----MockCDNForm" + uuid.uuid4().hex
    parts = [(name, None, None, value.encode()) for name, value in form["fields"].items()]
    body = multipart(parts + [("file", "f.bin", None, b"form bytes")], boundary)
    status, body, _ = request(form["url"], "POST", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 204, body
    assert client.head_object(Bucket="demo", Key=posted)["ContentType"] == declared


def test_bytes_that_show_a_type_still_decide_it_and_active_content_stays_sandboxed(server):
    """The bytes win where they show a type: HTML declared as a PNG is stored as HTML, and read as an attachment
    in a sandbox, as every uploaded HTML is; a PNG declared as a PDF is a PNG."""
    client, key = s3(server), fresh_key("page.png")
    client.put_object(Bucket="demo", Key=key, Body=b"<!DOCTYPE html><script>alert(1)</script>",
                      ContentType="image/png")
    assert client.head_object(Bucket="demo", Key=key)["ContentType"] == "text/html"
    url = client.generate_presigned_url("get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300)
    status, _, headers = request(url)
    assert status == 200 and headers["Content-Type"] == "text/html"
    assert headers["Content-Security-Policy"] == "sandbox" and headers["Content-Disposition"] == "attachment"
    png = fresh_key("image.pdf")
    client.put_object(Bucket="demo", Key=png, Body=b"\x89PNG\r\n\x1a\n" + b"\0" * 64, ContentType="application/pdf")
    assert client.head_object(Bucket="demo", Key=png)["ContentType"] == "image/png"


def test_content_encoding_comes_back_as_sent(server):
    client, key = s3(server), fresh_key("packed.bin")
    client.put_object(Bucket="demo", Key=key, Body=b"not really compressed", ContentEncoding="deflate, gzip")
    assert client.head_object(Bucket="demo", Key=key)["ContentEncoding"] == "deflate, gzip"
    assert client.get_object(Bucket="demo", Key=key)["ContentEncoding"] == "deflate, gzip"


def _request_ids(response: dict) -> tuple[str, str]:
    """The `x-amz-request-id` and `x-amz-id-2` of an answer, as botocore hands them over."""
    metadata = response["ResponseMetadata"]
    headers = metadata["HTTPHeaders"]
    assert metadata["RequestId"] == headers["x-amz-request-id"] and metadata["HostId"] == headers["x-amz-id-2"]
    return headers["x-amz-request-id"], headers["x-amz-id-2"]


def test_every_s3_answer_names_its_request(server):
    """`x-amz-request-id` and `x-amz-id-2` on every S3 answer, success or refusal, reads and listings included,
    each request its own; a refusal's `<RequestId>` and `<HostId>` are the headers' values."""
    client, key = s3(server), fresh_key()
    answers = [
        client.put_object(Bucket="demo", Key=key, Body=b"named"),
        client.head_object(Bucket="demo", Key=key),
        client.get_object(Bucket="demo", Key=key),
        client.list_objects_v2(Bucket="demo", Prefix="put/"),
        client.head_bucket(Bucket="demo"),
        client.create_multipart_upload(Bucket="demo", Key=fresh_key()),
        client.delete_object(Bucket="demo", Key=fresh_key()),
    ]
    for call in (lambda: client.get_object(Bucket="demo", Key=fresh_key()),  # a route's refusal
                 lambda: client.head_object(Bucket="demo", Key=fresh_key()),  # no body
                 lambda: client.get_bucket_versioning(Bucket="demo"),  # S3's dispatch, before any route
                 lambda: s3(server, secret="wrong").get_object(Bucket="demo", Key=key)):
        with pytest.raises(ClientError) as refusal:
            call()
        answers.append(refusal.value.response)
    ids = [_request_ids(answer) for answer in answers]
    assert all(request_id and host_id for request_id, host_id in ids), ids
    assert len({request_id for request_id, _ in ids}) == len(ids), ids
    # An error body names the same request as its headers.
    status, body, headers = request(f"{server}/demo/{key}")
    error = ET.fromstring(body)
    assert status == 401 and (error.findtext("RequestId"), error.findtext("HostId")) == (
        headers["x-amz-request-id"], headers["x-amz-id-2"]), body
    # A CDN read with a FAT or a presigned link is S3's answer too; the control routes are not S3's.
    url = client.generate_presigned_url("get_object", Params={"Bucket": "demo", "Key": key}, ExpiresIn=300)
    status, body, headers = request(url)
    assert (status, body) == (200, b"named") and headers["x-amz-request-id"] and headers["x-amz-id-2"]
    _, _, control = request(f"{server}/_mockcdn/health")
    assert control["x-amz-request-id"] is None


def test_put_if_match_takes_an_unquoted_etag_as_reads_and_copies_do(server):
    client, key = s3(server), fresh_key()
    etag = client.put_object(Bucket="demo", Key=key, Body=b"one")["ETag"]
    assert client.get_object(Bucket="demo", Key=key, IfMatch=etag.strip('"'))["Body"].read() == b"one"
    replaced = client.put_object(Bucket="demo", Key=key, Body=b"two", IfMatch=etag.strip('"'))["ETag"]
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"two"
    # A list, one of whose tags is the object's, as on a read.
    client.put_object(Bucket="demo", Key=key, Body=b"three", IfMatch=f'"0000", {replaced}')
    assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=b"four", IfMatch=replaced.strip('"'))) == (
        412, "PreconditionFailed")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"three"


def _with_header(client, operation: str, name: str, value: str):
    """Adds a header botocore signs but has no parameter for, as ceph's s3-tests do."""
    def add(params, **_):
        params["headers"][name] = value
    client.meta.events.register(f"before-call.s3.{operation}", add)
    return client


def _text(value: str) -> str:
    """A header value with its RFC 2047 encoded-words decoded, as a mail reader does."""
    return str(email.header.make_header(email.header.decode_header(value)))


def test_non_ascii_user_metadata_comes_back_in_rfc_2047_words(server):
    """botocore sends a metadata value's UTF-8 as it is (its `Metadata` parameter takes ASCII only, so ceph's
    s3-tests add the header themselves). S3 keeps the text and sends it back in RFC 2047 encoded-words, as its
    user guide says: ASCII a client reads as Latin-1 cannot garble. Encoded-words sent are decoded when
    stored, and the 2 KB bound counts the text."""
    key = fresh_key()
    client = _with_header(s3(server), "PutObject", "x-amz-meta-meta1", "Hello Worldé")
    client = _with_header(client, "PutObject", "x-amz-meta-mark", "=?UTF-8?B?4oSi?=")
    long = "Congratulations! You just completed the “Finding Vocal Freedom Workout”."
    client = _with_header(client, "PutObject", "x-amz-meta-long", long)
    client.put_object(Bucket="demo", Key=key, Body=b"bar", Metadata={"plain": "=?just ascii?="})
    reader = s3(server)
    for answer in (reader.get_object(Bucket="demo", Key=key), reader.head_object(Bucket="demo", Key=key)):
        metadata = answer["Metadata"]
        assert metadata["meta1"] == "=?UTF-8?Q?Hello_World=C3=A9?=", metadata
        assert metadata["mark"] == "=?UTF-8?B?4oSi?=", metadata
        assert all(len(word) <= 75 for word in metadata["long"].split(" ")) and " " in metadata["long"], metadata
        assert {name: _text(value) for name, value in metadata.items()} == {
            "meta1": "Hello Worldé", "mark": "™", "plain": "=?just ascii?=", "long": long}
    # A copy keeps the text, and sends it back the same way.
    copy = fresh_key()
    reader.copy_object(Bucket="demo", Key=copy, CopySource=f"demo/{key}")
    assert reader.head_object(Bucket="demo", Key=copy)["Metadata"]["meta1"] == "=?UTF-8?Q?Hello_World=C3=A9?="
    # The 2 KB bound counts the text: 2,001 bytes sent as 2,680 characters of base64 words pass, 2,201 bytes
    # of UTF-8 do not, and nothing is stored then.
    words = "=?UTF-8?B?" + base64.b64encode(("é" * 1000).encode()).decode() + "?="
    assert len(words) > 2048
    fits = fresh_key()
    _with_header(s3(server), "PutObject", "x-amz-meta-m", words).put_object(Bucket="demo", Key=fits, Body=b"x")
    assert _text(reader.head_object(Bucket="demo", Key=fits)["Metadata"]["m"]) == "é" * 1000
    over = fresh_key()
    sent = _with_header(s3(server), "PutObject", "x-amz-meta-m", "é" * 1100)
    assert refused(lambda: sent.put_object(Bucket="demo", Key=over, Body=b"x")) == (400, "MetadataTooLarge")
    assert refused(lambda: reader.head_object(Bucket="demo", Key=over))[0] == 404


@pytest.mark.parametrize("date,code", [
    ("Tue, 07 Jul 2010 21:53:04 GMT", "RequestTimeTooSkewed"),
    ("Tue, 07 Jul 9999 21:53:04 GMT", "RequestTimeTooSkewed"),
    ("Tue, 07 Jul 1950 21:53:04 GMT", "AccessDenied"),
    ("Bad Date", "AccessDenied"),
])
def test_a_sigv2_request_dated_far_from_the_clock_is_refused_for_its_time(server, date, code):
    """ceph's s3-tests date a SigV2 request with `x-amz-date` (botocore signs it beside its own `Date`): S3
    judges that date before the signature, `RequestTimeTooSkewed` with the times named when it is far from the
    clock, `AccessDenied` when it is no date (or one before 1970). Nothing is stored."""
    key = fresh_key()
    client = _with_header(s3(server, config=Config(signature_version="s3")), "PutObject", "x-amz-date", date)
    with pytest.raises(ClientError) as refusal:
        client.put_object(Bucket="demo", Key=key, Body=b"bar")
    response = refusal.value.response
    assert (response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"]) == (403, code), response
    if code == "RequestTimeTooSkewed":
        error = response["Error"]
        assert (error["RequestTime"], error["MaxAllowedSkewMilliseconds"]) == (date, "900000"), error
        assert error["ServerTime"].endswith("Z")
    else:
        assert response["Error"]["Message"] == "AWS authentication requires a valid Date or x-amz-date header"
    assert refused(lambda: s3(server).head_object(Bucket="demo", Key=key))[0] == 404
