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

from s3support import HeaderSigner, crc32, refused, s3
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
