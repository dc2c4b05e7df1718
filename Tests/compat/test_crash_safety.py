"""Crash safety of the disk store, against the real binary: a `--data-dir` server under 32 concurrent uploads
is killed with SIGKILL at a random moment, 20 times. After each restart every upload that was answered
201 reads back byte-identical (SHA-256), everything the channel lists is whole (byte-identical to what was
sent under that name), and no temporary file is left.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid

from support import BINARY, eventually, jwt, request

CYCLES = 20
UPLOADS = 32


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(data_dir: str, port: int):
    # One port for every restart: the links MockCDN signed name it.
    process = subprocess.Popen(
        [str(BINARY), "serve", "--port", str(port), "--log-level", "error", "--fixtures", "none", "--data-dir", data_dir],
        stdout=subprocess.PIPE,
        text=True,
    )
    match = re.match(r"mockcdn ready on (http://127\.0\.0\.1:\d+)", process.stdout.readline())
    assert match, f"mockcdn did not start (exit {process.poll()})"
    return process, match.group(1)


def upload(base: str, name: str, data: bytes, results: dict, lock: threading.Lock) -> None:
    boundary = "crash" + uuid.uuid4().hex
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
        f"Content-Type: application/octet-stream\r\n\r\n"
    ).encode() + data + f"\r\n--{boundary}--\r\n".encode()
    try:
        status, answer, _ = request(
            f"{base}/channels/messaging/crash/file?api_key=demo-key",
            "POST",
            body,
            {"Authorization": jwt(), "Content-Type": f"multipart/form-data; boundary={boundary}"},
        )
    except (OSError, http.client.HTTPException):
        return  # the server died mid-request
    if status == 201:
        with lock:
            results[name] = json.loads(answer)["file"]


def test_uploads_survive_sigkill_whole_or_not_at_all():
    data_dir = tempfile.mkdtemp(prefix="mockcdn-crash-")
    sent: dict[str, bytes] = {}
    confirmed: dict[str, str] = {}
    rng = random.Random(20261121)
    port = free_port()
    # The server each restart brings up is checked, then takes the next cycle's uploads and is killed in turn.
    process, base = start(data_dir, port)
    try:
        for cycle in range(CYCLES):
            batch = {f"c{cycle:02d}-{i:02d}.bin": os.urandom(rng.randint(16 * 1024, 256 * 1024)) for i in range(UPLOADS)}
            sent.update(batch)
            results: dict[str, str] = {}
            lock = threading.Lock()
            threads = [threading.Thread(target=upload, args=(base, name, data, results, lock)) for name, data in batch.items()]
            for thread in threads:
                thread.start()
            # Half the kills come after a random number of uploads were answered, half at a random early
            # moment, so both "answered, then killed" and "killed mid-write" are covered on a slow machine too.
            if cycle % 2 == 0:
                target = rng.randint(1, UPLOADS // 2)

                def answered() -> bool:
                    with lock:
                        return len(results) >= target

                # A 2 ms poll so the kill follows the target closely; it is no margin.
                eventually(answered, interval=0.002, message=f"cycle {cycle}: fewer than {target} uploads answered")
            else:
                # Randomness, not a margin: whatever moment the kill comes, every property checked below must
                # hold; the machine's speed only changes how many uploads were answered before it (these cycles
                # may see none, the even ones see at least one).
                time.sleep(rng.uniform(0.0, 0.5))
            process.send_signal(signal.SIGKILL)
            process.wait()
            for thread in threads:
                thread.join(timeout=30)
            confirmed.update(results)

            process, base = start(data_dir, port)
            leftovers = os.listdir(os.path.join(data_dir, "tmp"))
            assert leftovers == [], f"cycle {cycle}: temporary files left after restart: {leftovers}"
            for name, link in results.items():
                status, body, _ = request(link)
                assert status == 200, f"cycle {cycle}: {name} was answered 201 but reads {status}"
                assert hashlib.sha256(body).digest() == hashlib.sha256(batch[name]).digest(), f"{name} differs"
            status, listing, _ = request(
                f"{base}/channels/messaging/crash/uploads?api_key=demo-key&limit=1000",
                headers={"Authorization": jwt({"server": True})},
            )
            assert status == 200, listing
            listed = json.loads(listing)["uploads"]
            names = {item["name"] for item in listed}
            assert set(confirmed) <= names, f"cycle {cycle}: confirmed uploads missing: {set(confirmed) - names}"
            for item in listed:
                if not item["name"].startswith(f"c{cycle:02d}-"):
                    continue
                assert item["size"] == len(sent[item["name"]]), f"cycle {cycle}: {item['name']} listed half-written"
                status, body, _ = request(item["file"])
                assert status == 200 and body == sent[item["name"]], f"cycle {cycle}: {item['name']} not whole"
        print(f"\ncrash safety: {CYCLES} SIGKILLs, {len(confirmed)} of {CYCLES * UPLOADS} uploads answered 201, all intact")
        assert len(confirmed) > 0, "no upload finished before any kill: the kills came too early to test anything"
        assert len(confirmed) < CYCLES * UPLOADS, "every upload finished before its kill: the kills came too late"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)
