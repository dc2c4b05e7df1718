"""S3's XML request bodies as the real binary reads them (libxml2, `XMLReader`): DeleteObjects on each store
(memory, `--data-dir`, and an S3 bucket on moto_server), CompleteMultipartUpload and
PutBucketNotificationConfiguration. What the document says is what is done: a commented-out key is not
deleted, a CDATA key names exactly its text, and both namespace forms are read. Every document S3 refuses
(a DOCTYPE and its entities, 10,000-deep nesting, bytes that are not UTF-8, more than 1,000 keys) is S3's
400 `MalformedXML`, word for word, and nothing is deleted, completed or configured.

boto3 cannot send most of these documents, so they are signed here with botocore's own `S3SigV4Auth`, over
the raw bytes, with the `Content-MD5` S3 requires of a batch; everything else is checked with boto3.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_xml.py``.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
import xml.etree.ElementTree as ET

import boto3
import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

from conftest import launch
from s3support import journal
from support import API_KEY, API_SECRET, request
from test_scale_out import Moto, bucket, s3_env

MESSAGE = "The XML you provided was not well-formed or did not validate against our published schema"
NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/"


@pytest.fixture(scope="module", params=["memory", "disk", "s3"])
def store(request, tmp_path_factory):
    """A server on each store, started once for the module: its base URL."""
    if request.param == "memory":
        with launch("--fixtures", "none") as server:
            yield server.url
    elif request.param == "disk":
        with launch("--fixtures", "none", "--data-dir", str(tmp_path_factory.mktemp("data"))) as server:
            yield server.url
    else:
        moto = Moto()
        try:
            with launch("--fixtures", "none", "--store", f"s3://{bucket(moto)}/xml", env=s3_env(moto)) as server:
                yield server.url
        finally:
            moto.stop()


@pytest.fixture(scope="module")
def server():
    with launch("--fixtures", "none") as running:
        yield running.url


def s3(server: str):
    return boto3.client("s3", endpoint_url=server, aws_access_key_id=API_KEY, aws_secret_access_key=API_SECRET,
                        region_name="us-east-1", config=Config(s3={"addressing_style": "path"}))


def signed(method: str, url: str, body: bytes, md5: bool = True) -> tuple[int, bytes]:
    """Sends `body` as it is, signed with botocore's SigV4 for S3 (its SHA-256 in x-amz-content-sha256)."""
    headers = {"Content-Type": "application/xml"}
    if md5:
        headers["Content-MD5"] = base64.b64encode(hashlib.md5(body).digest()).decode()
    raw = AWSRequest(method=method, url=url, data=body, headers=headers)
    S3SigV4Auth(Credentials(API_KEY, API_SECRET), "s3", "us-east-1").add_auth(raw)
    status, answer, _ = request(url, method, body, dict(raw.headers.items()))
    return status, answer


def refusal(answer: bytes) -> tuple[str, str]:
    document = ET.fromstring(answer)
    return document.findtext("Code"), document.findtext("Message")


def objects(client, prefix: str) -> dict[str, str]:
    """Every object under `prefix`, with its ETag."""
    listed = client.list_objects_v2(Bucket="demo", Prefix=prefix).get("Contents", [])
    return {item["Key"]: item["ETag"] for item in listed}


def deleted(answer: bytes) -> list[str]:
    return [key.text for key in ET.fromstring(answer).iter(f"{{{NAMESPACE}}}Key")]


def fresh(client, *names: str) -> str:
    """A new folder holding an object of each name (its own name as its bytes); the folder's prefix."""
    prefix = f"xml/{uuid.uuid4().hex}/"
    for name in names:
        client.put_object(Bucket="demo", Key=prefix + name, Body=name.encode())
    return prefix


# MARK: - DeleteObjects on every store


