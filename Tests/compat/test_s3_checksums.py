"""Checksums as S3 does them: boto3's default CRC32 and the CRC64NVME it sends when asked, `Content-MD5`,
checksum trailers, and the stored checksum given back with `ChecksumMode`. A body that does not match its
claim is 400 `BadDigest` and stores nothing; a claim that is no checksum is 400 `InvalidDigest` or
`InvalidRequest`. The ETag of a single PUT is the MD5 of its bytes, as on S3.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_checksums.py``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from s3support import HeaderSigner, code_of, crc32, refused, s3
from support import API_KEY, API_SECRET, REPO, request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")

DATA = b"checksummed bytes " * 1000


def crc64nvme(data: bytes) -> str:
    """CRC-64/NVME bit by bit (reflected 0x9a6c9329ac4bc9b5, all ones in and out): slow, and independent of the
    table-driven C that MockCDN runs."""
    crc = 0xFFFFFFFFFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x9A6C9329AC4BC9B5 if crc & 1 else 0)
    return base64.b64encode((crc ^ 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big")).decode()


CRT_PUT = """
import json, sys
import boto3
from awscrt import checksums
client = boto3.session.Session().client("s3", endpoint_url=sys.argv[1], aws_access_key_id=sys.argv[2],
                                        aws_secret_access_key=sys.argv[3])
