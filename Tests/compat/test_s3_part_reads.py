"""Reads of one part of an object (GetObject and HeadObject with `PartNumber`) and CopyObject and UploadPartCopy
with `CopySourceIf*` conditions, as boto3 makes them with its defaults (only the endpoint and the demo app's
keys), against what S3 answers: a part is a ranged read (206, its `Content-Range`, the whole object's ETag,
`PartsCount` for an object uploaded in parts), and a source condition that does not hold is 412
`PreconditionFailed`, with nothing written.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_part_reads.py``.
"""

from __future__ import annotations

import datetime

import pytest
from botocore.exceptions import ClientError

from conftest import launch
from s3support import (PART, HeaderSigner, crc32, exists, fat, fresh_key, md5, multipart_etag, open_upload,
                       part_numbers, refused, s3)
from support import request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")

DAY = datetime.timedelta(days=1)


def error_of(call) -> dict:
    """The status and the `<Error>` elements of a call that must fail."""
    with pytest.raises(ClientError) as refusal:
        call()
    return {"Status": refusal.value.response["ResponseMetadata"]["HTTPStatusCode"], **refusal.value.response["Error"]}


def complete(client, key: str, parts: list[bytes], numbers: list[int] | None = None) -> str:
    """`key` uploaded in `parts` (as part 1, 2, ... or under `numbers`); the object's ETag."""
    upload, sent = open_upload(client, key, parts, numbers)
    return client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload,
                                            MultipartUpload={"Parts": sent})["ETag"]


@pytest.fixture(scope="module")
def three_parts(server):
    """An object uploaded in three parts (5 MiB, 5 MiB, a small tail): its key, parts and ETag."""
    client, key = s3(server), fresh_key("three.bin")
    parts = [b"a" * PART, b"b" * PART, b"the tail"]
    etag = complete(client, key, parts)
    assert etag == multipart_etag(parts)
    return key, parts, etag


# MARK: - GetObject and HeadObject with PartNumber

def test_get_object_part_number_reads_that_part(server, three_parts):
    key, parts, etag = three_parts
    client, total, start = s3(server), sum(map(len, parts)), 0
    for number, data in enumerate(parts, start=1):
        got = client.get_object(Bucket="demo", Key=key, PartNumber=number)
        assert got["ResponseMetadata"]["HTTPStatusCode"] == 206
        assert got["Body"].read() == data
        last = start + len(data) - 1
        assert (got["ContentLength"], got["ContentRange"]) == (len(data), f"bytes {start}-{last}/{total}")
        # The ETag and the count are the whole object's.
        assert (got["ETag"], got["PartsCount"], got["AcceptRanges"]) == (etag, 3, "bytes")
        start += len(data)


def test_head_object_part_number_gives_the_part_length_and_count(server, three_parts):
    key, parts, etag = three_parts
    head = s3(server).head_object(Bucket="demo", Key=key, PartNumber=1)
    assert head["ResponseMetadata"]["HTTPStatusCode"] == 206
    assert (head["ContentLength"], head["PartsCount"], head["ETag"]) == (PART, 3, etag)
    assert head["ContentRange"] == f"bytes 0-{PART - 1}/{sum(map(len, parts))}"
    tail = s3(server).head_object(Bucket="demo", Key=key, PartNumber=3)
    assert (tail["ContentLength"], tail["PartsCount"]) == (len(parts[2]), 3)


def test_a_part_beyond_the_last_is_invalid_part_number(server, three_parts):
    key, _, _ = three_parts
    client = s3(server)
    for number in (4, 10000):
        assert error_of(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=number)) == {
            "Status": 416, "Code": "InvalidPartNumber", "Message": "The requested partnumber is not satisfiable",
            "PartNumberRequested": str(number), "ActualPartCount": "3"}
        # A HEAD answer has no body: boto3 names the status only.
        assert refused(lambda: client.head_object(Bucket="demo", Key=key, PartNumber=number)) == (416, "416")


