"""The upload limit is 100 MiB, 104,857,600 bytes, on every upload route: Stream's and CometChat's docs say
"100MB", and Stream's iOS and Android SDKs check files against `100 * 1024 * 1024` before they send them,
so the server must take what they let through. The boundary byte is tested: exactly the limit is stored,
one byte more is 413 in the route's envelope, and nothing is kept.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import subprocess
import uuid

import pytest

from support import BINARY, jwt, multipart, request

LIMIT = 100 * 1024 * 1024


def send(server: str, path: str, size: int, headers: dict) -> tuple[int, bytes]:
    boundary = "limit" + uuid.uuid4().hex
    body = multipart([("file", "big.bin", "application/octet-stream", b"\0" * size)], boundary)
    status, answer, _ = request(server + path, "POST", body, {**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    return status, answer


def count(server: str) -> int:
    status, body, _ = request(
        f"{server}/channels/messaging/limit/uploads?api_key=demo-key&limit=1000", headers={"Authorization": jwt({"server": True})}
    )
    assert status == 200
    return len(json.loads(body)["uploads"])


@pytest.mark.parametrize("size,status", [(LIMIT, 201), (LIMIT + 1, 413)])
def test_stream_limit_boundary(server, size, status):
    before = count(server)
    got, answer = send(server, "/channels/messaging/limit/file?api_key=demo-key", size, {"Authorization": jwt()})
    assert got == status, answer[:300]
    if status == 413:
        envelope = json.loads(answer)
        assert envelope["code"] == 22 and envelope["StatusCode"] == 413
        assert "104857600" in envelope["message"]
        assert count(server) == before
    else:
        assert count(server) == before + 1


@pytest.mark.parametrize("size,status", [(LIMIT, 201), (LIMIT + 1, 413)])
def test_cometchat_limit_boundary(server, size, status):
    fat = subprocess.run([str(BINARY), "token", "fat", "--user-id", "alice"], capture_output=True, text=True, check=True).stdout.strip()
    got, answer = send(server, "/demo/media", size, {"fat": fat})
    assert got == status, answer[:300]
    if status == 413:
        assert json.loads(answer)["error"]["code"] == "ERR_FILE_SIZE_EXCEEDED"