data = sys.argv[5].encode()
answer = client.put_object(Bucket="demo", Key=sys.argv[4], Body=data, ChecksumAlgorithm=sys.argv[6])
print(json.dumps({"answer": answer.get("Checksum" + sys.argv[6]), "crt": sys.argv[6]}))
"""


@pytest.mark.parametrize("algorithm", ["CRC64NVME", "CRC32C"])
def test_boto3_with_awscrt_sends_crc64nvme_and_crc32c(server, algorithm):
    """boto3 computes CRC64NVME and CRC32C only with awscrt (`pip install boto3[crt]`), which also moves it to
    the CRT signer: run as its users run it, in a process that can import it (make puts it in .venv/crt)."""
    key, text = fresh_key(), "crt bytes " * 500
    crt = REPO / ".venv" / "crt"
    if not (crt / "awscrt").is_dir():
        pytest.fail(f"awscrt is missing from {crt}: `make py-deps` installs it")
    run = subprocess.run([sys.executable, "-c", CRT_PUT, server, API_KEY, API_SECRET, key, text, algorithm],
                         env={**os.environ, "PYTHONPATH": str(crt)}, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)["answer"]
    head = s3(server).head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert head["Checksum" + algorithm] == answer
    if algorithm == "CRC64NVME":
        assert answer == crc64nvme(text.encode())


def fresh_key() -> str:
    return f"sums/{uuid.uuid4()}.bin"


def test_boto3_default_crc32_is_checked_kept_and_given_back(server):
    client, key = s3(server), fresh_key()
    sent = []
    client.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(request.headers))
    answer = client.put_object(Bucket="demo", Key=key, Body=DATA)
    assert sent[0]["x-amz-checksum-crc32"].decode() == crc32(DATA), "boto3's default"
    assert answer["ChecksumCRC32"] == crc32(DATA)
    assert answer["ETag"] == '"' + hashlib.md5(DATA).hexdigest() + '"'
    head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert head["ChecksumCRC32"] == crc32(DATA) and head["ResponseMetadata"]["HTTPHeaders"][
        "x-amz-checksum-type"] == "FULL_OBJECT"
    got = client.get_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert got["Body"].read() == DATA and got["ChecksumCRC32"] == crc32(DATA)
    assert "ChecksumCRC32" not in client.head_object(Bucket="demo", Key=key), "only when asked"


def test_crc64nvme_without_a_claim(server):
    # A presigned PUT claims nothing: S3 keeps a CRC64NVME of it all the same.
    client, other = s3(server), fresh_key()
    url = client.generate_presigned_url("put_object", Params={"Bucket": "demo", "Key": other,
                                                              "ContentType": "text/plain"}, ExpiresIn=300)
    assert request(url, "PUT", DATA, {"Content-Type": "text/plain"})[0] == 200
    assert client.head_object(Bucket="demo", Key=other, ChecksumMode="ENABLED")["ChecksumCRC64NVME"] == crc64nvme(DATA)


def _claim(header: str, value: str):
    def change(request, **_):
        # botocore's headers append on assignment: the claim is replaced, not doubled.
        del request.headers[header]
        request.headers[header] = value
    return change


@pytest.mark.parametrize("header, value, expected", [
    ("x-amz-checksum-crc32", crc32(b"other bytes"), (400, "BadDigest")),
    ("x-amz-checksum-crc32", "not base64!", (400, "InvalidRequest")),
    ("Content-MD5", base64.b64encode(hashlib.md5(b"other").digest()).decode(), (400, "BadDigest")),
    ("Content-MD5", "bm90IGFuIE1ENQ==", (400, "InvalidDigest")),
])
def test_a_wrong_claim_stores_nothing(server, header, value, expected):
    client, key = s3(server), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"kept")
    # botocore retries a BadDigest four times with backoff (its `contentmd5` policy): once is enough here.
    wrong = s3(server, config=Config(retries={"max_attempts": 1}))
    # Before botocore signs: the claim is signed, as a client that computed it wrongly signs it.
    wrong.meta.events.register("before-sign.s3.PutObject", _claim(header, value))
    assert refused(lambda: wrong.put_object(Bucket="demo", Key=key, Body=DATA)) == expected
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"kept"


@pytest.mark.parametrize("signature_version", ["s3v4", "s3"])
def test_a_presigned_put_with_a_signed_checksum_that_does_not_match_is_bad_digest(server, signature_version):
    client, key = s3(server, config=Config(signature_version=signature_version)), fresh_key()
    claim = crc32(b"something else")
    url = client.generate_presigned_url("put_object", Params={"Bucket": "demo", "Key": key, "ContentType": "text/plain",
                                                              "ChecksumCRC32": claim}, ExpiresIn=300)
    # SigV4 signs the claim as a header the PUT must send; SigV2 hoists it into the query.
    headers = {"Content-Type": "text/plain"}
    if signature_version == "s3v4":
        assert "x-amz-checksum-crc32" in url
        headers["x-amz-checksum-crc32"] = claim
    status, body, _ = request(url, "PUT", DATA, headers)
    assert (status, ET.fromstring(body).findtext("Code")) == (400, "BadDigest"), body
    assert refused(lambda: s3(server).head_object(Bucket="demo", Key=key))[0] == 404


def test_a_trailer_checksum_that_does_not_match_is_bad_digest(server):
    key = fresh_key()
    status, body, _ = HeaderSigner().put(f"{server}/demo/{key}", DATA, "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
                                         chunk_size=8192, trailer=("x-amz-checksum-crc32", crc32(b"other")))
    assert (status, ET.fromstring(body).findtext("Code")) == (400, "BadDigest"), body
    assert refused(lambda: s3(server).head_object(Bucket="demo", Key=key))[0] == 404
    # The trailer that x-amz-trailer announced must come.
    status, body, _ = HeaderSigner().put(f"{server}/demo/{key}", DATA, "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
                                         chunk_size=8192, trailer=("x-amz-checksum-crc32", crc32(DATA)),
                                         tamper=lambda framed: framed.replace(b"x-amz-checksum-crc32:", b"x-amz-other:"))
    assert status == 400, body
    assert refused(lambda: s3(server).head_object(Bucket="demo", Key=key))[0] == 404


def test_a_batch_delete_needs_its_digest(server):
    client, key = s3(server), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"k")
    body = f"<Delete><Object><Key>{key}</Key></Object></Delete>".encode()
    status, answer, _ = HeaderSigner().send("POST", f"{server}/demo?delete=", body)
    assert (status, ET.fromstring(answer).findtext("Code")) == (400, "InvalidRequest"), answer
    status, answer, _ = HeaderSigner().send("POST", f"{server}/demo?delete=", body,
                                            {"x-amz-checksum-crc32": crc32(b"other")})
    assert (status, ET.fromstring(answer).findtext("Code")) == (400, "BadDigest"), answer
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"k"


# --- The five algorithms S3 added on 2026-04-22 -------------------------------------------------------------

def b64(digest: bytes) -> str:
    return base64.b64encode(digest).decode()


def sha512(data: bytes) -> str:
    return b64(hashlib.sha512(data).digest())


def md5(data: bytes) -> str:
    return b64(hashlib.md5(data).digest())


def test_sha512_put_is_kept_echoed_and_a_wrong_one_is_bad_digest(server):
    """botocore computes SHA512 itself (hashlib): a good value stored and given back, a wrong one refused."""
    client, key = s3(server), fresh_key()
    sent = []
    client.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(request.headers))
    answer = client.put_object(Bucket="demo", Key=key, Body=DATA, ChecksumAlgorithm="SHA512")
    assert sent[0]["x-amz-checksum-sha512"].decode() == sha512(DATA)
    assert answer["ChecksumSHA512"] == sha512(DATA)
    head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert head["ChecksumSHA512"] == sha512(DATA) and head["ChecksumType"] == "FULL_OBJECT"
    # botocore checks the body it reads against the SHA512 it is given.
    got = client.get_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert got["Body"].read() == DATA and got["ChecksumSHA512"] == sha512(DATA)
    wrong = s3(server, config=Config(retries={"max_attempts": 1}))
    other = fresh_key()
    assert refused(lambda: wrong.put_object(Bucket="demo", Key=other, Body=DATA,
                                            ChecksumSHA512=sha512(b"other bytes"))) == (400, "BadDigest")
    assert refused(lambda: client.head_object(Bucket="demo", Key=other))[0] == 404
    # Over a kept object: it stays as it was.
    assert refused(lambda: wrong.put_object(Bucket="demo", Key=key, Body=b"replacement",
                                            ChecksumSHA512=sha512(DATA))) == (400, "BadDigest")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == DATA


def test_md5_checksum_put_is_kept_echoed_and_a_wrong_one_is_bad_digest(server):
    """botocore has no MD5 flexible checksum of its own; a caller hands it `ChecksumMD5`, which it sends as
    `x-amz-checksum-md5` (and then computes no other)."""
    client, key = s3(server), fresh_key()
    answer = client.put_object(Bucket="demo", Key=key, Body=DATA, ChecksumMD5=md5(DATA))
    assert answer["ChecksumMD5"] == md5(DATA) and answer["ETag"] == '"' + hashlib.md5(DATA).hexdigest() + '"'
    head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert head["ChecksumMD5"] == md5(DATA)
    wrong, other = s3(server, config=Config(retries={"max_attempts": 1})), fresh_key()
    assert refused(lambda: wrong.put_object(Bucket="demo", Key=other, Body=DATA,
                                            ChecksumMD5=md5(b"other"))) == (400, "BadDigest")
    assert refused(lambda: client.head_object(Bucket="demo", Key=other))[0] == 404


CRT_XXHASH = """
import base64, json, sys
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from botocore.exceptions import ClientError
from awscrt import checksums
endpoint, key_id, secret, key, algorithm = sys.argv[1:6]
client = boto3.session.Session().client("s3", endpoint_url=endpoint, aws_access_key_id=key_id,
                                        aws_secret_access_key=secret)
