#!/usr/bin/env python3
"""The soak: mixed load against the disk store for --seconds (default 600), with a SIGKILL and a restart
every --kill-every seconds (default 60), and what it leaves behind.

Load, from worker threads, all on loopback:
- reads: FAT reads of the fixtures, CloudFront-signed links (Stream uploads' own links) and SigV4 presigned
  links (the CLI's `sign presign`);
- uploads: small Stream uploads all the time, and a 100 MiB one every --big-every seconds;
- image work: resizes of the fixtures, and video uploads whose poster is read back;
- faults: every 20 s a rule answering 503 with the body `soak-injected-fault` on the upload route, removed
  10 s later; clock jumps of an hour every 30 s (reads then mint fresh tokens and links).

Reported per minute of the run: 5xx answers outside injected faults (must be 0), acknowledged uploads lost
(an upload answered 201 whose object is gone or different after the next restart; must be 0), requests
answered, connection errors (the restarts), and the server's file descriptors and RSS. The RSS bar: the
last minute's within 10% of the second's. Uploads checked after a restart are deleted (but a sample of 100,
checked again after each restart), and videos with their posters once read, so the stored set, and the
disk store's index in memory, stays the same size: RSS measures the server, not the data. Writes a Markdown
table to --out.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024
SECRET = b"demo-secret-for-local-testing-only"
FAULT_BODY = "soak-injected-fault"
FIXTURES = ["sample.jpg", "sample.png", "sample.webp", "animated.gif", "sample.mp4"]
#: Uploads checked again after every restart, besides the ones acknowledged since the last.
RECHECKED = 100


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def jwt(user: str) -> str:
    head = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    body = b64url(json.dumps({"user_id": user}).encode())
    return f"{head}.{body}.{b64url(hmac.new(SECRET, f'{head}.{body}'.encode(), hashlib.sha256).digest())}"


@dataclass
class Minute:
    requests: int = 0
    server_errors: int = 0
    injected: int = 0
    connection_errors: int = 0
    uploads: int = 0
    lost: int = 0
    fds: int = 0
    rss_kib: int = 0
    examples: list[str] = field(default_factory=list)


class Soak:
    def __init__(self, binary: str, seconds: int, kill_every: int, big_every: int):
        self.binary, self.seconds, self.kill_every, self.big_every = binary, seconds, kill_every, big_every
        self.data = Path(tempfile.mkdtemp(prefix="mockcdn-soak-"))
        self.port = 0
        self.process: subprocess.Popen[str] | None = None
        self.lock = threading.Lock()
        self.started = 0.0
        self.minutes = [Minute() for _ in range(seconds // 60 + 2)]
        # Acknowledged uploads (key -> size, sha256): not yet checked after a restart, and checked once.
        self.pending: dict[str, tuple[int, str]] = {}
        self.checked: dict[str, tuple[int, str]] = {}
        self.stop = threading.Event()
        self.up = threading.Event()

    # MARK: the server

    def start(self) -> None:
        argv = [self.binary, "serve", "--port", str(self.port), "--data-dir", str(self.data), "--log-level", "error",
                "--fixtures", str(REPO / "Fixtures" / "media")]
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("mockcdn ready on"):
            sys.exit(f"mockcdn did not start: {line!r}")
        self.port = int(line.strip().rsplit(":", 1)[1])
        threading.Thread(target=self.process.stdout.read, daemon=True).start()
        self.up.set()

    def kill_and_restart(self) -> None:
        self.up.clear()
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.start()

    def sample(self) -> None:
        pid = self.process.pid
        try:
            fds = len(os.listdir(f"/proc/{pid}/fd"))
            with open(f"/proc/{pid}/status") as status:
                rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            return
        minute = self.minute()
        minute.fds = max(minute.fds, fds)
        minute.rss_kib = max(minute.rss_kib, rss)

    def minute(self) -> Minute:
        return self.minutes[min(int((time.monotonic() - self.started) // 60), len(self.minutes) - 1)]

    # MARK: HTTP

    def call(self, method: str, path: str, body=None, headers: dict | None = None, timeout: float = 120):
        """One request; counts it. Returns (status, body bytes) or None on a connection error."""
        self.up.wait(60)
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException):
            with self.lock:
                self.minute().connection_errors += 1
            return None
        finally:
            connection.close()
        with self.lock:
            minute = self.minute()
            minute.requests += 1
            if response.status >= 500:
                if data == FAULT_BODY.encode():
                    minute.injected += 1
                else:
                    minute.server_errors += 1
                    if len(minute.examples) < 5:
                        minute.examples.append(f"{method} {path.split('?')[0]} {response.status} {data[:120]!r}")
        return response.status, data

    def control(self, method: str, path: str, payload: dict | None = None):
        body = json.dumps(payload).encode() if payload is not None else None
        return self.call(method, "/_mockcdn/" + path, body, {"Content-Type": "application/json"} if body else {})

    def fat(self) -> str | None:
        answer = self.control("POST", "tokens", {"kind": "fat", "user_id": "soak", "ttl": 600})
        return json.loads(answer[1])["token"] if answer and answer[0] == 200 else None

    def upload(self, name: str, content_type: str, data, size: int, kind: str = "file") -> dict | None:
        boundary = "soak" + uuid.uuid4().hex
        head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                f"Content-Type: {content_type}\r\n\r\n").encode()
        tail = f"\r\n--{boundary}--\r\n".encode()
        body = data if isinstance(data, bytes) else None
        if body is not None:
            payload, length = head + body + tail, None
        else:
            payload, length = chain(head, data, tail), len(head) + size + len(tail)
        headers = {"Authorization": f"Bearer {jwt('soak')}", "stream-auth-type": "jwt",
                   "Content-Type": f"multipart/form-data; boundary={boundary}"}
        if length is not None:
            headers["Content-Length"] = str(length)
        answer = self.call("POST", f"/channels/messaging/soak/{kind}?api_key=demo-key", payload, headers)
        if answer is None or answer[0] != 201:
            return None
        return json.loads(answer[1])

    # MARK: workers

    def reader(self) -> None:
        rng = random.Random()
        token = None
        links: list[str] = []
        while not self.stop.is_set():
            token = token or self.fat()
            choice = rng.random()
            if token and choice < 0.5:
                name = rng.choice(FIXTURES)
                answer = self.call("GET", f"/demo/fixtures/{name}", headers={"fat": token})
                if answer and answer[0] in (401, 403):
                    token = None
            elif choice < 0.8:
                if not links:
                    made = self.upload("read.txt", "text/plain", os.urandom(2048), 2048)
                    if made:
                        links.append(made["file"])
                    continue
                parts = urllib.parse.urlsplit(rng.choice(links))
                answer = self.call("GET", parts.path + "?" + parts.query)
                if answer and answer[0] in (401, 403, 404):
                    links.clear()  # expired after a clock jump, or reset: make fresh ones
            elif token:
                key = rng.choice(["sample.jpg", "sample.png", "sample.webp"])
                link = self.presigned(f"demo/fixtures/{key}")
                if link:
                    self.call("GET", link)

    def presigned(self, key: str) -> str | None:
        """A SigV4 presigned link at the server's clock, from the CLI."""
        result = subprocess.run([self.binary, "sign", "presign", f"http://127.0.0.1:{self.port}/{key}", "--server",
                                 f"http://127.0.0.1:{self.port}"], capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            return None
        parts = urllib.parse.urlsplit(result.stdout.strip())
        return parts.path + "?" + parts.query

    def uploader(self) -> None:
        rng = random.Random()
        while not self.stop.is_set():
            data = os.urandom(rng.randint(1, 256) * 1024)
            made = self.upload(f"u{rng.randint(0, 1 << 30)}.bin", "application/octet-stream", data, len(data))
            if made:
                self.acknowledge(made["file"], len(data), hashlib.sha256(data).hexdigest())

    def big_uploader(self) -> None:
        while not self.stop.wait(self.big_every):
            seed = os.urandom(64)
            digest = hashlib.sha256()
            for block in pattern(seed, 100 * MIB):
                digest.update(block)
            made = self.upload("big.bin", "application/octet-stream", pattern(seed, 100 * MIB), 100 * MIB)
            if made:
                self.acknowledge(made["file"], 100 * MIB, digest.hexdigest())

    def image_worker(self) -> None:
        rng = random.Random()
        video = (REPO / "Fixtures" / "media" / "sample.mp4").read_bytes()
        token = None
        while not self.stop.is_set():
            token = token or self.fat()
            if rng.random() < 0.8 and token:
                name = rng.choice(["sample.jpg", "sample.png", "sample.webp", "animated.gif"])
                answer = self.call("GET", f"/demo/fixtures/{name}?w={rng.choice([32, 64, 128, 200])}&h=64",
                                   headers={"fat": token})
                if answer and answer[0] in (401, 403):
                    token = None
            else:
                made = self.upload("clip.mp4", "video/mp4", video, len(video))
                if made and made.get("thumb_url"):
                    parts = urllib.parse.urlsplit(made["thumb_url"])
                    self.call("GET", parts.path + "?" + parts.query)
                if made:  # the video goes again, and its poster with it: the store keeps its size
                    self.delete(urllib.parse.urlsplit(made["file"]).path.lstrip("/"))

    def chaos(self) -> None:
        """Faults every 20 s (each removed 10 s later) and a clock jump every 30 s."""
        tick = 0
        while not self.stop.wait(10):
            tick += 10
            if tick % 20 == 0:
                self.control("POST", "faults", {"match": {"method": "POST", "path": "/channels/messaging/soak/file"},
                                                "action": {"status": 503, "body": FAULT_BODY}})
            elif tick % 20 == 10:
                self.control("DELETE", "faults")
            if tick % 30 == 0:
                self.control("POST", "clock/advance", {"seconds": 3600})

    def acknowledge(self, link: str, size: int, digest: str) -> None:
        key = urllib.parse.urlsplit(link).path.lstrip("/")
        with self.lock:
            self.pending[key] = (size, digest)
            self.minute().uploads += 1

    def verify(self) -> None:
        """After a restart: every upload acknowledged since the last one is there, whole, and so is a sample of
        the ones checked before. Then all but that sample are deleted."""
        token = None
        for _ in range(60):
            token = self.fat()
            if token:
                break
            time.sleep(0.5)  # a poll for the restarted server, 30 s at most
        with self.lock:
            pending, self.pending = self.pending, {}
            sample = random.sample(sorted(self.checked), min(RECHECKED, len(self.checked)))
            items = list(pending.items()) + [(key, self.checked[key]) for key in sample]
        lost = 0
        for key, (size, digest) in items:
            answer = self.call("GET", "/" + key, headers={"fat": token})
            if answer is not None and answer[0] in (401, 403):  # the clock jumped past the token: a fresh one
                token = self.fat()
                answer = self.call("GET", "/" + key, headers={"fat": token})
            if answer is None or answer[0] != 200 or len(answer[1]) != size \
                    or hashlib.sha256(answer[1]).hexdigest() != digest:
                lost += 1
                with self.lock:
                    examples = self.minute().examples
                    if len(examples) < 5:
                        examples.append(f"lost {key}: {answer[0] if answer else 'no answer'}")
        with self.lock:
            self.minute().lost += lost
            keep = RECHECKED - len(self.checked)
        # Checked after a restart: kept for later rechecks up to RECHECKED, the rest deleted, so the store (and
        # the disk store's index in memory) stays the same size through the run and RSS measures the server.
        fresh = [(key, value) for key, value in pending.items() if value[0] < 100 * MIB][:max(0, keep)]
        kept = {key for key, _ in fresh}
        for key in pending:
            if key not in kept:
                self.delete(key)
        with self.lock:
            self.checked.update(fresh)

    def delete(self, key: str) -> None:
        self.call("DELETE", "/api/v2/chat/channels/messaging/soak/file?api_key=demo-key&url="
                  + urllib.parse.quote(f"http://127.0.0.1:{self.port}/{key}", safe=""),
                  headers={"Authorization": jwt("soak")})

    def run(self) -> list[Minute]:
        self.start()
        self.started = time.monotonic()
        workers = [self.reader, self.reader, self.uploader, self.big_uploader, self.image_worker, self.chaos]
        threads = [threading.Thread(target=worker, daemon=True) for worker in workers]
        for thread in threads:
            thread.start()
        next_kill = self.kill_every
        while (elapsed := time.monotonic() - self.started) < self.seconds:
            self.sample()
            if elapsed >= next_kill:
                self.kill_and_restart()
                self.verify()
                next_kill += self.kill_every
            time.sleep(5)
        self.stop.set()
        for thread in threads:
            thread.join(timeout=300)
        self.kill_and_restart()
        self.verify()
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        shutil.rmtree(self.data, ignore_errors=True)
        return self.minutes[: max(1, int(self.seconds // 60))]


def pattern(seed: bytes, size: int):
    """`size` bytes in 1 MiB blocks derived from `seed`, made as they are sent (no 100 MiB in memory)."""
    block = hashlib.sha256(seed).digest() * (MIB // 32)
    for index in range(size // MIB):
        yield index.to_bytes(8, "big") + block[8:]


def chain(head: bytes, blocks, tail: bytes):
    yield head
    yield from blocks
    yield tail


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=str(REPO / ".build/release/mockcdn"))
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--kill-every", type=int, default=60)
    parser.add_argument("--big-every", type=int, default=45)
    parser.add_argument("--out", default=str(REPO / "Benchmarks/results/soak.md"))
    args = parser.parse_args()
    minutes = Soak(args.binary, args.seconds, args.kill_every, args.big_every).run()
    rows = ["| minute | requests | 5xx outside faults | injected 5xx | connection errors (restarts) | uploads "
            "acknowledged | acknowledged lost | fds (max) | RSS (max) |", "|---|---|---|---|---|---|---|---|---|"]
    for index, minute in enumerate(minutes, 1):
        rows.append(f"| {index} | {minute.requests} | {minute.server_errors} | {minute.injected} | "
                    f"{minute.connection_errors} | {minute.uploads} | {minute.lost} | {minute.fds} | "
                    f"{minute.rss_kib / 1024:.1f} MiB |")
    errors = sum(m.server_errors for m in minutes)
    lost = sum(m.lost for m in minutes)
    second, last = (minutes[1].rss_kib, minutes[-1].rss_kib) if len(minutes) > 1 else (0, 0)
    flat = second > 0 and abs(last - second) <= 0.1 * second
    verdict = [f"- 5xx outside injected faults: {errors} (bar 0: {'met' if errors == 0 else 'MISSED'})",
               f"- acknowledged uploads lost: {lost} (bar 0: {'met' if lost == 0 else 'MISSED'})",
               f"- RSS, last minute against the second: {last / 1024:.1f} MiB / {second / 1024:.1f} MiB "
               f"(bar within 10%: {'met' if flat else 'MISSED'})"]
    examples = [example for m in minutes for example in m.examples][:10]
    text = "\n".join([f"# Soak ({args.seconds} s, SIGKILL and restart every {args.kill_every} s, disk store)", "",
                      f"Binary: `{args.binary}`. Machine: {os.cpu_count()} CPUs. "
                      f"{time.strftime('%Y-%m-%d', time.gmtime())}.", "", *rows, "", *verdict]
                     + (["", "Examples of 5xx:", *[f"- `{e}`" for e in examples]] if examples else [])) + "\n"
    Path(args.out).write_text(text)
    print(text)
    sys.exit(0 if errors == 0 and lost == 0 and flat else 1)


if __name__ == "__main__":
    main()
