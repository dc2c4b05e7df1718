"""Starts one MockCDN per test module (`mockcdn serve --port 0`): `mockcdn` yields the process and its
base URL, `server` the base URL alone."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from support import BINARY, REPO


@dataclass
class RunningServer:
    url: str
    process: subprocess.Popen

    def status(self, field: str) -> int:
        """A kB value from /proc/PID/status, e.g. VmRSS or VmHWM."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
        raise KeyError(field)


@contextmanager
def launch(*flags: str, binary=BINARY, env: dict | None = None):
    """Runs `mockcdn serve --port 0` with the fixtures and `flags` (and `env` over the environment); yields the
    RunningServer, then stops it with SIGTERM and checks it exits cleanly."""
    if not binary.exists():
        pytest.fail(f"MockCDN binary not found at {binary} (set MOCKCDN_BINARY)")
    proc = subprocess.Popen(
        [str(binary), "serve", "--port", "0", "--log-level", "warning", "--fixtures", str(REPO / "Fixtures" / "media"), *flags],
        stdout=subprocess.PIPE,
        stderr=None,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        first = proc.stdout.readline()
        match = re.match(r"mockcdn ready on http://([^:/]+|\[[^]]+\]):(\d+)", first)
        assert match, f"unexpected first line: {first!r} (exit code {proc.poll()})"
        proc.stdout.readline()  # demo app keys
        # A wildcard bind is reached on loopback.
        host = "127.0.0.1" if match.group(1) in ("0.0.0.0", "[::]") else match.group(1)
        yield RunningServer(f"http://{host}:{match.group(2)}", proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail("mockcdn did not exit within 20 s of SIGTERM")
    assert code == 0, f"mockcdn exited with {code} after SIGTERM"


@pytest.fixture(scope="module")
def mockcdn():
    with launch() as running:
        yield running


@pytest.fixture(scope="module")
def server(mockcdn):
    return mockcdn.url
