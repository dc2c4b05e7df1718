"""Decompression and pixel bombs against the real binary: image headers that claim 60000x60000 pixels
are refused with 422 from the header alone, and the server's peak RSS (VmHWM) stays within its idle RSS
plus 64 MiB; the originals stay readable.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
import zlib

import pytest

from support import request, upload

SIDE = 60000
BUDGET_KIB = 64 * 1024


def crafted_png(width: int, height: int) -> bytes:
    """A PNG whose IHDR claims width x height and whose pixel data is one empty zlib stream."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b"")


def crafted_jpeg(width: int, height: int) -> bytes:
    """SOI, a baseline SOF0 claiming width x height (one component), SOS, a few bytes, EOI."""
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00\x00\x3f\x00"
    return b"\xff\xd8" + sof + sos + b"\x00" * 16 + b"\xff\xd9"


@pytest.mark.parametrize(
    "name,data,content_type",
    [
        ("bomb.png", crafted_png(SIDE, SIDE), "image/png"),
        ("bomb.jpg", crafted_jpeg(SIDE, SIDE), "image/jpeg"),
    ],
)
def test_crafted_headers_are_refused_within_the_memory_budget(mockcdn, name, data, content_type):
    assert request(f"{mockcdn.url}/_mockcdn/health")[0] == 200
    idle = mockcdn.status("VmRSS")
    link = upload(mockcdn.url, "image", name, content_type, data)
    for query in ("&w=100&h=100", "&w=4096&h=4096&resize=crop", "&h=10&resize=fill"):
        status, body, _ = request(link + query)
        assert status == 422, body
        root = ET.fromstring(body)
        assert root.findtext("Code") == "ImageTooLarge", body
        assert str(SIDE * SIDE) in root.findtext("Message"), body
    status, body, _ = request(link)
    assert status == 200 and body == data
    peak = mockcdn.status("VmHWM")
    assert peak < idle + BUDGET_KIB, f"peak RSS {peak} KiB, idle {idle} KiB"
