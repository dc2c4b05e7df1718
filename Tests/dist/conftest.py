"""The clean room of make dist-check: a Debian bookworm root that has only the run-stage packages
(packaging/clean-root.sh, cached), with the release tarball installed under /usr/local by the same script
the image uses. Each test gets an overlay over the cached root, so the cache stays clean. Inside it, MockCDN
runs as it does in a container: /proc mounted, an unprivileged user (nobody), no HOME, the root's own PATH,
and a read-only install folder. The tests speak HTTP to it over loopback from outside.

Environment: MOCKCDN_DIST (the tarball), MOCKCDN_WHEEL (the wheel), MOCKCDN_CLEAN_ROOT (clean-root.sh's
cache folder). Needs root for mount and chroot.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOBODY = "65534:65534"
ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
READY = re.compile(r"mockcdn ready on (https?://\S+)")
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def fetch(url: str, headers: dict | None = None, body: bytes | None = None, method: str | None = None):
    """Status, body and headers of one request; an HTTP error is an answer too."""
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with _OPENER.open(request, timeout=60) as answer:
            return answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.read(), dict(error.headers)


@dataclass
class CleanRoot:
    """A mounted overlay of the cached root, with the tarball installed under /usr/local."""

    path: Path
    tarball: Path

    def command(self, *argv: str, user: str | None = NOBODY, env: dict | None = None) -> list[str]:
        """argv inside the root: as nobody (or as root with user=None), with only PATH (and env) set."""
        userspec = [f"--userspec={user}"] if user else []
        variables = [f"{k}={v}" for k, v in {"PATH": ROOT_PATH, **(env or {})}.items()]
        return ["chroot", *userspec, str(self.path), "/usr/bin/env", "-i", *variables, *argv]

    def run(self, *argv: str, user: str | None = NOBODY, env: dict | None = None, check: bool = True,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(self.command(*argv, user=user, env=env), capture_output=True, text=True,
                                timeout=timeout)
        if check and result.returncode != 0:
            pytest.fail(f"{' '.join(argv)} exited {result.returncode}: {result.stdout}{result.stderr}")
        return result

    def put(self, inside: str, data: bytes, mode: int = 0o644) -> str:
        """Writes a file into the root (as root), readable by nobody; returns its path inside."""
        target = self.path / inside.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        target.chmod(mode)
        return inside

    @contextlib.contextmanager
    def serve(self, *flags: str, binary: str = "mockcdn"):
        """`mockcdn serve --port 0 FLAGS` inside the root as nobody; yields its base URL (`https://` with
        `--tls-certificate`), then stops it with SIGTERM and checks it exits cleanly."""
        process = subprocess.Popen(self.command(binary, "serve", "--port", "0", *flags), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        try:
            first = process.stdout.readline()
            match = READY.match(first)
            if not match:
                process.kill()
                pytest.fail(f"no ready line: {first!r} {process.communicate(timeout=30)}")
            yield match.group(1)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    code = process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
                    pytest.fail("mockcdn did not stop within 60 s of SIGTERM")
                assert code == 0, f"mockcdn exited {code} after SIGTERM: {process.stderr.read()}"


def _mounted(lowers: list[Path], tarball: Path, scratch: Path) -> CleanRoot:
    upper, work, merged = scratch / "upper", scratch / "work", scratch / "root"
    for folder in (upper, work, merged):
        folder.mkdir()
    lowerdir = ":".join(str(layer) for layer in lowers)
    subprocess.run(["mount", "-t", "overlay", "overlay", "-o",
                    f"lowerdir={lowerdir},upperdir={upper},workdir={work}", str(merged)], check=True)
    root = CleanRoot(merged, tarball)
    # The image's install step, with the image's script, as root inside the root.
    shutil.copy2(REPO / "packaging" / "install-dist.sh", merged / "tmp" / "install-dist.sh")
    shutil.copy2(tarball, merged / "tmp" / tarball.name)
    root.run("sh", "/tmp/install-dist.sh", f"/tmp/{tarball.name}", "/usr/local", user=None)
    (merged / "tmp" / "install-dist.sh").unlink()
    (merged / "tmp").chmod(0o1777)
    # As a container runtime does: /proc (Swift reads its arguments there), and the install folder read-only.
    subprocess.run(["mount", "-t", "proc", "proc", str(merged / "proc")], check=True)
    local = str(merged / "usr" / "local")
    subprocess.run(["mount", "--bind", local, local], check=True)
    subprocess.run(["mount", "-o", "remount,bind,ro", local], check=True)
    return root


def _unmount(root: Path) -> None:
    for inner in ("usr/local", "proc"):
        subprocess.run(["umount", "-l", str(root / inner)], check=False)
    subprocess.run(["umount", "-l", str(root)], check=False)


@contextlib.contextmanager
def clean_root(*layers: str):
    """The cached root (with `layers` of clean-root.sh on top) as an overlay, the tarball installed."""
    if os.geteuid() != 0:
        pytest.skip("make dist-check needs root (mount, chroot): not run")
    cache = Path(os.environ["MOCKCDN_CLEAN_ROOT"])
    tarball = Path(os.environ["MOCKCDN_DIST"]).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="mockcdn-clean-root-"))
    try:
        root = _mounted([cache / layer for layer in layers] + [cache / "root"], tarball, scratch)
        try:
            yield root
        finally:
            _unmount(root.path)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture(scope="session")
def root():
    with clean_root() as mounted:
        yield mounted


@pytest.fixture(scope="session")
def python_root():
    """The same, with the python3-venv layer: for the wheel step only."""
    with clean_root("python") as mounted:
        yield mounted


@pytest.fixture(scope="session")
def base(root):
    """One server for the read-only smoke tests, as the image starts it: `mockcdn serve`, nothing else."""
    with root.serve() as url:
        yield url
