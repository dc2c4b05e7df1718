"""`mockcdn` copied away from what it loads at run time: its image worker `mockcdn-imaging` and
libMockCDNVips (libvips, which the worker loads, or the server itself when it has no worker) and its
resources (the OpenAPI document). Alone, it serves every read and answers each image operation 503 naming
the missing module, storing nothing; so does it with a worker that finds no module; with the module alone it
resizes in process, and with all of them next to it, it is whole again and resizes in a worker child."""

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


def children(pid: int) -> list[str]:
    """The names of `pid`'s child processes (a thread's spawn is the process's child too)."""
    names = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit():
                name, rest = (entry / "stat").read_text().split("(", 1)[1].rsplit(")", 1)
                if int(rest.split()[1]) == pid:
                    names.append(name)
        except (OSError, ValueError, IndexError):
            continue  # it ended while being read
    return names


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
    # The worker (scripts/build-server.sh's, which links no libvips) without the module: the same 503s.
    shutil.copy2(built / "mockcdn-imaging", tmp_path)
    with launch(binary=binary) as server:
        base = server.url
        status, body, _ = request(f"{base}/demo/fixtures/sample.png?w=10", headers={"fat": fat(base)})
        assert status == 503 and b"libMockCDNVips" in body, body
        status, body, _ = upload_image(base)
        assert status == 503 and "libMockCDNVips" in json.loads(body)["message"], body
        assert listed(base) == 0

    # The module without the worker: the server loads it itself.
    (tmp_path / "mockcdn-imaging").unlink()
    shutil.copy2(built / "libMockCDNVips.so", tmp_path)
    with launch(binary=binary) as server:
        status, body, _ = request(f"{server.url}/demo/fixtures/sample.png?w=10", headers={"fat": fat(server.url)})
        assert status == 200 and body.startswith(b"\x89PNG") and body != SAMPLE
        assert "libvips" in Path(f"/proc/{server.process.pid}/maps").read_text()

    shutil.copy2(built / "mockcdn-imaging", tmp_path)
    shutil.copytree(built / "MockCDN_MockCDNServer.resources", tmp_path / "MockCDN_MockCDNServer.resources")
    with launch(binary=binary) as server:
        base = server.url
        status, body, _ = request(f"{base}/demo/fixtures/sample.png?w=10", headers={"fat": fat(base)})
        assert status == 200 and body.startswith(b"\x89PNG") and body != SAMPLE
        status, body, _ = upload_image(base)
        assert status == 201, body
        assert listed(base) == 1
        # The resize and the upload's probe ran in a worker child; the server maps no libvips.
        assert "libvips" not in Path(f"/proc/{server.process.pid}/maps").read_text()
        assert "mockcdn-imaging" in children(server.process.pid)
        status, body, _ = request(f"{base}/_mockcdn/openapi.yaml")
        assert status == 200 and body == (REPO / "openapi.yaml").read_bytes()
