"""make dist-check's smoke suite: the release tarball and the wheel, as a user runs them, in a clean Debian
bookworm root that has only the packages packaging/runtime-packages.txt lists (see conftest.py). Nothing
from the build machine is inside: no Swift toolchain, no -dev package, no Python but in the wheel step.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import struct
import subprocess
import uuid
import zlib
from pathlib import Path

import pytest

from conftest import REPO, fetch

FIXTURES = REPO / "Fixtures" / "media"
#: pip wants a home for its cache; the server is given none.
PIP_HOME = {"HOME": "/tmp"}
VENV_PATH = {"PATH": "/tmp/venv/bin:/usr/local/bin:/usr/bin:/bin", **PIP_HOME}
LIST = REPO / "packaging" / "runtime-packages.txt"


def packages() -> list[str]:
    return [line.split()[0] for line in LIST.read_text().splitlines() if line.strip() and not line.startswith("#")]


def halves_png(width: int = 64, height: int = 32) -> bytes:
    """A PNG whose left half is red and right half is blue."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    row = b"\x00" + b"\xff\x00\x00" * (width // 2) + b"\x00\x00\xff" * (width - width // 2)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(row * height))
            + chunk(b"IEND", b""))


def multipart(name: str, content_type: str, data: bytes) -> tuple[bytes, str]:
    boundary = "dist" + uuid.uuid4().hex
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: {content_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def stream_upload(root, base: str, kind: str, name: str, content_type: str, data: bytes) -> dict:
    """A Stream upload with a user JWT the CLI minted inside the root at the server's clock."""
    token = root.run("mockcdn", "token", "user", "--user-id", "alice", "--server", base).stdout.strip()
    body, content_type_header = multipart(name, content_type, data)
    status, answer, _ = fetch(f"{base}/channels/messaging/general/{kind}?api_key=demo-key", {
        "Authorization": f"Bearer {token}", "stream-auth-type": "jwt", "Content-Type": content_type_header,
    }, body, "POST")
    assert status == 201, answer[:500]
    return json.loads(answer)


def decoded(root, data: bytes, name: str) -> tuple[int, int, bytes]:
    """Width, height and RGB pixels of an image, decoded by the root's own ffmpeg (a decode that fails fails
    the test)."""
    path = root.put(f"/tmp/{uuid.uuid4().hex}-{name}", data)
    probe = root.run("ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                     "-of", "csv=p=0", path).stdout.strip()
    width, height = (int(part) for part in probe.split(","))
    raw = root.command("ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-")
    pixels = subprocess.run(raw, capture_output=True, check=True, timeout=60).stdout
    assert len(pixels) == width * height * 3
    return width, height, pixels


# MARK: - What is shipped


def test_every_shipped_elf_file_finds_every_library_in_the_root(root):
    shipped = [path for path in (root.path / "usr" / "local").rglob("*")
               if path.is_file() and path.read_bytes()[:4] == b"\x7fELF"]
    names = sorted(str(path.relative_to(root.path)) for path in shipped)
    assert names == ["usr/local/bin/mockcdn", "usr/local/lib/mockcdn/libMockCDNVips.so",
                     "usr/local/lib/mockcdn/mockcdn-imaging"]
    for name in names:
        linked = root.run("ldd", "/" + name).stdout
        assert "not found" not in linked, f"{name} needs a library the run-stage packages do not give:\n{linked}"
        assert "libswift" not in linked and "libFoundation" not in linked, linked


def test_the_root_has_exactly_the_listed_packages_and_no_toolchain(root):
    installed = root.run("dpkg-query", "-W", "-f", "${Package} ${Status}\n").stdout
    names = {line.split()[0] for line in installed.splitlines() if line.endswith("installed")}
    assert set(packages()) <= names
    toolchain = {"gcc", "gcc-12", "g++", "cpp", "clang", "binutils", "python3"}
    assert not {name for name in names if name.endswith("-dev") or name in toolchain}
    assert root.run("sh", "-c", "command -v swift clang cc python3 || true").stdout.strip() == ""
    # The install folder is read-only to the server's user.
    assert root.run("touch", "/usr/local/bin/x", check=False).returncode != 0


# MARK: - The server, started with `mockcdn serve` and nothing else


def test_health_and_the_installed_fixtures(root, base):
    status, body, _ = fetch(base + "/_mockcdn/health")
    assert status == 200 and json.loads(body)["status"] == "ok"
    status, body, _ = fetch(base + "/_mockcdn/objects?app=demo")
    assert status == 200, body
    keys = {item["key"] for item in json.loads(body)["objects"]}
    expected = {f"demo/fixtures/{p.name}" for p in FIXTURES.iterdir() if p.name != "README.md"}
    assert expected <= keys, expected - keys


def test_a_cloudfront_signed_resize_checked_by_its_pixels(root, base):
    answer = stream_upload(root, base, "image", "halves.png", "image/png", halves_png())
    link = answer["file"]
    assert "Signature=" in link and "Key-Pair-Id=" in link, link
    status, body, headers = fetch(link + "&w=16&h=8&resize=scale")
    assert status == 200 and headers["Content-Type"] == "image/png", body[:300]
    width, height, pixels = decoded(root, body, "resized.png")
    assert (width, height) == (16, 8)
    left, right = pixels[(4 * 16 + 2) * 3:(4 * 16 + 3) * 3], pixels[(4 * 16 + 13) * 3:(4 * 16 + 14) * 3]
    assert left[0] > 200 and left[2] < 50, left
    assert right[2] > 200 and right[0] < 50, right
    # The CLI signs a link the server accepts, at the server's clock.
    signed = root.run("mockcdn", "sign", "cloudfront", link.split("?")[0], "--server", base).stdout.strip()
    assert fetch(signed)[0] == 200
    tampered = signed.replace("Signature=", "Signature=A")
    assert fetch(tampered)[0] in (401, 403)


def processes_in(root, name: str) -> list[int]:
    """The pids of the processes called `name` that run inside `root`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and (entry / "comm").read_text().strip() == name
                    and os.readlink(entry / "root") == str(root.path)):
                found.append(int(entry.name))
        except OSError:
            continue  # it ended while being read
    return found


def test_libvips_runs_in_the_image_worker_and_never_in_the_server(root, base):
    answer = stream_upload(root, base, "image", "halves.png", "image/png", halves_png())
    status, body, _ = fetch(answer["file"] + "&w=8&h=8")
    assert status == 200 and body.startswith(b"\x89PNG"), body[:200]
    workers = processes_in(root, "mockcdn-imaging")
    assert workers, "no mockcdn-imaging process runs after a resize"
    for worker in workers:
        parent = int((Path("/proc") / str(worker) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        assert (Path("/proc") / str(parent) / "comm").read_text().strip() == "mockcdn"
        assert "libvips" in (Path("/proc") / str(worker) / "maps").read_text()
        server_maps = (Path("/proc") / str(parent) / "maps").read_text()
        assert "libvips" not in server_maps and "libMockCDNVips" not in server_maps


def test_a_fat_read_and_a_presigned_put_then_get(root, base):
    fat = root.run("mockcdn", "token", "fat", "--user-id", "alice", "--server", base).stdout.strip()
    sample = (FIXTURES / "sample.png").read_bytes()
    assert fetch(base + "/demo/fixtures/sample.png")[0] == 401
    assert fetch(base + "/demo/fixtures/sample.png", {"fat": fat})[:2] == (200, sample)
    assert fetch(base + "/demo/fixtures/sample.png?fat=" + fat)[:2] == (200, sample)
    data = b"clean root " + uuid.uuid4().bytes
    status, body, _ = fetch(base + "/v1/apps/demo/uploads", {"fat": fat, "Content-Type": "application/json"},
                            json.dumps({"files": [{"name": "note.txt", "content_type": "text/plain",
                                                   "size": len(data)}]}).encode(), "POST")
    assert status == 200, body
    upload = json.loads(body)["uploads"][0]
    status, body, _ = fetch(upload["url"], {"Content-Type": "text/plain"}, data, "PUT")
    assert status == 200, body
    assert fetch(f"{base}/{upload['key']}", {"fat": fat})[:2] == (200, data)
    presigned = root.run("mockcdn", "sign", "presign", f"{base}/{upload['key']}", "--server", base).stdout.strip()
    assert fetch(presigned)[:2] == (200, data)


def test_a_video_upload_gets_a_decodable_jpeg_poster(root, base):
    answer = stream_upload(root, base, "file", "sample.mp4", "video/mp4", (FIXTURES / "sample.mp4").read_bytes())
    assert "thumb_url" in answer, answer
    status, body, headers = fetch(answer["thumb_url"])
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    width, height, _ = decoded(root, body, "poster.jpg")
    assert width == 150 and height in (112, 113)


def test_the_console_and_the_openapi_document(base):
    status, body, headers = fetch(base + "/_mockcdn/ui")
    assert status == 200 and b"<html" in body.lower() and headers["Content-Type"].startswith("text/html")
    status, body, _ = fetch(base + "/_mockcdn/openapi.yaml")
    assert status == 200 and body == (REPO / "openapi.yaml").read_bytes()


def test_unpacked_anywhere_it_serves_its_fixtures_and_resizes(root):
    tarball = root.put("/tmp/" + root.tarball.name, root.tarball.read_bytes())
    root.run("mkdir", "/tmp/anywhere")
    root.run("tar", "-xzf", tarball, "-C", "/tmp/anywhere")
    (top,) = (root.path / "tmp" / "anywhere").iterdir()
    with root.serve(binary=f"/tmp/anywhere/{top.name}/bin/mockcdn") as url:
        fat = root.run(f"/tmp/anywhere/{top.name}/bin/mockcdn", "token", "fat", "--user-id", "bo",
                       "--server", url).stdout.strip()
        status, body, _ = fetch(url + "/demo/fixtures/sample.jpg?w=20&h=20", {"fat": fat})
        assert status == 200 and body.startswith(b"\xff\xd8"), body[:200]
    readme = (top / "README.txt").read_text()
    assert readme.count("apt-get install --no-install-recommends libvips42 libssl3 libxml2 ffmpeg ca-certificates") == 1


def test_the_containers_guide_unpacks_the_tarball_as_written(root):
    """The guide's tarball block, which the snippet test cannot run (no tarball exists during `make test`), run
    here as written, as nobody in the clean root, next to the tarball; then the `mockcdn` it put on PATH."""
    guide = (REPO / "docs" / "guides" / "containers-and-ci.md").read_text()
    marker = "<!-- snippet: not run (needs the release tarball, which `make dist` builds; make dist-check runs it) -->\n"
    assert guide.count(marker) == 1, "the containers guide's tarball block and its marker"
    block = guide.split(marker, 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    root.run("mkdir", "-p", "/tmp/guide", user=None)
    root.run("chown", "nobody", "/tmp/guide", user=None)
    root.put("/tmp/guide/" + root.tarball.name, root.tarball.read_bytes())
    result = root.run("/bin/bash", "-euo", "pipefail", "-c", f"cd /tmp/guide\n{block}mockcdn --version\n")
    assert "apt-get install --no-install-recommends" in result.stdout, result.stdout
    assert result.stdout.strip().endswith("0.6.0"), result.stdout


# MARK: - Bad start-up input: a clear message and a non-zero exit


def test_a_port_in_use_stops_the_start_with_a_clear_message(root):
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    try:
        port = str(holder.getsockname()[1])
        result = root.run("mockcdn", "serve", "--port", port, check=False, timeout=60)
    finally:
        holder.close()
    assert result.returncode != 0
    assert "in use" in result.stderr.lower() and port in result.stderr, result.stderr


def test_a_data_dir_it_cannot_write_stops_the_start(root):
    result = root.run("mockcdn", "serve", "--port", "0", "--data-dir", "/usr/local/share/mockcdn/data",
                      check=False, timeout=60)
    assert result.returncode != 0
    assert "/usr/local/share/mockcdn/data" in result.stderr, result.stderr
    assert "permission denied" in result.stderr or "read-only" in result.stderr, result.stderr


def test_a_missing_fixtures_folder_stops_the_start(root):
    result = root.run("mockcdn", "serve", "--port", "0", "--fixtures", "/srv/no-such-folder", check=False, timeout=60)
    assert result.returncode != 0
    assert "/srv/no-such-folder" in result.stderr and "does not exist" in result.stderr, result.stderr


# MARK: - The wheel, in a fresh venv inside the root (python3-venv added for this step only)


@pytest.fixture(scope="module")
def venv(python_root):
    """A fresh venv inside the root with the wheel and pytest installed from files (no index)."""
    wheel = Path(os.environ["MOCKCDN_WHEEL"]).resolve()
    cache = Path(os.environ["MOCKCDN_CLEAN_ROOT"])
    shutil.copytree(cache / "wheels", python_root.path / "tmp" / "wheels")
    shutil.copy2(wheel, python_root.path / "tmp" / "wheels" / wheel.name)
    python_root.run("python3", "-m", "venv", "/tmp/venv", env=PIP_HOME)
    python_root.run("/tmp/venv/bin/pip", "install", "-q", "--no-index", "--find-links", "/tmp/wheels",
                    f"/tmp/wheels/{wheel.name}", "pytest", env=PIP_HOME, timeout=300)
    return python_root


def test_the_wheel_installs_a_mockcdn_command_and_the_pytest_plugin(venv):
    root = venv
    shutil.copytree(REPO / "clients" / "python" / "tests", root.path / "tmp" / "helper" / "tests")
    shutil.copy2(REPO / "clients" / "python" / "pyproject.toml", root.path / "tmp" / "helper" / "pyproject.toml")
    # The command is on the venv's PATH, with no MOCKCDN_BINARY: it runs the wheel's own binary.
    version = root.run("mockcdn", "--version", env=VENV_PATH).stdout.strip()
    assert version and version[0].isdigit(), version
    # The helper's own suite, against the installed command (its fixtures are the wheel's).
    result = root.run("/tmp/venv/bin/python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "/tmp/helper/tests",
                      env={**VENV_PATH, "PYTHONDONTWRITEBYTECODE": "1"}, check=False, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout


def test_the_wheel_names_the_missing_packages_instead_of_a_loader_error(venv):
    """libcrypto moved away in the root (the overlay's copy; the cache keeps its own), then the command."""
    root = venv
    library = root.run("sh", "-c", "ls /usr/lib/*/libcrypto.so.3").stdout.strip()
    root.run("mv", library, library + ".hidden", user=None)
    try:
        result = root.run("mockcdn", "serve", "--port", "0", env=VENV_PATH, check=False)
    finally:
        root.run("mv", library + ".hidden", library, user=None)
    assert result.returncode != 0
    assert "libssl3" in result.stderr and "apt-get install" in result.stderr, result.stderr
    assert "error while loading shared libraries" not in result.stderr