data = b"xxhashed bytes " * 700
sent = []
client.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(dict(request.headers)))
answer = client.put_object(Bucket="demo", Key=key, Body=data, ChecksumAlgorithm=algorithm)
head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
got = client.get_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
body = got["Body"].read()
member = "Checksum" + algorithm
wrong = boto3.session.Session().client("s3", endpoint_url=endpoint, aws_access_key_id=key_id,
                                       aws_secret_access_key=secret, config=Config(retries={"max_attempts": 1}))
try:
    wrong.put_object(Bucket="demo", Key=key + ".wrong", Body=data, ChecksumAlgorithm=algorithm,
                     **{member: base64.b64encode(bytes(len(base64.b64decode(answer[member])))).decode()})
    refusal = None
except ClientError as error:
    refusal = [error.response["ResponseMetadata"]["HTTPStatusCode"], error.response["Error"]["Code"]]
header = "x-amz-checksum-" + algorithm.lower()
print(json.dumps({"sent": sent[0].get(header).decode() if isinstance(sent[0].get(header), bytes)
                  else sent[0].get(header), "answer": answer.get(member), "head": head.get(member),
                  "type": head.get("ChecksumType"), "get": got.get(member), "same": body == data,
                  "refusal": refusal}))
"""


def xxhash(algorithm: str, data: bytes) -> str:
    """The xxHash awscrt computes (botocore's, through the CRT): an independent implementation of MockCDN's."""
    sys.path.insert(0, str(REPO / ".venv" / "crt"))
    try:
        from awscrt import checksums
    finally:
        sys.path.pop(0)
    make = {"XXHASH64": checksums.XXHash.new_xxhash64, "XXHASH3": checksums.XXHash.new_xxhash3_64,
            "XXHASH128": checksums.XXHash.new_xxhash3_128}[algorithm]
    running = make()
    running.update(data)
    return b64(running.finalize())


@pytest.mark.parametrize("algorithm", ["XXHASH64", "XXHASH3", "XXHASH128"])
def test_botocore_crt_xxhash_put_is_kept_echoed_and_a_wrong_one_is_bad_digest(server, algorithm):
    """botocore computes the XXHASH ones only through the CRT (`botocore[crt]`): run in a process that can
    import awscrt, as its users run it."""
    key, crt = fresh_key(), REPO / ".venv" / "crt"
    if not (crt / "awscrt").is_dir():
        pytest.fail(f"awscrt is missing from {crt}: `make py-deps` installs it")
    run = subprocess.run([sys.executable, "-c", CRT_XXHASH, server, API_KEY, API_SECRET, key, algorithm],
                         env={**os.environ, "PYTHONPATH": str(crt)}, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    expected = xxhash(algorithm, b"xxhashed bytes " * 700)
    assert result["sent"] == expected, "botocore sent the CRT's value"
    assert (result["answer"], result["head"], result["get"], result["type"]) == (expected, expected, expected,
                                                                                  "FULL_OBJECT")
    assert result["same"]
    assert result["refusal"] == [400, "BadDigest"]
    assert refused(lambda: s3(server).head_object(Bucket="demo", Key=key + ".wrong"))[0] == 404


@pytest.mark.parametrize("header, value", [
    ("x-amz-checksum-sha512", sha512(DATA)),
    ("x-amz-checksum-md5", md5(DATA)),
])
def test_2026_checksums_in_an_aws_chunked_trailer(server, header, value):
    """The trailer botocore sends over HTTPS (`STREAMING-UNSIGNED-PAYLOAD-TRAILER`): a good one kept, a wrong
    one BadDigest with nothing stored."""
    key = fresh_key()
    status, body, headers = HeaderSigner().put(f"{server}/demo/{key}", DATA, "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
                                               chunk_size=8192, trailer=(header, value))
    assert status == 200, body
    member = "Checksum" + header.rsplit("-", 1)[1].upper()
    assert s3(server).head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")[member] == value
    other = fresh_key()
    status, body, _ = HeaderSigner().put(f"{server}/demo/{other}", DATA, "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
                                         chunk_size=8192, trailer=(header, md5(b"x") if "md5" in header
                                                                   else sha512(b"x")))
    assert (status, ET.fromstring(body).findtext("Code")) == (400, "BadDigest"), body
    assert refused(lambda: s3(server).head_object(Bucket="demo", Key=other))[0] == 404


def test_2026_checksums_in_a_post_form(server):
    from test_s3_post_policy import error_of, post, stored

    client = s3(server, config=Config(signature_version="s3v4"))
    data = b"posted and checked\n" * 200
    for field, good in [("x-amz-checksum-sha512", sha512(data)), ("x-amz-checksum-md5", md5(data)),
                        ("x-amz-checksum-xxhash128", xxhash("XXHASH128", data))]:
        key = fresh_key()
        form = client.generate_presigned_post("demo", key)
        status, body, headers = post(form["url"], {**form["fields"], field: good}, data)
        assert status == 204, body
        assert headers[field] == good
        member = "Checksum" + field.rsplit("-", 1)[1].upper()
        assert client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")[member] == good
        key = fresh_key()
        form = client.generate_presigned_post("demo", key)
        wrong = b64(bytes(len(base64.b64decode(good))))
        answer = post(form["url"], {**form["fields"], field: wrong}, data)
        assert error_of(*answer[:2])[:2] == (400, "BadDigest"), answer[1]
        assert stored(client, key) is None


# --- Multipart uploads created with a checksum ---------------------------------------------------------------

PART = 5 * 1024 * 1024


def test_multipart_sha512_completes_with_s3s_composite_checksum(each_store):
    """CreateMultipartUpload with SHA512 answers its algorithm and type; each part's SHA512 is checked, kept,
    answered and listed; the object's checksum is S3's composite: the SHA-512 of the parts' binary SHA-512s one
    after another, base64, `-2`, computed here with hashlib. On each store (memory, disk, S3 on moto)."""
    client, key = s3(each_store), fresh_key()
    parts = [bytes([7]) * PART, b"the last, short part"]
    created = client.create_multipart_upload(Bucket="demo", Key=key, ChecksumAlgorithm="SHA512")
    assert (created["ChecksumAlgorithm"], created["ChecksumType"]) == ("SHA512", "COMPOSITE")
    upload = created["UploadId"]
    done = []
    for number, data in enumerate(parts, 1):
        answer = client.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=number, Body=data,
                                    ChecksumAlgorithm="SHA512")
        assert answer["ChecksumSHA512"] == sha512(data)
        done.append({"PartNumber": number, "ETag": answer["ETag"], "ChecksumSHA512": answer["ChecksumSHA512"]})
    listed = client.list_parts(Bucket="demo", Key=key, UploadId=upload)
    assert (listed["ChecksumAlgorithm"], listed["ChecksumType"]) == ("SHA512", "COMPOSITE")
    assert [part["ChecksumSHA512"] for part in listed["Parts"]] == [sha512(data) for data in parts]
    uploads = client.list_multipart_uploads(Bucket="demo", Prefix=key)["Uploads"]
    assert (uploads[0]["ChecksumAlgorithm"], uploads[0]["ChecksumType"]) == ("SHA512", "COMPOSITE")
    composite = b64(hashlib.sha512(b"".join(hashlib.sha512(data).digest() for data in parts)).digest()) + "-2"
    completed = client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload,
                                                 MultipartUpload={"Parts": done})
    assert (completed["ChecksumSHA512"], completed["ChecksumType"]) == (composite, "COMPOSITE")
    head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert (head["ChecksumSHA512"], head["ChecksumType"]) == (composite, "COMPOSITE")
    # botocore does not check a composite value against the body (it is no checksum of the bytes).
    got = client.get_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert got["Body"].read() == b"".join(parts) and got["ChecksumSHA512"] == composite


def test_multipart_checksum_refusals_store_nothing(server):
    client, key = s3(server), fresh_key()
    once = s3(server, config=Config(retries={"max_attempts": 1}))
    # A type the algorithm does not have, a type alone, an algorithm S3 does not have.
    for arguments, message in [({"ChecksumAlgorithm": "SHA512", "ChecksumType": "FULL_OBJECT"}, "FULL_OBJECT"),
                               ({"ChecksumAlgorithm": "CRC64NVME", "ChecksumType": "COMPOSITE"}, "COMPOSITE")]:
        with pytest.raises(ClientError) as refusal:
            once.create_multipart_upload(Bucket="demo", Key=key, **arguments)
        assert code_of(refusal.value) == (400, "InvalidRequest") and message in str(refusal.value)
    status, body, _ = HeaderSigner().send("POST", f"{server}/demo/{key}?uploads=", b"",
                                          {"x-amz-checksum-type": "COMPOSITE"})
    assert (status, ET.fromstring(body).findtext("Code")) == (400, "InvalidRequest"), body
    status, body, _ = HeaderSigner().send("POST", f"{server}/demo/{key}?uploads=", b"",
                                          {"x-amz-checksum-algorithm": "MD4"})
    assert (status, ET.fromstring(body).findtext("Code")) == (400, "InvalidRequest"), body
    assert client.list_multipart_uploads(Bucket="demo", Prefix=key).get("Uploads", []) == []

    upload = client.create_multipart_upload(Bucket="demo", Key=key, ChecksumAlgorithm="SHA512")["UploadId"]
    data = b"a single part"
    # Another algorithm's checksum (botocore's default CRC32) and a wrong SHA512: nothing kept.
    with pytest.raises(ClientError) as refusal:
        once.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=1, Body=data)
    assert code_of(refusal.value) == (400, "InvalidRequest")
    assert "expected checksum Type: sha512, actual checksum Type: crc32" in str(refusal.value)
    assert refused(lambda: once.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=1, Body=data,
                                            ChecksumSHA512=sha512(b"other"))) == (400, "BadDigest")
    # No checksum at all, for a composite upload.
    url = client.generate_presigned_url("upload_part", Params={"Bucket": "demo", "Key": key, "UploadId": upload,
                                                               "PartNumber": 1}, ExpiresIn=300)
    status, body, _ = HeaderSigner.send_as_is("PUT", url, data)
    assert (status, ET.fromstring(body).findtext("Code")) == (400, "InvalidRequest"), body
    assert b"actual checksum Type: null" in body
    assert client.list_parts(Bucket="demo", Key=key, UploadId=upload).get("Parts", []) == []

    answer = client.upload_part(Bucket="demo", Key=key, UploadId=upload, PartNumber=1, Body=data,
                                ChecksumAlgorithm="SHA512")
    # The completion must name each part's checksum, and the right one.
    for part, expected in [({}, (400, "InvalidRequest")), ({"ChecksumSHA512": sha512(b"other")}, (400, "InvalidPart"))]:
        document = {"Parts": [{"PartNumber": 1, "ETag": answer["ETag"], **part}]}
        assert refused(lambda: once.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload,
                                                              MultipartUpload=document)) == expected
        assert refused(lambda: client.head_object(Bucket="demo", Key=key))[0] == 404
    # A type that is not the upload's, and a claimed object checksum that is not the composite one.
    document = {"Parts": [{"PartNumber": 1, "ETag": answer["ETag"], "ChecksumSHA512": sha512(data)}]}
    assert refused(lambda: once.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload,
                                                          MultipartUpload=document,
                                                          ChecksumType="FULL_OBJECT")) == (400, "BadDigest")
    assert refused(lambda: once.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload,
                                                          MultipartUpload=document,
                                                          ChecksumSHA512=sha512(data) + "-1")) == (400, "BadDigest")
    assert refused(lambda: client.head_object(Bucket="demo", Key=key))[0] == 404
    composite = b64(hashlib.sha512(hashlib.sha512(data).digest()).digest()) + "-1"
    completed = client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload, MultipartUpload=document,
                                                 ChecksumSHA512=composite)
    assert completed["ChecksumSHA512"] == composite


def test_multipart_full_object_crc32_is_the_crc_of_every_byte(server):
    client, key = s3(server), fresh_key()
    parts = [bytes(range(256)) * (PART // 256), b"tail bytes"]
    created = client.create_multipart_upload(Bucket="demo", Key=key, ChecksumAlgorithm="CRC32",
                                             ChecksumType="FULL_OBJECT")
    assert (created["ChecksumAlgorithm"], created["ChecksumType"]) == ("CRC32", "FULL_OBJECT")
    done = []
    for number, data in enumerate(parts, 1):
        answer = client.upload_part(Bucket="demo", Key=key, UploadId=created["UploadId"], PartNumber=number,
                                    Body=data, ChecksumAlgorithm="CRC32")
        done.append({"PartNumber": number, "ETag": answer["ETag"], "ChecksumCRC32": answer["ChecksumCRC32"]})
    completed = client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=created["UploadId"],
                                                 MultipartUpload={"Parts": done})
    whole = crc32(b"".join(parts))
    assert (completed["ChecksumCRC32"], completed["ChecksumType"]) == (whole, "FULL_OBJECT")
    head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert (head["ChecksumCRC32"], head["ChecksumType"]) == (whole, "FULL_OBJECT")


def test_multipart_without_a_checksum_keeps_a_full_object_crc64nvme(server):
    """As S3 does since 2025 for every new object; boto3's upload_file asks for CRC32 itself."""
    client, key = s3(server), fresh_key()
    parts = [b"\1" * PART, b"end"]
    upload = client.create_multipart_upload(Bucket="demo", Key=key)["UploadId"]
    done = []
    for number, data in enumerate(parts, 1):
        url = client.generate_presigned_url("upload_part", Params={"Bucket": "demo", "Key": key, "UploadId": upload,
                                                                   "PartNumber": number}, ExpiresIn=300)
        status, body, headers = HeaderSigner.send_as_is("PUT", url, data)
        assert status == 200, body
        done.append({"PartNumber": number, "ETag": headers["ETag"]})
    completed = client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload,
                                                 MultipartUpload={"Parts": done})
    assert "ChecksumCRC64NVME" not in completed
    head = client.head_object(Bucket="demo", Key=key, ChecksumMode="ENABLED")
    assert (head["ChecksumCRC64NVME"], head["ChecksumType"]) == (crc64nvme(b"".join(parts)), "FULL_OBJECT")


