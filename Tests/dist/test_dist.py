"""The `make dist` tarball runs on its own: unpacked into an empty folder outside the checkout, its binary
starts from there with the fixtures it carries, answers health, serves a fixture to a signed read (a FAT
minted by the server), resizes it (libMockCDNVips next to the binary), and serves its OpenAPI document
(its resources). `make dist` runs this after it builds the tarball (MOCKCDN_DIST names it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def fetch(url: str, headers: dict | None = None, body: bytes | None = None, method: str = "GET"):
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_tarball_runs_from_an_empty_folder():
    tarball = Path(os.environ["MOCKCDN_DIST"]).resolve()
    folder = Path(tempfile.mkdtemp(prefix="mockcdn-dist-"))
    try:
        assert not str(folder).startswith(str(REPO))
        with tarfile.open(tarball) as archive:
            archive.extractall(folder, filter="data")
        (root,) = folder.iterdir()
        assert (root / "README.txt").read_text().count("libvips42 libssl3 ffmpeg") == 1
        process = subprocess.Popen([str(root / "bin" / "mockcdn"), "serve", "--port", "0", "--fixtures",
                                    str(root / "share" / "fixtures")], cwd=folder, stdout=subprocess.PIPE,
                                   text=True, env={"PATH": "/usr/bin:/bin"})
        try:
            match = re.match(r"mockcdn ready on (http://\S+)", process.stdout.readline())
            assert match
            base = match.group(1)
            assert fetch(base + "/_mockcdn/health")[0] == 200
            status, body = fetch(base + "/_mockcdn/tokens", {"Content-Type": "application/json"},
                                 json.dumps({"kind": "fat", "user_id": "alice"}).encode(), "POST")
            assert status == 200, body
            fat = json.loads(body)["token"]
            sample = (root / "share" / "fixtures" / "sample.png").read_bytes()
            assert fetch(base + "/demo/fixtures/sample.png")[0] == 401
            assert fetch(base + "/demo/fixtures/sample.png", {"fat": fat}) == (200, sample)
            status, body = fetch(base + "/demo/fixtures/sample.png?w=32&h=32", {"fat": fat})
            assert status == 200 and body.startswith(b"\x89PNG") and body != sample
            assert fetch(base + "/_mockcdn/openapi.yaml")[1].startswith(b"openapi: 3.1")
        finally:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=20) == 0
    finally:
        shutil.rmtree(folder)
