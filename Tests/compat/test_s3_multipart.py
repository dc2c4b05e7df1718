"""S3 multipart uploads as clients make them, with their defaults (only the endpoint and the demo app's keys):
boto3's `upload_file` and the AWS CLI's `aws s3 cp` above their 8 MiB thresholds, the low-level calls, parts
sent through presigned URLs as a browser sends them, and every refusal in S3's words. A refused request stores
nothing; a completed, aborted, reset or expired upload frees its parts.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_multipart.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
import xml.etree.ElementTree as ET

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import launch
from s3support import (PART, HeaderSigner, MiB, advance, exists, fresh_key, journal, md5, multipart_etag, open_upload,
                       part_numbers, refused, reset, s3)
from support import API_KEY, API_SECRET, request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")

DAY = 24 * 60 * 60


def test_boto3_upload_file_and_download_file(server, tmp_path):
    client, key = s3(server), fresh_key("video.bin")
    data = os.urandom(20 * MiB + 123)
    source, target = tmp_path / "up.bin", tmp_path / "down.bin"
    source.write_bytes(data)
    client.upload_file(str(source), "demo", key)
    client.download_file("demo", key, str(target))
    assert target.read_bytes() == data
    # boto3's default part size is 8 MiB: three parts.
    pieces = [data[start:start + 8 * MiB] for start in range(0, len(data), 8 * MiB)]
    head = client.head_object(Bucket="demo", Key=key)
    assert (head["ETag"], head["ContentLength"]) == (multipart_etag(pieces), len(data))
    calls = [(entry["method"], entry["status"], entry["credential"]) for entry in journal(server)
             if entry["path"] == f"/demo/{key}" and entry["method"] in ("POST", "PUT")]
    assert calls == [("POST", 200, "s3-header-sigv4")] + [("PUT", 200, "s3-header-sigv4")] * 3 + [
        ("POST", 200, "s3-header-sigv4")], calls


def test_awscli_cp_up_and_down(server, tmp_path):
    aws = shutil.which("aws")
    assert aws, "awscli is required (make py-deps installs it)"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET)
    key = fresh_key("backup.tar")
    data = os.urandom(20 * MiB)
    source, target = tmp_path / "backup.tar", tmp_path / "copy.tar"
    source.write_bytes(data)
    for arguments in ([str(source), f"s3://demo/{key}"], [f"s3://demo/{key}", str(target)]):
        done = subprocess.run([aws, "--endpoint-url", server, "s3", "cp", *arguments], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert target.read_bytes() == data
    assert s3(server).head_object(Bucket="demo", Key=key)["ETag"].endswith('-3"')


def test_create_upload_parts_list_and_complete(server):
    client, key = s3(server), fresh_key("report.txt")
    created = client.create_multipart_upload(Bucket="demo", Key=key, ContentType="text/plain",
                                             Metadata={"job": "7"}, CacheControl="no-cache")
    assert (created["Bucket"], created["Key"]) == ("demo", key)
    upload = created["UploadId"]
    first, last = b"a" * PART, b"the last part may be small"
    client.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=1, Body=b"b" * PART)
    # A part sent again replaces the earlier one.
    etag1 = client.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=1, Body=first)["ETag"]
    etag2 = client.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=2, Body=last)["ETag"]
    assert (etag1, etag2) == (f'"{md5(first)}"', f'"{md5(last)}"')
    page = client.list_parts(Bucket="demo", Key=key, UploadId=upload, MaxParts=1)
    assert [(part["PartNumber"], part["ETag"], part["Size"]) for part in page["Parts"]] == [(1, etag1, PART)]
    assert page["IsTruncated"] and page["NextPartNumberMarker"] == 1
    rest = client.list_parts(Bucket="demo", Key=key, UploadId=upload, PartNumberMarker=1)
    assert [(part["PartNumber"], part["Size"]) for part in rest["Parts"]] == [(2, len(last))]
    assert not rest["IsTruncated"]
    assert not exists(client, key)
    done = client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload, MultipartUpload={
        "Parts": [{"PartNumber": 1, "ETag": etag1}, {"PartNumber": 2, "ETag": etag2}]})
    assert done["ETag"] == multipart_etag([first, last])
    assert (done["Bucket"], done["Key"], done["Location"]) == ("demo", key, f"{server}/demo/{key}")
    head = client.head_object(Bucket="demo", Key=key)
    assert (head["ContentType"], head["Metadata"], head["CacheControl"], head["ETag"]) == (
        "text/plain", {"job": "7"}, "no-cache", done["ETag"])
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == first + last
    # The upload is over: its id is gone, and so are its parts.
    assert refused(lambda: client.list_parts(Bucket="demo", Key=key, UploadId=upload)) == (404, "NoSuchUpload")


def test_upload_part_copy_with_ranges(server):
    client, source, key = s3(server), fresh_key("source.bin"), fresh_key("assembled.bin")
    data = os.urandom(PART + MiB)
    client.put_object(Bucket="demo", Key=source, Body=data)
    upload = client.create_multipart_upload(Bucket="demo", Key=key)["UploadId"]
    copied = client.upload_part_copy(Bucket="demo", Key=key, UploadId=upload, PartNumber=1,
                                     CopySource={"Bucket": "demo", "Key": source},
                                     CopySourceRange=f"bytes=0-{PART - 1}")["CopyPartResult"]
    assert copied["ETag"] == f'"{md5(data[:PART])}"' and copied["LastModified"]
    second = client.upload_part_copy(Bucket="demo", Key=key, UploadId=upload, PartNumber=2,
                                     CopySource=f"demo/{source}", CopySourceRange=f"bytes={PART}-{len(data) - 1}")
    outside = refused(lambda: client.upload_part_copy(Bucket="demo", Key=key, UploadId=upload, PartNumber=3,
                                                      CopySource=f"demo/{source}", CopySourceRange="bytes=0-99999999"))
    assert outside == (400, "InvalidArgument")
    assert refused(lambda: client.upload_part_copy(Bucket="demo", Key=key, UploadId=upload, PartNumber=3,
                                                   CopySource="demo/no/such/object")) == (404, "NoSuchKey")
    assert part_numbers(client, key, upload) == [1, 2]
    client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": [
        {"PartNumber": 1, "ETag": copied["ETag"]}, {"PartNumber": 2, "ETag": second["CopyPartResult"]["ETag"]}]})
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == data


def test_abort(server):
    client, key = s3(server), fresh_key()
    upload, _ = open_upload(client, key, [b"part"])
    answer = client.abort_multipart_upload(Bucket="demo", Key=key, UploadId=upload)
    assert answer["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert refused(lambda: client.list_parts(Bucket="demo", Key=key, UploadId=upload)) == (404, "NoSuchUpload")
    assert refused(lambda: client.abort_multipart_upload(Bucket="demo", Key=key, UploadId=upload)) == (
        404, "NoSuchUpload")
    assert not exists(client, key)


def test_list_multipart_uploads(server):
    client, folder = s3(server), f"listing/{uuid.uuid4()}"
    first = client.create_multipart_upload(Bucket="demo", Key=f"{folder}/a")["UploadId"]
    second = client.create_multipart_upload(Bucket="demo", Key=f"{folder}/b")["UploadId"]
    third = client.create_multipart_upload(Bucket="demo", Key=f"{folder}/b")["UploadId"]
    listing = client.list_multipart_uploads(Bucket="demo", Prefix=f"{folder}/")
    assert [(upload["Key"], upload["UploadId"]) for upload in listing["Uploads"]] == [
        (f"{folder}/a", first), (f"{folder}/b", second), (f"{folder}/b", third)]
    assert not listing["IsTruncated"] and listing["Uploads"][0]["Initiated"]
    page = client.list_multipart_uploads(Bucket="demo", Prefix=f"{folder}/", MaxUploads=2)
    assert [upload["UploadId"] for upload in page["Uploads"]] == [first, second] and page["IsTruncated"]
    assert (page["NextKeyMarker"], page["NextUploadIdMarker"]) == (f"{folder}/b", second)
    rest = client.list_multipart_uploads(Bucket="demo", Prefix=f"{folder}/", KeyMarker=page["NextKeyMarker"],
                                         UploadIdMarker=page["NextUploadIdMarker"])
    assert [upload["UploadId"] for upload in rest["Uploads"]] == [third] and not rest["IsTruncated"]
    after_a = client.list_multipart_uploads(Bucket="demo", Prefix=f"{folder}/", KeyMarker=f"{folder}/a")
    assert [upload["UploadId"] for upload in after_a["Uploads"]] == [second, third]
    client.abort_multipart_upload(Bucket="demo", Key=f"{folder}/b", UploadId=second)
    left = client.list_multipart_uploads(Bucket="demo", Prefix=f"{folder}/")
    assert [upload["UploadId"] for upload in left["Uploads"]] == [first, third]


def test_list_multipart_uploads_encodes_keys_as_s3(server):
    """With `encoding-type=url` (botocore sends it only when asked, and decodes nothing here), the key marker,
    prefix and keys are form-encoded with `/` left as it is, as in a bucket listing."""
    client, folder = s3(server), f"listing/{uuid.uuid4()}"
    upload = client.create_multipart_upload(Bucket="demo", Key=f"{folder}/a b/c+d.txt")["UploadId"]
    listing = client.list_multipart_uploads(Bucket="demo", Prefix=f"{folder}/a b", KeyMarker=f"{folder}/a ",
                                            EncodingType="url")
    assert (listing["Prefix"], listing["KeyMarker"], listing["EncodingType"]) == (
        f"{folder}/a+b", f"{folder}/a+", "url")
    assert [(item["Key"], item["UploadId"]) for item in listing["Uploads"]] == [(f"{folder}/a+b/c%2Bd.txt", upload)]
    assert listing["NextKeyMarker"] == f"{folder}/a+b/c%2Bd.txt"
    # Without it, every element as stored.
    plain = client.list_multipart_uploads(Bucket="demo", Prefix=f"{folder}/")
    assert [item["Key"] for item in plain["Uploads"]] == [f"{folder}/a b/c+d.txt"]
    client.abort_multipart_upload(Bucket="demo", Key=f"{folder}/a b/c+d.txt", UploadId=upload)


def test_if_match_on_completion_is_checked_and_a_failure_keeps_the_upload(server):
    """CompleteMultipartUpload with `If-Match` (boto3's `IfMatch`) completes only over the object with that
    ETag, quoted or not, as PutObject; otherwise 412 `PreconditionFailed`, nothing stored, the upload open with
    its parts. `If-None-Match: *` completes only where no object is."""
    client, key = s3(server), fresh_key("conditional.txt")
    first = client.put_object(Bucket="demo", Key=key, Body=b"first")["ETag"]
    changed = client.put_object(Bucket="demo", Key=key, Body=b"changed meanwhile")["ETag"]
    upload, parts = open_upload(client, key, [b"from the parts"])
    complete = lambda **condition: client.complete_multipart_upload(  # noqa: E731
        Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": parts}, **condition)
    with pytest.raises(ClientError) as refusal:
        complete(IfMatch=first)
    error = refusal.value.response
    assert (error["ResponseMetadata"]["HTTPStatusCode"], error["Error"]["Code"], error["Error"]["Condition"]) == (
        412, "PreconditionFailed", "If-Match")
    assert refused(lambda: complete(IfNoneMatch="*")) == (412, "PreconditionFailed")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"changed meanwhile"
    assert part_numbers(client, key, upload) == [1]
    done = complete(IfMatch=changed.strip('"'))
    assert done["ETag"] == multipart_etag([b"from the parts"])
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"from the parts"
    # Where no object is, If-Match is 404 NoSuchKey (as PutObject's) and If-None-Match: * completes.
    other = fresh_key("new.txt")
    upload, parts = open_upload(client, other, [b"new"])
    assert refused(lambda: client.complete_multipart_upload(
        Bucket="demo", Key=other, UploadId=upload, MultipartUpload={"Parts": parts}, IfMatch=changed)) == (
        404, "NoSuchKey")
    assert not exists(client, other)
    client.complete_multipart_upload(Bucket="demo", Key=other, UploadId=upload, MultipartUpload={"Parts": parts},
                                     IfNoneMatch="*")
    assert client.get_object(Bucket="demo", Key=other)["Body"].read() == b"new"


def test_entity_too_small_stores_nothing_and_keeps_the_upload(server):
    client, key = s3(server), fresh_key()
    upload, parts = open_upload(client, key, [b"x" * 1024, b"y" * 1024])
    with pytest.raises(ClientError) as refusal:
        client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": parts})
    error = refusal.value.response["Error"]
    assert (refusal.value.response["ResponseMetadata"]["HTTPStatusCode"], error["Code"]) == (400, "EntityTooSmall")
    assert (error["ProposedSize"], error["MinSizeAllowed"], error["PartNumber"], error["ETag"]) == (
        "1024", str(PART), "1", md5(b"x" * 1024))
    assert not exists(client, key)
    assert part_numbers(client, key, upload) == [1, 2]
    # The last part alone may be small: completing with part 1 only stores it.
    client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": parts[:1]})
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"x" * 1024


def test_invalid_part_and_invalid_part_order_store_nothing(server):
    client, key = s3(server), fresh_key()
    upload, parts = open_upload(client, key, [b"1" * PART, b"2" * 10])
    complete = lambda named: client.complete_multipart_upload(  # noqa: E731
        Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": named})
    assert refused(lambda: complete([parts[0], {"PartNumber": 2, "ETag": '"00000000000000000000000000000000"'}])) == (
        400, "InvalidPart")
    assert refused(lambda: complete([parts[0], {"PartNumber": 3, "ETag": parts[1]["ETag"]}])) == (400, "InvalidPart")
    assert refused(lambda: complete([parts[1], parts[0]])) == (400, "InvalidPartOrder")
    assert refused(lambda: complete([parts[0], parts[0]])) == (400, "InvalidPartOrder")
    assert not exists(client, key)
    assert part_numbers(client, key, upload) == [1, 2]


def test_malformed_completion_document(server):
    client, key = s3(server), fresh_key()
    upload, _ = open_upload(client, key, [b"part"])
    for body in (b"<nothing/>", b"<CompleteMultipartUpload></CompleteMultipartUpload>",
                 b"<CompleteMultipartUpload><Part><PartNumber>one</PartNumber><ETag>x</ETag></Part>"
                 b"</CompleteMultipartUpload>"):
        status, answer, _ = HeaderSigner().send("POST", f"{server}/demo/{key}?uploadId={upload}", body)
        assert (status, ET.fromstring(answer).findtext("Code")) == (400, "MalformedXML"), answer
    assert not exists(client, key)


def test_no_such_upload(server):
    client, key = s3(server), fresh_key()
    upload, parts = open_upload(client, key, [b"part"])
    for call in (
        lambda: client.upload_part(Bucket="demo", Key=key, UploadId="no-such-upload", PartNumber=1, Body=b"x"),
        lambda: client.list_parts(Bucket="demo", Key=key, UploadId="no-such-upload"),
        lambda: client.abort_multipart_upload(Bucket="demo", Key=key, UploadId="no-such-upload"),
        lambda: client.complete_multipart_upload(Bucket="demo", Key=key, UploadId="no-such-upload",
                                                 MultipartUpload={"Parts": parts}),
        # An upload belongs to its key.
        lambda: client.upload_part(Bucket="demo", Key=key + ".other", UploadId=upload, PartNumber=2, Body=b"x"),
    ):
        assert refused(call) == (404, "NoSuchUpload")
    assert part_numbers(client, key, upload) == [1]
    for number in (0, 10001):
        assert refused(lambda: client.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=number,
                                                  Body=b"x")) == (400, "InvalidArgument")
    assert not exists(client, key) and not exists(client, key + ".other")


def test_wrong_secret_on_upload_part_stores_nothing(server):
    client, key = s3(server), fresh_key()
    upload, _ = open_upload(client, key, [])
    wrong = s3(server, secret="not-the-secret")
    assert refused(lambda: wrong.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=1,
                                             Body=b"x" * 1000)) == (403, "SignatureDoesNotMatch")
    assert refused(lambda: wrong.create_multipart_upload(Bucket="demo", Key=fresh_key())) == (
        403, "SignatureDoesNotMatch")
    assert refused(lambda: wrong.list_parts(Bucket="demo", Key=key, UploadId=upload)) == (403, "SignatureDoesNotMatch")
    assert part_numbers(client, key, upload) == []


def test_presigned_upload_part_urls_over_plain_http(server):
    """What a browser does: the backend presigns one UploadPart URL per part (boto3's default presigns with
    SigV2 for us-east-1; SigV4 with `signature_version="s3v4"`), the browser PUTs each part as it is, with no
    Content-Type, and reads its ETag; the backend completes."""
    client, key = s3(server), fresh_key("upload.bin")
    v4 = s3(server, config=Config(signature_version="s3v4"))
    upload = client.create_multipart_upload(Bucket="demo", Key=key)["UploadId"]
    pieces = [os.urandom(PART), os.urandom(1000)]
    sent = []
    for number, (signer, data) in enumerate(zip((v4, client), pieces), start=1):
        url = signer.generate_presigned_url("upload_part", Params={
            "Bucket": "demo", "Key": key, "UploadId": upload, "PartNumber": number}, ExpiresIn=300)
        status, body, headers = HeaderSigner.send_as_is("PUT", url, data)
        assert (status, headers["ETag"]) == (200, f'"{md5(data)}"'), body
        sent.append({"PartNumber": number, "ETag": headers["ETag"]})
    for signer in (v4, client):
        tampered = signer.generate_presigned_url("upload_part", Params={
            "Bucket": "demo", "Key": key, "UploadId": upload, "PartNumber": 3}, ExpiresIn=300).replace(
            "partNumber=3", "partNumber=4")
        status, body, _ = HeaderSigner.send_as_is("PUT", tampered, b"x")
        assert (status, ET.fromstring(body).findtext("Code")) == (403, "SignatureDoesNotMatch")
    credentials = [entry["credential"] for entry in journal(server)
                   if entry["method"] == "PUT" and entry["path"] == f"/demo/{key}" and entry["status"] == 200]
    assert credentials == ["presigned", "presigned-v2"]
    client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": sent})
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"".join(pieces)


def test_aws_chunked_upload_part(server):
    """A part in aws-chunked framing, each chunk signed in its chain (the Java and Go SDKs' way)."""
    client, key = s3(server), fresh_key()
    upload = client.create_multipart_upload(Bucket="demo", Key=key)["UploadId"]
    data = bytes(range(256)) * 600
    url = f"{server}/demo/{key}?partNumber=1&uploadId={upload}"
    status, answer, headers = HeaderSigner().put(url, data, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
    assert (status, headers["ETag"]) == (200, f'"{md5(data)}"'), answer
    tampered, _, _ = HeaderSigner().put(url.replace("partNumber=1", "partNumber=2"), data,
                                        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
                                        tamper=lambda body: body[:1000] + b"!" + body[1001:])
    assert tampered == 403
    assert part_numbers(client, key, upload) == [1]


def test_reset_frees_uploads(server):
    client, key = s3(server), fresh_key()
    upload, _ = open_upload(client, key, [b"part"])
    reset(server)
    assert refused(lambda: client.list_parts(Bucket="demo", Key=key, UploadId=upload)) == (404, "NoSuchUpload")
    assert "Uploads" not in client.list_multipart_uploads(Bucket="demo", Prefix=key)


def test_an_upload_untouched_for_24_hours_is_freed(server):
    client, key = s3(server), fresh_key()
    upload, _ = open_upload(client, key, [b"part"])

    def list_parts() -> int:
        # Signed at the server's clock, which the test moves by days.
        _, body, _ = request(f"{server}/_mockcdn/clock")
        signer = HeaderSigner(at=json.loads(body)["now"])
        status, _, _ = signer.send("GET", f"{server}/demo/{key}?uploadId={upload}", b"")
        return status

    try:
        # Each request touches the upload: two days pass, never 24 hours without one.
        for _ in range(2):
            advance(server, DAY - 60)
            assert list_parts() == 200
        advance(server, DAY + 1)
        assert list_parts() == 404
    finally:
        reset(server)


def test_parts_live_in_the_store_out_of_sight_and_are_freed(tmp_path):
    """With --data-dir, each part is a blob of the store until its upload ends; no listing shows one."""
    data = tmp_path / "data"
    with launch("--data-dir", str(data)) as running:
        client = s3(running.url)

        def blobs() -> int:
            return len(list((data / "blobs").iterdir()))

        idle = blobs()
        key = fresh_key()
        upload, parts = open_upload(client, key, [b"p" * PART, b"q" * 10])
        assert blobs() == idle + 2
        listed = client.list_objects_v2(Bucket="demo")["Contents"]
        assert not [item for item in listed if "multipart" in item["Key"]]
        status, body, _ = request(f"{running.url}/_mockcdn/objects?app=demo&prefix=")
        assert status == 200 and "_mockcdn/multipart" not in body.decode()
        assert refused(lambda: client.complete_multipart_upload(
            Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": parts[::-1]})) == (
            400, "InvalidPartOrder")
        assert blobs() == idle + 2
        client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": parts})
        assert blobs() == idle + 1
        other = fresh_key()
        aborted, _ = open_upload(client, other, [b"r" * 100])
        assert blobs() == idle + 2
        client.abort_multipart_upload(Bucket="demo", Key=other, UploadId=aborted)
        assert blobs() == idle + 1
        open_upload(client, fresh_key(), [b"s" * 100])
        reset(running.url)
        assert "Uploads" not in client.list_multipart_uploads(Bucket="demo")
        # The reset removed every object and loaded the fixtures again: no part is left.
        assert blobs() == idle


def test_a_refused_type_is_refused_at_completion(server):
    """The app's upload policy meets the object's first bytes when the parts are joined: under `images/`,
    bytes that are no image are 415, and nothing is stored."""
    client, key = s3(server), f"images/{uuid.uuid4()}/photo.png"
    upload, parts = open_upload(client, key, [b"not a png at all"])
    assert refused(lambda: client.complete_multipart_upload(
        Bucket="demo", Key=key, UploadId=upload, MultipartUpload={"Parts": parts})) == (415, "UnsupportedMediaType")
    assert not exists(client, key)
    assert part_numbers(client, key, upload) == [1]


def test_a_completion_kept_alive_answers_200_then_its_result_or_its_error():
    """With `--keepalive-after 0`, every CompleteMultipartUpload is answered as S3 answers one that joins for
    long: 200 and the XML declaration at once, a space every second, then the result, or the error inside the
    200. boto3, with its defaults, reads the result as its success and the error as its ClientError (botocore
    takes such a 200 for a 500 and retries it: each try is refused alike, and stores nothing). The journal
    keeps each try's 200 with the refusal's reason."""
    with launch("--keepalive-after", "0") as running:
        client, key = s3(running.url), fresh_key("kept.bin")
        pieces = [os.urandom(PART), b"the tail"]
        upload, parts = open_upload(client, key, pieces)
        done = client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload,
                                                MultipartUpload={"Parts": parts})
        assert done["ETag"] == multipart_etag(pieces)
        assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"".join(pieces)
        # On the wire: the declaration first, then (after any spaces) the result's root.
        other = fresh_key("wire.bin")
        upload, parts = open_upload(client, other, [b"one part"])
        document = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
                    f"<ETag>{parts[0]['ETag']}</ETag></Part></CompleteMultipartUpload>").encode()
        status, body, headers = HeaderSigner().send("POST", f"{running.url}/demo/{other}?uploadId={upload}",
                                                    document)
        declaration = b'<?xml version="1.0" encoding="UTF-8"?>\n'
        assert (status, body[:len(declaration)]) == (200, declaration), body
        assert ET.fromstring(body).tag.endswith("CompleteMultipartUploadResult"), body
        assert ET.fromstring(body).findtext("{*}ETag") == multipart_etag([b"one part"])
        # A refusal met while joining (the image policy on the first bytes) comes inside the 200.
        refused_key = f"images/{uuid.uuid4()}/photo.png"
        upload, parts = open_upload(client, refused_key, [b"not a png at all"])
        with pytest.raises(ClientError) as refusal:
            client.complete_multipart_upload(Bucket="demo", Key=refused_key, UploadId=upload,
                                             MultipartUpload={"Parts": parts})
        assert refusal.value.response["Error"]["Code"] == "UnsupportedMediaType", refusal.value.response
        tries = refusal.value.response["ResponseMetadata"]["RetryAttempts"] + 1
        assert tries > 1
        assert not exists(client, refused_key)
        assert part_numbers(client, refused_key, upload) == [1]
        entries = [(entry["status"], (entry["reason"] or "").split(":")[0]) for entry in journal(running.url)
                   if entry["path"] == f"/demo/{refused_key}" and entry["method"] == "POST"
                   and "uploadId" in (entry["query"] or "")]
        assert entries == [(200, "UnsupportedMediaType")] * tries, entries


# Two apps whose upload policy takes files of 8 MiB at most; `large` lets S3-addressed writes store 2 GiB.
LIMITS = """apps:
  - app_id: capped
    api_key: capped-key
    api_secret: capped-secret-at-least-32-bytes-long!!
    file_upload_config: { size_limit: 8388608 }
  - app_id: large
    api_key: large-key
    api_secret: large-secret-at-least-32-bytes-long!!
    file_upload_config: { size_limit: 8388608 }
    s3_size_limit: 2147483648
"""


@pytest.fixture
def limits(tmp_path):
    """A server with the apps of `LIMITS`, storing into --data-dir."""
    config = tmp_path / "limits.yaml"
    config.write_text(LIMITS)
    with launch("--config", str(config), "--data-dir", str(tmp_path / "data")) as running:
        yield running


def client_of(running, app: str):
    return boto3.session.Session().client("s3", endpoint_url=running.url, aws_access_key_id=f"{app}-key",
                                          aws_secret_access_key=f"{app}-secret-at-least-32-bytes-long!!")


def test_the_upload_policy_limit_holds_for_s3_writes_unless_s3_size_limit_lifts_it(limits):
    """`capped` refuses an object over its 8 MiB, put whole (before its body is read) or joined from parts (at
    completion, keeping the parts): 400 EntityTooLarge, nothing stored. `large`, with `s3_size_limit`, stores
    both."""
    parts = [b"a" * PART, b"b" * PART]
    capped, large = client_of(limits, "capped"), client_of(limits, "large")
    key = fresh_key()
    assert refused(lambda: capped.put_object(Bucket="capped", Key=key, Body=b"x" * (9 * MiB))) == (
        400, "EntityTooLarge")
    upload, sent = open_upload(capped, key, parts, bucket="capped")
    assert refused(lambda: capped.complete_multipart_upload(
        Bucket="capped", Key=key, UploadId=upload, MultipartUpload={"Parts": sent})) == (400, "EntityTooLarge")
    assert refused(lambda: capped.head_object(Bucket="capped", Key=key)) == (404, "404")
    assert [part["PartNumber"] for part in capped.list_parts(Bucket="capped", Key=key, UploadId=upload)["Parts"]] == [
        1, 2]
    large.put_object(Bucket="large", Key=key, Body=b"x" * (9 * MiB))
    upload, sent = open_upload(large, key + ".joined", parts, bucket="large")
    large.complete_multipart_upload(Bucket="large", Key=key + ".joined", UploadId=upload,
                                    MultipartUpload={"Parts": sent})
    assert large.head_object(Bucket="large", Key=key + ".joined")["ContentLength"] == 2 * PART


def test_a_gibibyte_in_parts_keeps_memory_flat(limits):
    """1 GiB streamed in as 128 parts of 8 MiB into --data-dir and joined into one object (by `large`, whose
    `s3_size_limit` is 2 GiB): the server's peak RSS (VmHWM) stays within its idle RSS + 64 MiB. About 30 s
    on a 2-core machine with a debug build."""
    client = client_of(limits, "large")
    # One upload first, so that what the first one allocates for good counts as idle.
    warm = fresh_key()
    upload, parts = open_upload(client, warm, [b"w" * PART], bucket="large")
    client.complete_multipart_upload(Bucket="large", Key=warm, UploadId=upload, MultipartUpload={"Parts": parts})
    idle = limits.status("VmRSS")
    key, piece = fresh_key("large.bin"), os.urandom(8 * MiB)
    upload, parts = open_upload(client, key, [piece] * 128, bucket="large")
    done = client.complete_multipart_upload(Bucket="large", Key=key, UploadId=upload, MultipartUpload={"Parts": parts})
    peak = limits.status("VmHWM")
    print(f"idle VmRSS {idle} kB, peak VmHWM {peak} kB, growth {peak - idle} kB")
    assert peak - idle <= 64 * 1024, (idle, peak)
    assert done["ETag"] == multipart_etag([piece] * 128)
    assert client.head_object(Bucket="large", Key=key)["ContentLength"] == 1024 * MiB
    # Across the boundary of parts 100 and 101.
    start = 800 * MiB - 10
    across = client.get_object(Bucket="large", Key=key, Range=f"bytes={start}-{start + 19}")["Body"].read()
    assert across == piece[-10:] + piece[:10]