def test_a_part_number_that_is_not_1_to_10000_is_invalid_argument(server, three_parts):
    key, _, _ = three_parts
    client = s3(server)
    for number in (0, -1, 10001):
        assert error_of(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=number)) == {
            "Status": 400, "Code": "InvalidArgument",
            "Message": "Part number must be an integer between 1 and 10000, inclusive",
            "ArgumentName": "partNumber", "ArgumentValue": str(number)}
        assert refused(lambda: client.head_object(Bucket="demo", Key=key, PartNumber=number)) == (400, "400")
    # No client sends a number that is no integer: signed by hand.
    status, body, _ = HeaderSigner().send("GET", f"{server}/demo/{key}?partNumber=two", b"")
    assert status == 400 and b"<Code>InvalidArgument</Code>" in body and b"<ArgumentValue>two</ArgumentValue>" in body


def test_part_number_with_range_is_invalid_request(server, three_parts):
    key, _, _ = three_parts
    client = s3(server)
    # Before the number is looked at: a bad number with a Range is refused for the Range.
    for number in (1, 0):
        assert error_of(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=number, Range="bytes=0-1")) == {
            "Status": 400, "Code": "InvalidRequest",
            "Message": "Cannot specify both Range header and partNumber query parameter"}
    assert refused(lambda: client.head_object(Bucket="demo", Key=key, PartNumber=1, Range="bytes=0-1")) == (
        400, "400")


def test_parts_are_numbered_in_the_order_joined(server):
    """Parts uploaded as 2 and 7 are the object's parts 1 and 2, as on S3."""
    client, key = s3(server), fresh_key()
    parts = [b"x" * PART, b"y" * 10]
    complete(client, key, parts, numbers=[2, 7])
    assert client.get_object(Bucket="demo", Key=key, PartNumber=1)["Body"].read() == parts[0]
    assert client.get_object(Bucket="demo", Key=key, PartNumber=2)["Body"].read() == parts[1]
    assert error_of(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=3))["ActualPartCount"] == "2"


def test_an_object_not_uploaded_in_parts_is_one_part(server):
    client, key = s3(server), fresh_key("single.txt")
    client.put_object(Bucket="demo", Key=key, Body=b"non-mpu-object")
    got = client.get_object(Bucket="demo", Key=key, PartNumber=1)
    assert got["ResponseMetadata"]["HTTPStatusCode"] == 206
    assert (got["Body"].read(), got["ContentLength"], got["ContentRange"]) == (b"non-mpu-object", 14, "bytes 0-13/14")
    assert "PartsCount" not in got and got["ETag"] == f'"{md5(b"non-mpu-object")}"'
    head = client.head_object(Bucket="demo", Key=key, PartNumber=1)
    assert (head["ResponseMetadata"]["HTTPStatusCode"], head["ContentLength"]) == (206, 14)
    assert error_of(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=2)) == {
        "Status": 416, "Code": "InvalidPartNumber", "Message": "The requested partnumber is not satisfiable",
        "PartNumberRequested": "2", "ActualPartCount": "1"}


def test_an_empty_part_is_answered_200_with_no_bytes(server):
    """RFC 9110 has no Content-Range for no bytes: MockCDN answers an empty part 200, Content-Length 0."""
    client, key = s3(server), fresh_key()
    complete(client, key, [b"e" * PART, b""])
    got = client.get_object(Bucket="demo", Key=key, PartNumber=2)
    assert (got["ResponseMetadata"]["HTTPStatusCode"], got["ContentLength"], got["PartsCount"]) == (200, 0, 2)
    assert got["Body"].read() == b"" and "ContentRange" not in got


def test_conditions_of_a_part_read_are_the_whole_objects(server, three_parts):
    key, _, etag = three_parts
    client = s3(server)
    assert client.get_object(Bucket="demo", Key=key, PartNumber=2, IfMatch=etag)["Body"].read() == b"b" * PART
    assert refused(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=2, IfNoneMatch=etag)) == (304, "304")
    assert error_of(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=2, IfMatch='"other"')) == {
        "Status": 412, "Code": "PreconditionFailed",
        "Message": "At least one of the pre-conditions you specified did not hold", "Condition": "If-Match"}


