"""Runs the ``mockcdn serve`` binary on a free port and stops it again."""

from __future__ import annotations

import collections
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from . import bundled
from .errors import MockCDNError

#: The first stdout line of ``mockcdn serve``: ``mockcdn ready on http://HOST:PORT``.
READY_LINE = re.compile(r"mockcdn ready on http://([^:/\s]+|\[[^\]]+\]):(\d+)")
_LOOPBACK = re.compile(r"^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$")


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """The binary to run: ``binary`` when given, else ``$MOCKCDN_BINARY``, else ``$MOCKCDN_HOME/bin/mockcdn``
    (an unpacked release tarball's folder, as the JS and Java helpers look it up), else the one this package
    carries (an install of the wheel ``make dist`` builds), else ``mockcdn`` on ``PATH``. A variable that is set
    but names no executable is an error, never skipped.

    Raises:
        MockCDNError: when none of them names an executable file, or when the carried binary lacks a
            runtime package it links (the message names the Debian packages to install).
    """
    candidate = os.fspath(binary) if binary is not None else os.environ.get("MOCKCDN_BINARY") or None
    home = os.environ.get("MOCKCDN_HOME") or None
    if candidate is None and home is not None:
        candidate = os.path.join(home, "bin", "mockcdn")
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            raise MockCDNError(f"MOCKCDN_HOME={home}: bin/mockcdn is not an executable file")
    if candidate is None:
        carried = bundled.binary()
        if carried is not None:
            problem = bundled.check()
            if problem is not None:
                raise MockCDNError(problem)
            return str(carried)
        found = shutil.which("mockcdn")
        if found is None:
            raise MockCDNError("no mockcdn binary: pass binary=, set MOCKCDN_BINARY or MOCKCDN_HOME, install the "
                               "mockcdn wheel, or put mockcdn on PATH")
        return found
    if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
        raise MockCDNError(f"the mockcdn binary {candidate!r} is not an executable file")
    return candidate


def _admin_token_from(args: Sequence[str], env: Mapping[str, str]) -> str | None:
    """An admin token given on the command line (``--admin-token X`` or ``--admin-token=X``) or in the
    environment (``MOCKCDN_ADMIN_TOKEN``); the last flag wins, as in the server."""
    token = None
    for index, arg in enumerate(args):
        if arg == "--admin-token" and index + 1 < len(args):
            token = args[index + 1]
        elif arg.startswith("--admin-token="):
            token = arg.split("=", 1)[1]
    return token or env.get("MOCKCDN_ADMIN_TOKEN") or None


@dataclass
class ServerProcess:
    """A running ``mockcdn serve``: its process, the base URL to reach it at, and its admin token (the one
    it printed, or the one it was given; ``None`` on a loopback bind, which needs none)."""

    process: subprocess.Popen[str]
    url: str
    admin_token: str | None
    stderr_tail: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=50))

    def stop(self, timeout: float = 20.0) -> int:
        """Sends SIGTERM and waits for the exit (SIGKILL after ``timeout`` seconds); returns the exit code,
        0 for a clean stop. Calling it again returns the same code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise MockCDNError(f"mockcdn (pid {self.process.pid}) did not exit within {timeout} s of SIGTERM")
        return self.process.returncode


def launch(
    binary: str | os.PathLike[str] | None = None,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    *,
    admin_token: str | None = None,
    timeout: float = 30.0,
) -> ServerProcess:
    """Starts ``BINARY serve --port 0 --log-level warning ARGS`` (later flags win, so ``args`` may set
    another log level) with ``env`` over the current environment, and waits up to ``timeout`` seconds for
    its ready line.

    Its stderr is passed on to this process's stderr, and its last lines are kept for error messages.

    Raises:
        MockCDNError: when the binary is missing, or the server exits or stays silent instead of
        becoming ready (the message carries its last stderr lines).
    """
    path = find_binary(binary)
    args = [os.fspath(arg) for arg in args]
    full_env = {**os.environ, **(env or {})}
    command = [path, "serve", "--port", "0", "--log-level", "warning", *args]
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
            env=full_env,
        )
    except OSError as error:
        raise MockCDNError(f"could not run {path}: {error}") from error

    lines: queue.Queue[str | None] = queue.Queue()
    tail: collections.deque[str] = collections.deque(maxlen=50)

    def pump_stdout() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    def pump_stderr() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            tail.append(line.rstrip("\n"))
            out = sys.__stderr__
            if out is not None:
                try:
                    out.write(line)
                    out.flush()
                except (OSError, ValueError):
                    pass

    for pump in (pump_stdout, pump_stderr):
        threading.Thread(target=pump, name=f"mockcdn-{process.pid}-{pump.__name__}", daemon=True).start()

    def fail(reason: str) -> MockCDNError:
        if process.poll() is None:
            process.kill()
        process.wait()
        time.sleep(0.05)  # let the stderr pump catch the last lines
        detail = "\n".join(tail)
        return MockCDNError(
            f"{' '.join(command)}: {reason} (exit code {process.returncode})" + (f"\n{detail}" if detail else ""),
            body=detail,
        )

    deadline = time.monotonic() + timeout

    def next_line() -> str | None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise queue.Empty
        return lines.get(timeout=remaining)

    try:
        first = next_line()
    except queue.Empty:
        raise fail(f"no ready line within {timeout} s") from None
    match = READY_LINE.match(first or "")
    if match is None:
        raise fail("exited before it was ready" if first is None else f"unexpected first line {first!r}")

    host, port = match.group(1), match.group(2)
    token = admin_token or _admin_token_from(args, full_env)
    if token is None and not _LOOPBACK.match(host):
        # Off loopback the server prints a generated admin token a couple of lines later, before the
        # closing `apps=...` line.
        while True:
            try:
                line = next_line()
            except queue.Empty:
                break
            if line is None or line.startswith("apps="):
                break
            if line.startswith("admin_token="):
                token = line.split("=", 1)[1].strip()
                break
    # A wildcard bind is reached on loopback.
    host = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]"}.get(host, host)
    return ServerProcess(process=process, url=f"http://{host}:{port}", admin_token=token, stderr_tail=tail)
