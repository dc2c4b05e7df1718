"""Every operation of botocore's S3 model, sent by boto3 with its defaults (only the endpoint and the demo app's
keys), is either served as S3 serves it or refused with S3's code, and a refusal changes no object: the walk
below holds MockCDN to `docs/s3-api.md` ("What is not served"), and fails when a botocore release adds an
operation that gets anything else. Then the requests beside the served ones that once did damage (an object
ACL, tagging or retention written over the object; NFC and NFD spellings of one key taken for one object), on
the memory, disk and S3 (moto_server) stores, and the keys S3 takes that MockCDN once refused."""

from __future__ import annotations

import datetime
import hashlib
import unicodedata
import uuid

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from s3support import code_of, fat, refused, s3
from support import request

BUCKET = "demo"
VICTIM = "walk/victim.txt"
VICTIM_BYTES = b"the object every refused operation names; it must never change\n"

# The operations MockCDN serves, with the parameters that make each one succeed (a part needs an open upload,
# a copy a source, a DeleteBucket a bucket of its own). Every other operation of the model must be refused.
SERVED = {
    "AbortMultipartUpload", "CompleteMultipartUpload", "CopyObject", "CreateBucket", "CreateMultipartUpload",
    "DeleteBucket", "DeleteObject", "DeleteObjects", "ListBuckets", "GetBucketLocation", "GetBucketNotification", "GetBucketNotificationConfiguration",
    "GetObject", "HeadBucket", "HeadObject", "ListMultipartUploads", "ListObjects", "ListObjectsV2", "ListParts",
    "PutBucketNotification", "PutBucketNotificationConfiguration", "PutObject", "UploadPart", "UploadPartCopy",
    "PutObjectAcl", "GetObjectAcl", "PutObjectTagging", "GetObjectTagging", "DeleteObjectTagging",
}
# The operations on an object's ACL and tags, sent to an object of their own (test_s3_acl_tagging.py tests them).
OBJECT_SUBRESOURCES = {"PutObjectAcl", "GetObjectAcl", "PutObjectTagging", "GetObjectTagging", "DeleteObjectTagging"}
# S3's refusals of an operation MockCDN does not do (docs/s3-api.md, "What is not served").
REFUSALS = {(501, "NotImplemented"), (405, "MethodNotAllowed")}


def minimal(shape, name: str = ""):
    """The smallest value botocore's validation takes for `shape`: required members only."""
    if shape.type_name == "structure" and shape.is_tagged_union:
        first = next(iter(shape.members))
        return {first: minimal(shape.members[first], first)}
    if shape.type_name == "structure":
        return {member: minimal(shape.members[member], member) for member in shape.required_members}
    if shape.type_name == "list":
        return [minimal(shape.member)]
    if shape.type_name == "map":
        return {}
    if shape.type_name == "string":
        if shape.enum:
            return shape.enum[0]
        return {"Bucket": BUCKET, "Key": VICTIM}.get(name, "x" * max(1, shape.metadata.get("min", 1)))
    if shape.type_name in ("integer", "long"):
        return 1
    if shape.type_name == "boolean":
        return False
    if shape.type_name == "timestamp":
        return datetime.datetime(2030, 1, 1, tzinfo=datetime.timezone.utc)
    if shape.type_name == "blob":
        return b"x"
    raise AssertionError(f"no minimal value for {shape.type_name}")


def snapshot(client) -> dict[str, str]:
    """Every object of the bucket and the SHA-256 of its bytes."""
    found = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for item in page.get("Contents", []):
            body = client.get_object(Bucket=BUCKET, Key=item["Key"])["Body"].read()
            found[item["Key"]] = hashlib.sha256(body).hexdigest()
    return found


