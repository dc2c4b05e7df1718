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
        match = re.match(r"mockcdn ready on (https?)://([^:/]+|\[[^]]+\]):(\d+)", first)
        assert match, f"unexpected first line: {first!r} (exit code {proc.poll()})"
        proc.stdout.readline()  # demo app keys
        # A wildcard bind is reached on loopback.
        host = "127.0.0.1" if match.group(2) in ("0.0.0.0", "[::]") else match.group(2)
        yield RunningServer(f"{match.group(1)}://{host}:{match.group(3)}", proc)
    finally:
        proc.send_signal(signal.SIGTERM)
        # Returns as soon as it exits (at once, or within its 10 s graceful shutdown): 60 s is a deadline, no margin.
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail("mockcdn did not exit within 60 s of SIGTERM")
    assert code == 0, f"mockcdn exited with {code} after SIGTERM"


@pytest.fixture(scope="module")
def mockcdn():
    with launch() as running:
        yield running


@pytest.fixture(scope="module")
def server(mockcdn):
    return mockcdn.url


@pytest.fixture(scope="module", params=["memory", "disk", "s3"])
def each_store(request, tmp_path_factory):
    """The base URL of a MockCDN on each store in turn: memory, `--data-dir`, and an S3 bucket on moto_server."""
    if request.param == "memory":
        with launch() as running:
            yield running.url
    elif request.param == "disk":
        with launch("--data-dir", str(tmp_path_factory.mktemp("data"))) as running:
            yield running.url
    else:
        from test_scale_out import Moto, bucket, s3_env

        endpoint = Moto()
        try:
            with launch("--store", f"s3://{bucket(endpoint)}/store", env=s3_env(endpoint)) as running:
                yield running.url
        finally:
            endpoint.stop()


@pytest.fixture
def no_aws_configuration(monkeypatch):
    """AWS tooling runs with its defaults: the machine's setup must not leak in, since a region or profile
    there would hide what the tools do by default. Every `AWS_*` variable is removed and the config and
    credentials files are /dev/null. A module asks for it with `pytestmark`."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")


def start_outcome(config: str) -> tuple[str, str]:
    """Starts `mockcdn serve --config CONFIG` and returns its first stdout line and, when it stopped with an
    error, its stderr; a server that started is stopped again."""
    process = subprocess.Popen([str(BINARY), "serve", "--port", "0", "--config", config, "--fixtures", "none"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = process.stdout.readline()
        if first.startswith("mockcdn ready on"):
            return first, ""
        assert process.wait(timeout=30) != 0
        return first, process.stderr.read()
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=20)
