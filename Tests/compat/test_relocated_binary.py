"""`mockcdn` copied away from what it loads at run time: libMockCDNVips (libvips, loaded on the first image
operation) and its resources (the OpenAPI document). Alone, it serves every read and answers each image
operation 503 naming the missing module, storing nothing; with the two next to it, it is whole again."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

from conftest import launch
from support import API_KEY, BINARY, REPO, jwt, multipart, request

SAMPLE = (REPO / "Fixtures" / "media" / "sample.png").read_bytes()


def fat(base: str) -> str:
    status, body, _ = request(f"{base}/_mockcdn/tokens", "POST", json.dumps({"kind": "fat", "user_id": "alice"}).encode(),
                              {"Content-Type": "application/json"})
    assert status == 200, body
    return json.loads(body)["token"]


def upload_image(base: str):
    boundary = "relocated" + uuid.uuid4().hex
    return request(
        f"{base}/channels/messaging/general/image?api_key={API_KEY}",
        "POST",
        multipart([("file", "s.png", "image/png", SAMPLE)], boundary),
        {"Authorization": f"Bearer {jwt()}", "stream-auth-type": "jwt",
         "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )


def listed(base: str) -> int:
    status, body, _ = request(f"{base}/channels/messaging/general/uploads?api_key={API_KEY}",
                              headers={"Authorization": jwt({"server": True}), "stream-auth-type": "jwt"})
    return len(json.loads(body)["uploads"]) if status == 200 else 0


def test_alone_then_with_its_module_and_resources(tmp_path: Path):
    binary = tmp_path / "mockcdn"
    shutil.copy2(BINARY, binary)
    with launch(binary=binary) as server:
        base = server.url
        token = fat(base)
        status, body, _ = request(f"{base}/demo/fixtures/sample.png", headers={"fat": token})
        assert (status, body) == (200, SAMPLE)

        status, body, _ = request(f"{base}/demo/fixtures/sample.png?w=10", headers={"fat": token})
        assert status == 503 and b"<Code>ServiceUnavailable</Code>" in body, body
        assert b"libMockCDNVips" in body, body

        status, body, _ = upload_image(base)
        assert status == 503, body
        assert "libMockCDNVips" in json.loads(body)["message"], body
        assert listed(base) == 0

        status, body, _ = request(f"{base}/_mockcdn/openapi.yaml")
        assert status == 404 and "not installed" in json.loads(body)["error"]["message"], body

    built = BINARY.parent
    shutil.copy2(built / "libMockCDNVips.so", tmp_path)
    shutil.copytree(built / "MockCDN_MockCDNServer.resources", tmp_path / "MockCDN_MockCDNServer.resources")
    with launch(binary=binary) as server:
        base = server.url
        status, body, _ = request(f"{base}/demo/fixtures/sample.png?w=10", headers={"fat": fat(base)})
        assert status == 200 and body.startswith(b"\x89PNG") and body != SAMPLE
        status, body, _ = upload_image(base)
        assert status == 201, body
        assert listed(base) == 1
        status, body, _ = request(f"{base}/_mockcdn/openapi.yaml")
        assert status == 200 and body == (REPO / "openapi.yaml").read_bytes()