def test_a_commented_out_key_is_not_deleted(store):
    client = s3(store)
    prefix = fresh(client, "kept", "gone")
    body = (f"<Delete><!-- <Object><Key>{prefix}kept</Key></Object> -->"
            f"<Object><Key>{prefix}gone</Key></Object></Delete>").encode()
    status, answer = signed("POST", f"{store}/demo?delete=", body)
    assert status == 200, answer
    assert deleted(answer) == [prefix + "gone"]
    assert list(objects(client, prefix)) == [prefix + "kept"]


def test_a_cdata_key_deletes_the_object_of_exactly_that_name(store):
    client = s3(store)
    prefix = fresh(client, "a&amp;<b>", "a&<b>")
    body = f"<Delete><Object><Key><![CDATA[{prefix}a&amp;<b>]]></Key></Object></Delete>".encode()
    status, answer = signed("POST", f"{store}/demo?delete=", body)
    assert status == 200, answer
    assert deleted(answer) == [prefix + "a&amp;<b>"]
    assert list(objects(client, prefix)) == [prefix + "a&<b>"]


def test_a_key_that_is_not_utf8_is_refused_and_the_replacement_character_object_survives(store):
    client = s3(store)
    prefix = fresh(client, "x\ufffd", "y")
    before = objects(client, prefix)
    body = (b"<Delete><Object><Key>" + prefix.encode() + b"y</Key></Object><Object><Key>" + prefix.encode()
            + b"x\xff</Key></Object></Delete>")
    status, answer = signed("POST", f"{store}/demo?delete=", body)
    assert (status, refusal(answer)) == (400, ("MalformedXML", MESSAGE)), answer
    assert objects(client, prefix) == before
    assert client.get_object(Bucket="demo", Key=prefix + "x\ufffd")["Body"].read() == "x\ufffd".encode()


REFUSED_DELETES = {
    "an internal entity": lambda prefix: (f'<!DOCTYPE d [<!ENTITY k "{prefix}victim">]>'
                                          "<Delete><Object><Key>&k;</Key></Object></Delete>"),
    "an external entity": lambda prefix: ('<!DOCTYPE d [<!ENTITY k SYSTEM "file:///etc/hostname">]>'
                                          f"<Delete><Object><Key>{prefix}victim</Key></Object>"
                                          "<Object><Key>&k;</Key></Object></Delete>"),
    "10,000-deep nesting": lambda prefix: (f"<Delete><Object><Key>{prefix}victim</Key></Object>"
                                           + "<x>" * 10_000 + "</x>" * 10_000 + "</Delete>"),
    "1,001 keys": lambda prefix: "<Delete>" + f"<Object><Key>{prefix}victim</Key></Object>" * 1_001 + "</Delete>",
    "a tag left open": lambda prefix: f"<Delete><Object><Key>{prefix}victim</Key></Object>",
    "an undeclared entity": lambda prefix: f"<Delete><Object><Key>{prefix}victim&x;</Key></Object></Delete>",
    "another encoding": lambda prefix: ('<?xml version="1.0" encoding="ISO-8859-1"?>'
                                        f"<Delete><Object><Key>{prefix}victim</Key></Object></Delete>"),
    "another root's namespace": lambda prefix: (f'<Delete xmlns="urn:other"><Object><Key>{prefix}victim</Key>'
                                                "</Object></Delete>"),
    "17 attributes on a tag": lambda prefix: ("<Delete" + "".join(f' a{n}="1"' for n in range(17))
                                              + f"><Object><Key>{prefix}victim</Key></Object></Delete>"),
}


# What the journal's reason adds to S3's code and message (never in the answer).
REASONS = {"an internal entity": "a DOCTYPE", "an external entity": "a DOCTYPE",
           "10,000-deep nesting": "elements nested deeper than 16", "an undeclared entity": "libxml2 error 26",
           "another encoding": "an encoding other than UTF-8",
           "17 attributes on a tag": "a start tag with more than 16 attributes"}


