"""The README's "Try it" block, run as written: only the port (a free one, not 8080) and the binary (the one
under test, not `.build/release`) differ, and `make serve &` becomes starting that binary.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

from conftest import launch
from support import BINARY, REPO, image_size


def try_it_block() -> str:
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Try it\n", 1)[1]
    match = re.search(r"```sh\n(.*?)```", section, re.S)
    assert match, "no sh block under ## Try it"
    return match.group(1)


def test_try_it_runs_as_written(tmp_path):
    block = try_it_block()
    lines = block.splitlines()
    assert lines[0] == "mockcdn serve &", lines[0]
    assert "Fixtures/" not in block, "the README names samples with `mockcdn fixtures`, which works in an install"
    with launch() as server:
        port = server.url.rsplit(":", 1)[1]
        script = "\n".join(lines[1:]).replace("127.0.0.1:8080", f"127.0.0.1:{port}")
        script = script.replace("OUT=$(mktemp -d)", f"OUT={tmp_path}", 1)
        assert f"OUT={tmp_path}" in script
        # `mockcdn` is the binary under test, as on a PATH that has the tarball's bin/ first.
        env = {**os.environ, "PATH": f"{BINARY.parent}{os.pathsep}{os.environ['PATH']}"}
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=120, env=env
        )
    assert result.returncode == 0, result.stderr
    upload = json.loads((tmp_path / "upload.json").read_text())
    assert upload["file"].startswith(server.url + "/demo/images/"), upload
    assert image_size((tmp_path / "thumb.jpg").read_bytes())[0] == 100
    assert (tmp_path / "sample.pdf").read_bytes() == (REPO / "Fixtures/media/sample.pdf").read_bytes()
    for name in ("upload.json", "thumb.jpg", "sample.pdf"):
        assert name in result.stdout


def test_the_runtime_packages_block_is_generated_from_the_list():
    """The README names the runtime packages once, as packaging/runtime_packages.py writes them from the one
    list the Dockerfile, the tarball, the wheel and make dist-check read."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("runtime_packages", REPO / "packaging" / "runtime_packages.py")
    packages = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = packages  # its dataclass looks its module up there
    spec.loader.exec_module(packages)
    readme = (REPO / "README.md").read_text()
    assert readme.count(packages.BEGIN) == 1 and packages.readme_block() in readme, (
        "run `python3 packaging/runtime_packages.py readme`")
    assert readme.count("apt-get install --no-install-recommends") == 1
    assert packages.names() == [line.split()[0] for line in (REPO / "packaging" / "runtime-packages.txt")
                                .read_text().splitlines() if line.strip() and not line.startswith("#")]


def test_the_readme_is_a_front_page():
    """The README is the front page: what MockCDN is, the set-up, a tour, the helpers, the flags and links.
    Everything longer lives in docs/ (the guides, the contract, development, reliability, benchmarks)."""
    lines = (REPO / "README.md").read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move the detail into docs/ (at most 250)"