def served_parameters(client, operation: str, parameters: dict) -> dict:
    """`parameters` made to succeed: an open upload for a part, a real source for a copy."""
    key = f"walk/{operation}/{uuid.uuid4()}"
    if operation in ("UploadPart", "UploadPartCopy", "ListParts", "AbortMultipartUpload", "CompleteMultipartUpload"):
        upload = client.create_multipart_upload(Bucket=BUCKET, Key=key)["UploadId"]
        parameters.update(Key=key, UploadId=upload, PartNumber=1)
        if operation == "CompleteMultipartUpload":
            etag = client.upload_part(Bucket=BUCKET, Key=key, UploadId=upload, PartNumber=1, Body=b"part")["ETag"]
            parameters["MultipartUpload"] = {"Parts": [{"PartNumber": 1, "ETag": etag}]}
    if operation in ("CopyObject", "UploadPartCopy"):
        parameters["CopySource"] = f"{BUCKET}/{VICTIM}"
    if operation in ("PutObject", "CopyObject", "CreateMultipartUpload", "DeleteObject"):
        parameters["Key"] = key
    if operation in ("CreateBucket", "DeleteBucket"):
        parameters["Bucket"] = "walk-" + uuid.uuid4().hex[:16]
        if operation == "DeleteBucket":
            client.create_bucket(Bucket=parameters["Bucket"])
    if operation in OBJECT_SUBRESOURCES:
        parameters["Key"] = key
        client.put_object(Bucket=BUCKET, Key=key, Body=b"subresource")
        if operation == "PutObjectAcl":
            parameters["ACL"] = "private"
    if operation == "DeleteObjects":
        parameters["Delete"] = {"Objects": [{"Key": f"walk/{uuid.uuid4()}"}]}
    if operation in ("PutBucketNotification", "PutBucketNotificationConfiguration"):
        parameters["NotificationConfiguration"] = {}
    for name in ("ListParts", "AbortMultipartUpload", "CompleteMultipartUpload"):
        if operation == name:
            parameters.pop("PartNumber", None)
    return parameters


def test_every_botocore_operation_is_served_or_refused_and_a_refusal_changes_nothing(server):
    client = s3(server)
    client.put_object(Bucket=BUCKET, Key=VICTIM, Body=VICTIM_BYTES)
    # S3 Object Lambda's route is addressed by a host prefix, which an endpoint given as an address cannot take.
    lambda_client = s3(server, config=Config(inject_host_prefix=False))
    model = client.meta.service_model
    python_names = {api: python for python, api in client.meta.method_to_api_mapping.items()}
    outcomes: dict[str, str] = {}
    unexpected: list[str] = []
    for operation in model.operation_names:
        shape = model.operation_model(operation).input_shape
        parameters = minimal(shape) if shape is not None else {}
        method = getattr(lambda_client if operation == "WriteGetObjectResponse" else client, python_names[operation])
        if operation in SERVED:
            try:
                answer = method(**served_parameters(client, operation, parameters))
            except ClientError as error:
                unexpected.append(f"{operation}: served, but refused {code_of(error)}")
                continue
            outcomes[operation] = f"served {answer['ResponseMetadata']['HTTPStatusCode']}"
            continue
        before = snapshot(client)
        try:
            answer = method(**parameters)
            unexpected.append(f"{operation}: answered {answer['ResponseMetadata']['HTTPStatusCode']}, not refused")
        except ClientError as error:
            outcome = code_of(error)
            outcomes[operation] = f"refused {outcome}"
            if outcome not in REFUSALS:
                unexpected.append(f"{operation}: refused with {outcome}, not one of {sorted(REFUSALS)}")
        after = snapshot(client)
        if after != before:
            unexpected.append(f"{operation}: changed {sorted(set(before.items()) ^ set(after.items()))}")
    assert client.get_object(Bucket=BUCKET, Key=VICTIM)["Body"].read() == VICTIM_BYTES
    assert not unexpected, "\n".join(unexpected)
    # Every operation was sent: the model has about 110, MockCDN serves these.
    assert len(outcomes) == len(model.operation_names) > 100
    assert {name for name, outcome in outcomes.items() if outcome.startswith("served")} == SERVED


def put(client, key: str, body: bytes) -> None:
    client.put_object(Bucket=BUCKET, Key=key, Body=body)


def body_of(client, key: str) -> bytes:
    return client.get_object(Bucket=BUCKET, Key=key)["Body"].read()


