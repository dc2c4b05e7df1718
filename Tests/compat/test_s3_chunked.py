"""aws-chunked PutObject bodies: each chunk's signature checked in its chain, the trailer's too, the decoded
length held to `x-amz-decoded-content-length`, and the framing never stored. A refused body stores nothing.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_chunked.py``.
"""

from __future__ import annotations

import uuid
import xml.etree.ElementTree as ET

import pytest

from s3support import HeaderSigner, crc32, journal, s3

SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER"
UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER"
DATA = bytes(range(256)) * 600  # 153,600 bytes: three chunks of 64 KiB and a short last one


def code(answer: bytes) -> str:
    return ET.fromstring(answer).findtext("Code")


def stored(server: str, key: str) -> bytes | None:
    client = s3(server)
    try:
        return client.get_object(Bucket="demo", Key=key)["Body"].read()
    except client.exceptions.NoSuchKey:
        return None


@pytest.mark.parametrize("mode", [SIGNED, SIGNED_TRAILER, UNSIGNED_TRAILER])
def test_each_mode_stores_the_payload_without_its_framing(server, mode):
    key = f"chunked/{uuid.uuid4()}.bin"
    trailer = ("x-amz-checksum-crc32", crc32(DATA)) if mode != SIGNED else None
    status, answer, headers = HeaderSigner().put(f"{server}/demo/{key}", DATA, mode, trailer=trailer)
    assert status == 200, answer
    assert stored(server, key) == DATA
    entry = [entry for entry in journal(server) if entry["path"] == f"/demo/{key}"][0]
    assert entry["credential"] == "s3-header-sigv4" and entry["status"] == 200


def _flip(offset: int):
    def tamper(body: bytes) -> bytes:
        return body[:offset] + bytes([body[offset] ^ 1]) + body[offset + 1:]
    return tamper


@pytest.mark.parametrize("case, mode, expected", [
    ("tampered data byte", SIGNED, (403, "SignatureDoesNotMatch")),
    ("tampered data byte", SIGNED_TRAILER, (403, "SignatureDoesNotMatch")),
    ("tampered trailer", SIGNED_TRAILER, (403, "SignatureDoesNotMatch")),
    ("wrong secret", SIGNED, (403, "SignatureDoesNotMatch")),
    ("short body", SIGNED, (400, "IncompleteBody")),
    ("small chunks", SIGNED, (403, "InvalidChunkSizeError")),
    ("SigV4a", "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD", (501, "NotImplemented")),
])
def test_refused_bodies_store_nothing_and_keep_the_object_there(server, case, mode, expected):
    key = f"chunked/{uuid.uuid4()}.bin"
    client = s3(server)
    client.put_object(Bucket="demo", Key=key, Body=b"kept")
    signer = HeaderSigner(secret="not-the-secret") if case == "wrong secret" else HeaderSigner()
    options = {}
    if mode != SIGNED:
        options["trailer"] = ("x-amz-checksum-crc32", crc32(DATA))
    if case == "tampered data byte":
        options["tamper"] = _flip(200_000 // 2)
    elif case == "tampered trailer":
        options["tamper"] = lambda body: body.replace(crc32(DATA).encode(), crc32(b"other").encode())
    elif case == "short body":
        options["tamper"] = lambda body: body[: len(body) // 2]
    elif case == "small chunks":
        options["chunk_size"] = 1000
    status, answer, _ = signer.put(f"{server}/demo/{key}", DATA, mode, **options)
    assert (status, code(answer)) == expected, answer
    assert stored(server, key) == b"kept"
