"""make dist-check's image checks: `docker/Dockerfile` built with podman from the dist tarball
(`TARBALL_FROM=prebuilt`) and run, the checks speaking to the container through its published port.

No registry is needed: the base image `debian:bookworm-slim` is the cached clean root (packaging/clean-root.sh)
imported into a podman store of its own, next to that cache, so a machine's own images are never touched. In
a sandbox without systemd podman needs the runc runtime, cgroupfs, explicit ulimits, the host's network for
the build's `apt-get`, and the Docker image format for the `HEALTHCHECK` to be kept; a health check is run
on demand (`podman healthcheck run`), since no systemd timer runs it.

Environment: as conftest.py (MOCKCDN_DIST, MOCKCDN_CLEAN_ROOT). Needs root.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import REPO, fetch
from test_clean_root import multipart

FIXTURES = REPO / "Fixtures" / "media"
ADMIN_TOKEN = "dist-check-admin-token-" + uuid.uuid4().hex[:8]
TAG = "localhost/mockcdn:dist-check"


def podman_command(store: Path) -> list[str]:
    """podman on the store of its own, as a sandbox without systemd runs it."""
    # The run root is short-lived state, and podman takes at most 50 characters for its path.
    return ["podman", "--root", str(store / "storage"), "--runroot", "/run/mockcdn-dist-check",
            "--cgroup-manager=cgroupfs", "--runtime", "runc"]


class Podman:
    def __init__(self, store: Path):
        self.base = podman_command(store)

    def __call__(self, *argv: str, check: bool = True, timeout: float = 900, **kwargs) -> subprocess.CompletedProcess:
        result = subprocess.run([*self.base, *argv], capture_output=True, text=True, timeout=timeout, **kwargs)
        if check and result.returncode != 0:
            pytest.fail(f"podman {' '.join(argv)} exited {result.returncode}:\n{result.stdout[-3000:]}"
                        f"\n{result.stderr[-3000:]}")
        return result


def ulimits() -> list[str]:
    """Explicit limits within this process's own: runc cannot raise them past what the sandbox allows."""
    import resource

    flags = []
    for name, kind in (("nofile", resource.RLIMIT_NOFILE), ("nproc", resource.RLIMIT_NPROC)):
        _, hard = resource.getrlimit(kind)
        value = 4096 if hard == resource.RLIM_INFINITY else min(4096, hard)
        flags += ["--ulimit", f"{name}={value}:{value}"]
    return flags


@pytest.fixture(scope="session")
def podman():
    if os.geteuid() != 0:
        pytest.skip("make dist-check needs root (podman's store and network): not run")
    if not shutil.which("podman") or not shutil.which("runc"):
        pytest.fail("podman and runc are missing: make dist-check installs them with apt")
    cache = Path(os.environ["MOCKCDN_CLEAN_ROOT"])
    engine = Podman(cache / "podman")
    if engine("image", "exists", "docker.io/library/debian:bookworm-slim", check=False).returncode != 0:
        archive = subprocess.Popen(["tar", "-C", str(cache / "root"), "-c", "."], stdout=subprocess.PIPE)
        engine("import", "-", "docker.io/library/debian:bookworm-slim", stdin=archive.stdout)
        assert archive.wait() == 0
    return engine


@pytest.fixture(scope="session")
def image(podman):
    dist = sorted((REPO / "dist").glob("mockcdn-*-linux-*.tar.gz"))
    assert [path.resolve() for path in dist] == [Path(os.environ["MOCKCDN_DIST"]).resolve()], (
        f"dist/ must hold only the tarball under test (the image copies every one): {dist}")
    podman("build", "--network", "host", "--format", "docker", "-f", "docker/Dockerfile",
           "--build-arg", "TARBALL_FROM=prebuilt", "-t", TAG, ".", cwd=REPO, timeout=1800)
    # The layers of earlier runs' images, untagged now, are not kept in the cache.
    podman("image", "prune", "-f", check=False)
    return TAG


@pytest.fixture(scope="session")
def container(podman, image):
    """The image run as a user would, `-p` on a free loopback port and MOCKCDN_ADMIN_TOKEN set; its base URL."""
    name = "mockcdn-dist-check-" + uuid.uuid4().hex[:8]
    podman("run", "-d", "--name", name, *ulimits(), "-p", "127.0.0.1::8080", "-e",
           f"MOCKCDN_ADMIN_TOKEN={ADMIN_TOKEN}", image)
    try:
        port = podman("port", name, "8080/tcp").stdout.strip().rsplit(":", 1)[1]
        base = f"http://127.0.0.1:{port}"
        # Started in well under a second; 60 s is a deadline, and a container that exits fails at once.
        deadline = time.monotonic() + 60
        while True:
            try:
                if fetch(base + "/_mockcdn/health")[0] == 200:
                    break
            except OSError:
                pass
            state = podman("inspect", "--format", "{{.State.Status}}", name).stdout.strip()
            if state != "running" or time.monotonic() > deadline:
                pytest.fail(f"the container is {state}, health never answered:\n"
                            + podman("logs", name, check=False).stdout[-3000:])
            time.sleep(0.1)
        yield name, base
    finally:
        podman("rm", "-f", name, check=False)


def inside(podman, name: str, *argv: str) -> str:
    return podman("exec", name, *argv).stdout.strip()