@pytest.mark.parametrize("algorithm, length", [("CRC32", 4), ("CRC32C", 4), ("CRC64NVME", 8), ("SHA1", 20),
                                               ("SHA256", 32), ("SHA512", 64), ("MD5", 16), ("XXHASH64", 8),
                                               ("XXHASH3", 8), ("XXHASH128", 16)])
def test_every_algorithms_mismatch_is_bad_digest(server, algorithm, length):
    """S3 answers a well-formed checksum the body does not have with `BadDigest`, whatever the algorithm (the
    conformance run of issue 46 saw SHA-256 and CRC64NVME answered otherwise); botocore sends the value it is
    handed as it is."""
    client, key = s3(server, config=Config(retries={"max_attempts": 1})), fresh_key()
    wrong = b64(bytes(range(1, length + 1)))
    assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=DATA,
                                             **{"Checksum" + algorithm: wrong})) == (400, "BadDigest")
    assert refused(lambda: client.head_object(Bucket="demo", Key=key))[0] == 404
    # A value of another length is no checksum of its kind: S3's "Value for x-amz-checksum-... is invalid".
    assert refused(lambda: client.put_object(Bucket="demo", Key=key, Body=DATA,
                                             **{"Checksum" + algorithm: b64(bytes(length + 1))})) == (
        400, "InvalidRequest")
