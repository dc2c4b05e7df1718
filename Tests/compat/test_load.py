"""Load against the real binary: 64 keep-alive connections of mixed reads, resizes, uploads and deletes.
No 5xx, no dropped connection, and the server's RSS at the end within 20% of its RSS after a warm-up.
`make test` runs it for 10 s; `make fuzz` for 60 s (MOCKCDN_LOAD_SECONDS). Each worker deletes what it
uploaded before a run ends, so the store holds after a run what it held before.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import threading
import time
import urllib.parse
import uuid

from support import jwt

CONNECTIONS = 64


def worker(base: str, links: list[str], deadline: float, seed: int, tally: dict, lock: threading.Lock) -> None:
    rng = random.Random(seed)
    parsed = urllib.parse.urlparse(base)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    counts = {"requests": 0, "5xx": 0, "dropped": 0, "other": 0}
    token = jwt()
    mine: list[str] = []
    while time.time() < deadline:
        kind = rng.random()
        headers: dict = {}
        body = None
        if kind < 0.5:
            method, target = "GET", rng.choice(links)
        elif kind < 0.7:
            method, target = "GET", rng.choice(links) + f"&w={rng.choice([32, 64, 128, 256])}&h=*"
        elif kind < 0.84 or not mine:  # a few more deletes than uploads, so the stored set stays small
            boundary = uuid.uuid4().hex
            data = os.urandom(rng.randint(1024, 64 * 1024))
            body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="l.bin"\r\n'
                    f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
            method, target = "POST", "/api/v2/uploads/file?api_key=demo-key"
            headers = {"Authorization": token, "Content-Type": f"multipart/form-data; boundary={boundary}"}
        else:
            method = "DELETE"
            target = "/api/v2/uploads/file?api_key=demo-key&url=" + urllib.parse.quote(mine.pop(), safe="")
            headers = {"Authorization": token}
        if target.startswith("http"):
            target = target[len(base):]
        try:
            connection.request(method, target, body, headers)
            response = connection.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            counts["dropped"] += 1
            connection.close()
            connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
            continue
        counts["requests"] += 1
        if response.status >= 500:
            counts["5xx"] += 1
        elif method == "POST" and response.status == 201:
            mine.append(json.loads(payload)["file"])
        elif response.status not in (200, 201):
            counts["other"] += 1
    # What this worker still stores goes too, so that the store holds after a run what it held before it:
    # RSS then measures the server's own memory, not the objects a run happened to leave behind.
    for link in mine:
        try:
            connection.request("DELETE", "/api/v2/uploads/file?api_key=demo-key&url=" + urllib.parse.quote(link, safe=""),
                               None, {"Authorization": token})
            response = connection.getresponse()
            response.read()
            counts["requests"] += 1
            if response.status >= 500:
                counts["5xx"] += 1
        except (OSError, http.client.HTTPException):
            counts["dropped"] += 1
            connection.close()
            connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    connection.close()
    with lock:
        for key, value in counts.items():
            tally[key] = tally.get(key, 0) + value


def run(base: str, links: list[str], seconds: float, seed: int) -> dict:
    # A fixed real time on purpose: no assertion depends on how many requests a machine gets through in it
    # (`requests > 0` is one-sided), and each request may take 30 s (the connections' timeout), >= 10x what one
    # takes under this load on a loaded 2-core machine.
    tally: dict = {}
    lock = threading.Lock()
    deadline = time.time() + seconds
    threads = [threading.Thread(target=worker, args=(base, links, deadline, seed + i, tally, lock)) for i in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally


def test_mixed_load_without_errors_or_growth(mockcdn):
    from test_bad_input import cli

    links = [cli("sign", "cloudfront", mockcdn.url + f"/demo/fixtures/{name}")
             for name in ("sample.jpg", "sample.png", "sample.webp", "animated.gif", "sample.heic")]
    seconds = float(os.environ.get("MOCKCDN_LOAD_SECONDS", "10"))
    # Warm-up: a third of the run, so caches, allocator arenas and connection state have settled.
    warm = run(mockcdn.url, links, seconds / 3, seed=1)
    assert warm["5xx"] == 0 and warm["dropped"] == 0, warm
    after_warmup = mockcdn.status("VmRSS")
    tally = run(mockcdn.url, links, seconds, seed=100)
    at_end = mockcdn.status("VmRSS")
    print(f"\nload: {tally} in {seconds:.0f} s; RSS after warm-up {after_warmup} KiB, at the end {at_end} KiB")
    assert tally["requests"] > 0
    assert tally["5xx"] == 0, tally
    assert tally["dropped"] == 0, tally
    assert tally["other"] == 0, tally
    assert at_end <= after_warmup * 1.2, f"RSS grew from {after_warmup} to {at_end} KiB"