@pytest.mark.parametrize("name", REFUSED_DELETES)
def test_a_document_s3_refuses_deletes_nothing(store, name):
    client = s3(store)
    prefix = fresh(client, "victim")
    before = objects(client, prefix)
    status, answer = signed("POST", f"{store}/demo?delete=", REFUSED_DELETES[name](prefix).encode())
    assert (status, refusal(answer)) == (400, ("MalformedXML", MESSAGE)), answer
    assert objects(client, prefix) == before
    entry = next(entry for entry in reversed(journal(store)) if entry["method"] == "POST")
    assert entry["reason"].startswith("MalformedXML: " + MESSAGE) and REASONS.get(name, "") in entry["reason"]


@pytest.mark.parametrize("root", ["<Delete>", f'<Delete xmlns="{NAMESPACE}">', f'<s3:Delete xmlns:s3="{NAMESPACE}">'])
def test_the_root_with_s3s_namespace_or_none(store, root):
    client = s3(store)
    prefix = fresh(client, "one", "two")
    inner = f"<Object><Key>{prefix}one</Key></Object>"
    if root.startswith("<s3:"):
        inner, end = inner.replace("<", "<s3:").replace("<s3:/", "</s3:"), "</s3:Delete>"
    else:
        end = "</Delete>"
    status, answer = signed("POST", f"{store}/demo?delete=", (root + inner + end).encode())
    assert status == 200, answer
    assert list(objects(client, prefix)) == [prefix + "two"]


def test_boto3_deletes_as_before(store):
    client = s3(store)
    prefix = fresh(client, "a b&c.jpg", "<draft>.txt", "kept")
    answer = client.delete_objects(Bucket="demo", Delete={"Objects": [{"Key": prefix + "a b&c.jpg"},
                                                                      {"Key": prefix + "<draft>.txt"}]})
    assert sorted(item["Key"] for item in answer["Deleted"]) == [prefix + "<draft>.txt", prefix + "a b&c.jpg"]
    assert list(objects(client, prefix)) == [prefix + "kept"]


# MARK: - CompleteMultipartUpload and the notification configuration (memory store)


def open_upload(client, key: str) -> tuple[str, str]:
    upload = client.create_multipart_upload(Bucket="demo", Key=key)["UploadId"]
    etag = client.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=1, Body=b"only part")["ETag"]
    return upload, etag


REFUSED_COMPLETIONS = {
    "an entity": lambda etag: ('<!DOCTYPE c [<!ENTITY n "1">]><CompleteMultipartUpload><Part>'
                               f"<PartNumber>&n;</PartNumber><ETag>{etag}</ETag></Part></CompleteMultipartUpload>"),
    "10,000-deep nesting": lambda etag: ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber>"
                                         f"<ETag>{etag}</ETag>" + "<x>" * 10_000 + "</x>" * 10_000
                                         + "</Part></CompleteMultipartUpload>"),
    "a commented-out part": lambda etag: (f"<CompleteMultipartUpload><!--<Part><PartNumber>1</PartNumber>"
                                          f"<ETag>{etag}</ETag></Part>--></CompleteMultipartUpload>"),
}


@pytest.mark.parametrize("name", [*REFUSED_COMPLETIONS, "bytes that are not UTF-8"])
def test_a_completion_s3_refuses_completes_nothing_and_keeps_the_upload(server, name):
    client = s3(server)
    key = f"xml/{uuid.uuid4().hex}/big.bin"
    upload, etag = open_upload(client, key)
    if name in REFUSED_COMPLETIONS:
        body = REFUSED_COMPLETIONS[name](etag).encode()
    else:
        body = (b"<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + etag.encode()
                + b"\xff</ETag></Part></CompleteMultipartUpload>")
    status, answer = signed("POST", f"{server}/demo/{key}?uploadId={upload}", body, md5=False)
    assert (status, refusal(answer)) == (400, ("MalformedXML", MESSAGE)), answer
    assert objects(client, key) == {}
    assert [part["PartNumber"] for part in client.list_parts(Bucket="demo", Key=key, UploadId=upload)["Parts"]] == [1]