def test_a_stored_checksum_comes_with_the_whole_object_only(server):
    """S3 leaves the stored checksum out of a read of some of the bytes: botocore checks a checksum it is given
    against the bytes it got, and would refuse a range."""
    client, key = s3(server), fresh_key("checked.txt")
    client.put_object(Bucket="demo", Key=key, Body=b"0123456789")
    whole = client.get_object(Bucket="demo", Key=key, PartNumber=1, ChecksumMode="ENABLED")
    assert (whole["ChecksumCRC32"], whole["Body"].read()) == (crc32(b"0123456789"), b"0123456789")
    ranged = client.get_object(Bucket="demo", Key=key, Range="bytes=0-8", ChecksumMode="ENABLED")
    assert "ChecksumCRC32" not in ranged and ranged["Body"].read() == b"012345678"
    all_of_it = client.get_object(Bucket="demo", Key=key, Range="bytes=0-", ChecksumMode="ENABLED")
    assert all_of_it["ChecksumCRC32"] == crc32(b"0123456789")
    assert client.head_object(Bucket="demo", Key=key, PartNumber=1, ChecksumMode="ENABLED")["ChecksumCRC32"]
    # An object uploaded in parts keeps no checksum of its whole: a part read has none either.
    parted = fresh_key()
    complete(client, parted, [b"c" * PART, b"d"])
    part = client.get_object(Bucket="demo", Key=parted, PartNumber=2, ChecksumMode="ENABLED")
    assert part["Body"].read() == b"d" and not [name for name in part if name.startswith("Checksum")]


def test_presigned_and_fat_part_reads(server, three_parts):
    """A part read goes through every read credential as a Range read does."""
    key, parts, etag = three_parts
    url = s3(server).generate_presigned_url("get_object", Params={"Bucket": "demo", "Key": key, "PartNumber": 3})
    status, body, headers = request(url)
    assert (status, body, headers["ETag"], headers["x-amz-mp-parts-count"]) == (206, parts[2], etag, "3")
    status, body, headers = request(f"{server}/demo/{key}?partNumber=2", headers={"fat": fat(server)})
    assert (status, len(body), headers["Content-Range"]) == (206, PART, f"bytes {PART}-{2 * PART - 1}/{2 * PART + 8}")
    status, body, _ = request(f"{server}/demo/{key}?partNumber=9", headers={"fat": fat(server)})
    assert status == 416 and b"<Code>InvalidPartNumber</Code>" in body


def test_parts_survive_a_restart_of_the_disk_store(tmp_path):
    data, key, parts = tmp_path / "data", fresh_key(), [b"1" * PART, b"2" * 100]
    with launch("--data-dir", str(data)) as running:
        complete(s3(running.url), key, parts)
    with launch("--data-dir", str(data)) as running:
        got = s3(running.url).get_object(Bucket="demo", Key=key, PartNumber=2)
        assert (got["Body"].read(), got["PartsCount"], got["ETag"]) == (parts[1], 2, multipart_etag(parts))


def test_an_object_put_over_a_multipart_one_is_one_part(server):
    client, key = s3(server), fresh_key()
    complete(client, key, [b"m" * PART, b"n"])
    client.put_object(Bucket="demo", Key=key, Body=b"plain")
    head = client.head_object(Bucket="demo", Key=key, PartNumber=1)
    assert head["ContentLength"] == 5 and "PartsCount" not in head
    assert refused(lambda: client.get_object(Bucket="demo", Key=key, PartNumber=2)) == (416, "InvalidPartNumber")


def test_a_copy_of_a_multipart_object_is_one_part(server, three_parts):
    """CopyObject makes an object of one part, whose ETag is the MD5 of its bytes, as on S3."""
    key, parts, _ = three_parts
    client, copy = s3(server), fresh_key("copy.bin")
    whole = b"".join(parts)
    result = client.copy_object(Bucket="demo", Key=copy, CopySource={"Bucket": "demo", "Key": key})
    assert result["CopyObjectResult"]["ETag"] == f'"{md5(whole)}"'
    head = client.head_object(Bucket="demo", Key=copy, PartNumber=1)
    assert (head["ContentLength"], head["ETag"]) == (len(whole), f'"{md5(whole)}"') and "PartsCount" not in head
    assert error_of(lambda: client.get_object(Bucket="demo", Key=copy, PartNumber=2))["ActualPartCount"] == "1"
    assert client.get_object(Bucket="demo", Key=copy)["Body"].read() == whole
    # Copied onto itself with new metadata, an object uploaded in parts becomes one part too.
    own, own_parts = fresh_key("own.bin"), [b"o" * PART, b"p"]
    complete(client, own, own_parts)
    result = client.copy_object(Bucket="demo", Key=own, CopySource=f"demo/{own}", MetadataDirective="REPLACE",
                                Metadata={"copied": "yes"})
    assert result["CopyObjectResult"]["ETag"] == f'"{md5(b"".join(own_parts))}"'
    head = client.head_object(Bucket="demo", Key=own, PartNumber=1)
    assert (head["ContentLength"], head["Metadata"]) == (PART + 1, {"copied": "yes"}) and "PartsCount" not in head