# Object ACLs and tags are served now (test_s3_acl_tagging.py holds them to S3); these sub-resources are not.
@pytest.mark.parametrize("call", [
    lambda c, k: c.put_object_retention(Bucket=BUCKET, Key=k, Retention={
        "Mode": "GOVERNANCE", "RetainUntilDate": datetime.datetime(2030, 1, 1)}),
    lambda c, k: c.put_object_legal_hold(Bucket=BUCKET, Key=k, LegalHold={"Status": "ON"}),
    lambda c, k: c.get_object_attributes(Bucket=BUCKET, Key=k, ObjectAttributes=["ETag"]),
], ids=["put_object_retention", "put_object_legal_hold", "get_object_attributes"])
def test_an_object_subresource_is_refused_and_the_object_is_untouched(each_store, call):
    client = s3(each_store)
    key = f"subresources/{uuid.uuid4()}.txt"
    put(client, key, b"original bytes")
    before = client.head_object(Bucket=BUCKET, Key=key)
    assert refused(lambda: call(client, key)) == (501, "NotImplemented")
    after = client.head_object(Bucket=BUCKET, Key=key)
    assert body_of(client, key) == b"original bytes"
    assert (after["ETag"], after["ContentLength"], after["LastModified"]) == (
        before["ETag"], before["ContentLength"], before["LastModified"])


def test_nfc_and_nfd_spellings_are_two_objects(each_store):
    client = s3(each_store)
    folder = f"unicode/{uuid.uuid4()}/"
    nfc, nfd = folder + unicodedata.normalize("NFC", "café.txt"), folder + unicodedata.normalize("NFD", "café.txt")
    assert nfc != nfd and nfc.encode() != nfd.encode()
    put(client, nfc, b"composed")
    put(client, nfd, b"decomposed")
    assert body_of(client, nfc) == b"composed" and body_of(client, nfd) == b"decomposed"
    listed = [item["Key"] for item in client.list_objects_v2(Bucket=BUCKET, Prefix=folder)["Contents"]]
    # S3's order is the UTF-8 bytes': "e" + U+0301 (0x65 0xCC 0x81) before "é" (0xC3 0xA9).
    assert listed == [nfd, nfc]
    # A prefix is bytes too: "cafe" is a prefix of the NFD spelling only.
    assert [item["Key"] for item in client.list_objects_v2(Bucket=BUCKET, Prefix=folder + "cafe")["Contents"]] == [nfd]
    client.delete_object(Bucket=BUCKET, Key=nfd)
    assert body_of(client, nfc) == b"composed"
    assert refused(lambda: client.head_object(Bucket=BUCKET, Key=nfd)) == (404, "404")
    deleted = client.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": nfd}]})
    assert [item["Key"] for item in deleted["Deleted"]] == [nfd]
    assert body_of(client, nfc) == b"composed"


def test_keys_s3_takes_round_trip_exactly(each_store):
    client = s3(each_store)
    folder = f"keys/{uuid.uuid4()}"
    keys = [f"{folder}/a/./b", f"{folder}/a/../b", f"{folder}/dir/", f"{folder}//empty", f"{folder}/back\\slash",
            f"{folder}/" + "é" * ((1024 - len(folder) - 1) // 2)]
    assert max(len(key.encode()) for key in keys) <= 1024
    for index, key in enumerate(keys):
        put(client, key, b"body %d" % index)
    for index, key in enumerate(keys):
        assert body_of(client, key) == b"body %d" % index, key
    listed = [item["Key"] for item in client.list_objects_v2(Bucket=BUCKET, Prefix=folder)["Contents"]]
    assert listed == sorted(keys, key=str.encode)
    longest = folder + "/" + "k" * (1024 - len(folder) - 1)
    put(client, longest, b"longest")
    assert body_of(client, longest) == b"longest"
    assert refused(lambda: put(client, longest + "k", b"x")) == (400, "KeyTooLongError")
    answer = client.delete_objects(Bucket=BUCKET, Delete={"Objects": [{"Key": key} for key in keys + [longest]]})
    assert len(answer["Deleted"]) == len(keys) + 1 and "Errors" not in answer
    assert "Contents" not in client.list_objects_v2(Bucket=BUCKET, Prefix=folder)


def test_a_media_path_with_dot_segments_is_refused_to_a_link_and_read_with_s3s_credentials(server):
    client = s3(server)
    key = f"dots/{uuid.uuid4()}/a/../b.txt"
    put(client, key, b"dotted")
    assert body_of(client, key) == b"dotted"
    presigned = client.generate_presigned_url("get_object", Params={"Bucket": BUCKET, "Key": key})
    assert request(presigned)[:2] == (200, b"dotted")
    # A FAT reads media paths only: the same key with a valid token is no media path.
    status, body, _ = request(server + "/demo/" + key, headers={"fat": fat(server)})
    assert status == 400 and b"<Code>InvalidURI</Code>" in body, body