@pytest.mark.parametrize("root", ["<CompleteMultipartUpload>", f'<CompleteMultipartUpload xmlns="{NAMESPACE}">'])
def test_a_completion_with_s3s_namespace_or_none_and_a_cdata_etag(server, root):
    client = s3(server)
    key = f"xml/{uuid.uuid4().hex}/big.bin"
    upload, etag = open_upload(client, key)
    body = (f"{root}<!-- one part --><Part><PartNumber> 1 </PartNumber><ETag><![CDATA[{etag}]]></ETag></Part>"
            "</CompleteMultipartUpload>").encode()
    status, answer = signed("POST", f"{server}/demo/{key}?uploadId={upload}", body, md5=False)
    assert status == 200, answer
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"only part"


QUEUE = "arn:aws:sqs:us-east-1:444455556666:s3notificationqueue"


def configure(client) -> dict:
    client.put_bucket_notification_configuration(Bucket="demo", NotificationConfiguration={
        "QueueConfigurations": [{"Id": "kept", "QueueArn": QUEUE, "Events": ["s3:ObjectCreated:*"]}]})
    configuration = client.get_bucket_notification_configuration(Bucket="demo")
    configuration.pop("ResponseMetadata")
    return configuration


@pytest.mark.parametrize("document", [
    b'<!DOCTYPE n [<!ENTITY q "' + QUEUE.encode() + b'">]><NotificationConfiguration><QueueConfiguration>'
    b"<Queue>&q;</Queue><Event>s3:ObjectCreated:*</Event></QueueConfiguration></NotificationConfiguration>",
    b"<NotificationConfiguration>" + b"<x>" * 10_000 + b"</x>" * 10_000 + b"</NotificationConfiguration>",
    b"<NotificationConfiguration><QueueConfiguration><Id>x\xff</Id><Queue>" + QUEUE.encode()
    + b"</Queue><Event>s3:ObjectCreated:*</Event></QueueConfiguration></NotificationConfiguration>",
], ids=["an entity", "10,000-deep nesting", "bytes that are not UTF-8"])
def test_a_notification_configuration_s3_refuses_changes_nothing(server, document):
    client = s3(server)
    before = configure(client)
    status, answer = signed("PUT", f"{server}/demo?notification=", document)
    assert (status, refusal(answer)) == (400, ("MalformedXML", MESSAGE)), answer
    after = client.get_bucket_notification_configuration(Bucket="demo")
    after.pop("ResponseMetadata")
    assert after == before


def test_the_notification_configuration_awss_guide_shows_is_read_without_a_namespace(server):
    client = s3(server)
    configure(client)
    # From AWS's guide to key name filtering, with its comment kept: nothing in a comment is configured.
    document = f"""<NotificationConfiguration>
      <!-- <TopicConfiguration><Topic>arn:aws:sns:us-east-1:1:never</Topic></TopicConfiguration> -->
      <QueueConfiguration>
          <Id>1</Id>
          <Filter>
              <S3Key>
                  <FilterRule><Name>prefix</Name><Value>images/</Value></FilterRule>
                  <FilterRule><Name>suffix</Name><Value>.jpg</Value></FilterRule>
              </S3Key>
         </Filter>
         <Queue>{QUEUE}</Queue>
         <Event>s3:ObjectCreated:Put</Event>
      </QueueConfiguration>
    </NotificationConfiguration>""".encode()
    status, answer = signed("PUT", f"{server}/demo?notification=", document)
    assert status == 200, answer
    configuration = client.get_bucket_notification_configuration(Bucket="demo")
    assert "TopicConfigurations" not in configuration
    assert configuration["QueueConfigurations"] == [{
        "Id": "1", "QueueArn": QUEUE, "Events": ["s3:ObjectCreated:Put"],
        "Filter": {"Key": {"FilterRules": [{"Name": "Prefix", "Value": "images/"},
                                           {"Name": "Suffix", "Value": ".jpg"}]}}}]