def test_copied_part_by_part_a_multipart_object_keeps_its_etag(server, three_parts):
    """The way to copy an object with its parts: HEAD each part for its length, UploadPartCopy its range."""
    key, parts, etag = three_parts
    client, copy = s3(server), fresh_key("by-parts.bin")
    upload, sent, start = client.create_multipart_upload(Bucket="demo", Key=copy)["UploadId"], [], 0
    for number in range(1, client.head_object(Bucket="demo", Key=key, PartNumber=1)["PartsCount"] + 1):
        length = client.head_object(Bucket="demo", Key=key, PartNumber=number)["ContentLength"]
        copied = client.upload_part_copy(Bucket="demo", Key=copy, UploadId=upload, PartNumber=number,
                                         CopySource=f"demo/{key}",
                                         CopySourceRange=f"bytes={start}-{start + length - 1}")
        sent.append({"PartNumber": number, "ETag": copied["CopyPartResult"]["ETag"]})
        start += length
    done = client.complete_multipart_upload(Bucket="demo", Key=copy, UploadId=upload, MultipartUpload={"Parts": sent})
    assert done["ETag"] == etag
    assert client.get_object(Bucket="demo", Key=copy, PartNumber=2)["Body"].read() == parts[1]


# MARK: - CopySourceIf* on CopyObject and UploadPartCopy

@pytest.fixture(scope="module")
def source(server):
    """A source object: its key, bytes, ETag and Last-Modified."""
    client, key, data = s3(server), fresh_key("source.txt"), b"the source's bytes"
    client.put_object(Bucket="demo", Key=key, Body=data)
    head = client.head_object(Bucket="demo", Key=key)
    return key, data, head["ETag"], head["LastModified"]


def holding(etag: str, modified: datetime.datetime) -> list[dict]:
    """Each condition alone, holding, and the combinations S3 copies with."""
    return [
        {"CopySourceIfMatch": etag},
        {"CopySourceIfMatch": etag.strip('"')},
        {"CopySourceIfMatch": f'"other", {etag}'},
        {"CopySourceIfMatch": "*"},
        {"CopySourceIfNoneMatch": '"other"'},
        {"CopySourceIfModifiedSince": modified - DAY},
        # A date after the MockCDN clock's now says nothing of the source: S3 ignores it.
        {"CopySourceIfModifiedSince": modified + DAY},
        {"CopySourceIfUnmodifiedSince": modified},
        # If-Match holding wins over If-Unmodified-Since failing (S3's documented rule).
        {"CopySourceIfMatch": etag, "CopySourceIfUnmodifiedSince": modified - DAY},
        # If-None-Match holding: If-Modified-Since is not read (RFC 9110 section 13.2.2).
        {"CopySourceIfNoneMatch": '"other"', "CopySourceIfModifiedSince": modified},
        {"CopySourceIfMatch": etag, "CopySourceIfNoneMatch": '"other"', "CopySourceIfModifiedSince": modified - DAY,
         "CopySourceIfUnmodifiedSince": modified},
    ]