def jpeg_size(data: bytes) -> tuple[int, int]:
    """Width and height from a JPEG's start-of-frame segment."""
    index = 2
    while index < len(data):
        marker, length = data[index + 1], int.from_bytes(data[index + 2:index + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[index + 7:index + 9], "big"), int.from_bytes(data[index + 5:index + 7], "big")
        index += 2 + length
    raise AssertionError("no start-of-frame segment")


def test_it_runs_as_mockcdn_and_its_health_check_passes(podman, container):
    name, _ = container
    assert inside(podman, name, "id", "-un") == "mockcdn"
    inspected = json.loads(podman("inspect", name).stdout)[0]
    assert inspected["Config"]["User"] == "mockcdn"
    assert inspected["Config"]["Healthcheck"]["Test"][-1].startswith("curl -fsS http://127.0.0.1:8080/_mockcdn/health")
    check = podman("healthcheck", "run", name, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_admin_token_guards_the_control_routes_and_health_stays_open(container):
    _, base = container
    assert fetch(base + "/_mockcdn/health")[0] == 200
    # Through the published port the request is not from loopback: the token is needed.
    assert fetch(base + "/_mockcdn/requests")[0] == 401
    assert fetch(base + "/_mockcdn/requests", {"Authorization": "Bearer not-the-token"})[0] == 401
    assert fetch(base + "/_mockcdn/requests", {"Authorization": f"Bearer {ADMIN_TOKEN}"})[0] == 200


def test_it_serves_the_installed_fixtures_with_a_fat(podman, container):
    name, base = container
    fat = inside(podman, name, "mockcdn", "token", "fat", "--user-id", "alice")
    sample = (FIXTURES / "sample.png").read_bytes()
    assert fetch(base + "/demo/fixtures/sample.png")[0] == 401
    assert fetch(base + "/demo/fixtures/sample.png", {"fat": fat})[:2] == (200, sample)


def test_a_cloudfront_signed_resize(podman, container):
    name, base = container
    link = inside(podman, name, "mockcdn", "sign", "cloudfront", base + "/demo/fixtures/sample.jpg")
    status, body, headers = fetch(link + "&w=100")
    assert status == 200 and headers["Content-Type"] == "image/jpeg", body[:300]
    assert jpeg_size(body)[0] == 100
    assert fetch(link.replace("Signature=", "Signature=A") + "&w=100")[0] in (401, 403)


def test_a_video_upload_gets_a_poster(podman, container):
    name, base = container
    token = inside(podman, name, "mockcdn", "token", "user", "--user-id", "alice")
    body, content_type = multipart("sample.mp4", "video/mp4", (FIXTURES / "sample.mp4").read_bytes())
    status, answer, _ = fetch(base + "/channels/messaging/general/file?api_key=demo-key", {
        "Authorization": f"Bearer {token}", "stream-auth-type": "jwt", "Content-Type": content_type}, body, "POST")
    assert status == 201, answer[:500]
    status, poster, headers = fetch(json.loads(answer)["thumb_url"])
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    assert jpeg_size(poster)[0] == 150


def test_the_python_testcontainers_module_hands_out_a_ready_client(podman, image, monkeypatch):
    """`mockcdn.testcontainers.MockCDNContainer` against podman's Docker-compatible API (`podman system
    service`): it waits on health, serves a folder of the host as fixtures, and its client has the token."""
    import tempfile

    socket = Path("/run/mockcdn-dist-check/podman.sock")
    socket.unlink(missing_ok=True)
    service = subprocess.Popen([*podman.base, "system", "service", "--time=0", f"unix://{socket}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    fixtures = Path(tempfile.mkdtemp(prefix="mockcdn-dist-check-fixtures-"))
    try:
        # It listens in well under a second; 30 s is a deadline, and a service that exits fails at once.
        deadline = time.monotonic() + 30
        while not socket.exists():
            assert service.poll() is None and time.monotonic() < deadline, service.stderr.read()
            time.sleep(0.05)
        monkeypatch.setenv("DOCKER_HOST", f"unix://{socket}")
        # No reaper container (its image would come from a registry): the `with` block removes this one.
        monkeypatch.setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
        # This machine may itself be a container (/.dockerenv): the published port is still on its loopback.
        monkeypatch.setenv("TESTCONTAINERS_CONNECTION_MODE", "docker_host")
        # Read when testcontainers is first imported.
        from mockcdn.testcontainers import MockCDNContainer

        # The container user reads the folder.
        fixtures.chmod(0o755)
        only = b"only this fixture " + uuid.uuid4().bytes
        (fixtures / "only.txt").write_bytes(only)
        (fixtures / "only.txt").chmod(0o644)
        import docker

        limits = [docker.types.Ulimit(name=name, soft=4096, hard=4096) for name in ("nofile", "nproc")]
        with MockCDNContainer(image=image).with_fixtures(fixtures).with_kwargs(ulimits=limits) as container:
            cdn = container.client()
            assert cdn.health()["status"] == "ok"
            fat = cdn.token("fat", user_id="alice")
            assert fetch(container.get_url() + "/demo/fixtures/only.txt", {"fat": fat})[:2] == (200, only)
            assert fetch(container.get_url() + "/demo/fixtures/sample.png", {"fat": fat})[0] == 404
            assert fetch(container.get_url() + "/_mockcdn/requests")[0] == 401
            assert [entry["status"] for entry in cdn.requests(path="/demo/fixtures/")] == [200, 404]
        with pytest.raises(ValueError, match="at least 16 characters"):
            MockCDNContainer(image=image, admin_token="short")
    finally:
        service.terminate()
        service.wait(timeout=60)
        shutil.rmtree(fixtures, ignore_errors=True)