def failing(etag: str, modified: datetime.datetime) -> list[tuple[dict, str]]:
    """Conditions that refuse the copy, with the condition S3 names."""
    return [
        ({"CopySourceIfMatch": '"other"'}, "x-amz-copy-source-If-Match"),
        ({"CopySourceIfNoneMatch": etag}, "x-amz-copy-source-If-None-Match"),
        ({"CopySourceIfNoneMatch": etag.strip('"')}, "x-amz-copy-source-If-None-Match"),
        ({"CopySourceIfNoneMatch": "*"}, "x-amz-copy-source-If-None-Match"),
        ({"CopySourceIfModifiedSince": modified}, "x-amz-copy-source-If-Modified-Since"),
        ({"CopySourceIfUnmodifiedSince": modified - DAY}, "x-amz-copy-source-If-Unmodified-Since"),
        # If-None-Match failing with If-Modified-Since holding: 412 (S3's documented rule).
        ({"CopySourceIfNoneMatch": etag, "CopySourceIfModifiedSince": modified - DAY},
         "x-amz-copy-source-If-None-Match"),
        # If-None-Match holding does not save a failing If-Unmodified-Since.
        ({"CopySourceIfNoneMatch": '"other"', "CopySourceIfUnmodifiedSince": modified - DAY},
         "x-amz-copy-source-If-Unmodified-Since"),
        # All four failing: S3 names If-Match, then If-Unmodified-Since, If-None-Match, If-Modified-Since.
        ({"CopySourceIfMatch": '"other"', "CopySourceIfUnmodifiedSince": modified - DAY,
          "CopySourceIfNoneMatch": etag, "CopySourceIfModifiedSince": modified}, "x-amz-copy-source-If-Match"),
        ({"CopySourceIfUnmodifiedSince": modified - DAY, "CopySourceIfNoneMatch": etag,
          "CopySourceIfModifiedSince": modified}, "x-amz-copy-source-If-Unmodified-Since"),
        ({"CopySourceIfNoneMatch": etag, "CopySourceIfModifiedSince": modified}, "x-amz-copy-source-If-None-Match"),
    ]


def precondition_failed(condition: str) -> dict:
    return {"Status": 412, "Code": "PreconditionFailed", "Condition": condition,
            "Message": "At least one of the pre-conditions you specified did not hold"}


def test_copy_object_with_source_conditions_that_hold(server, source):
    key, data, etag, modified = source
    client = s3(server)
    for conditions in holding(etag, modified):
        target = fresh_key("copy.txt")
        client.copy_object(Bucket="demo", Key=target, CopySource=f"demo/{key}", **conditions)
        assert client.get_object(Bucket="demo", Key=target)["Body"].read() == data, conditions


def test_copy_object_with_a_source_condition_that_fails_writes_nothing(server, source):
    key, _, etag, modified = source
    client, target = s3(server), fresh_key("untouched.txt")
    client.put_object(Bucket="demo", Key=target, Body=b"already here")
    before = client.head_object(Bucket="demo", Key=target)
    fresh = fresh_key("never.txt")
    for conditions, condition in failing(etag, modified):
        for destination in (target, fresh):
            assert error_of(lambda: client.copy_object(Bucket="demo", Key=destination, CopySource=f"demo/{key}",
                                                       **conditions)) == precondition_failed(condition), conditions
    after = client.head_object(Bucket="demo", Key=target)
    assert (after["ETag"], after["LastModified"]) == (before["ETag"], before["LastModified"])
    assert client.get_object(Bucket="demo", Key=target)["Body"].read() == b"already here"
    assert not exists(client, fresh)


def test_a_missing_source_is_no_such_key_whatever_its_conditions(server):
    client = s3(server)
    assert refused(lambda: client.copy_object(Bucket="demo", Key=fresh_key(), CopySource="demo/no/such/source",
                                              CopySourceIfMatch='"x"')) == (404, "NoSuchKey")


def test_upload_part_copy_with_source_conditions(server, source):
    key, data, etag, modified = source
    client, target = s3(server), fresh_key("assembled.txt")
    upload = client.create_multipart_upload(Bucket="demo", Key=target)["UploadId"]
    for conditions, condition in failing(etag, modified):
        assert error_of(lambda: client.upload_part_copy(Bucket="demo", Key=target, UploadId=upload, PartNumber=1,
                                                        CopySource=f"demo/{key}", **conditions)) == (
            precondition_failed(condition)), conditions
    assert part_numbers(client, target, upload) == []
    for number, conditions in enumerate(holding(etag, modified), start=1):
        copied = client.upload_part_copy(Bucket="demo", Key=target, UploadId=upload, PartNumber=number,
                                         CopySource=f"demo/{key}", **conditions)
        assert copied["CopyPartResult"]["ETag"] == f'"{md5(data)}"', conditions
    assert part_numbers(client, target, upload) == list(range(1, len(holding(etag, modified)) + 1))
