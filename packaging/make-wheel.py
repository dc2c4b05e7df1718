"""Wraps the release tarball in a Python wheel: the helper package (clients/python) with the tarball's tree
under mockcdn/_dist and a `mockcdn` command (mockcdn.bundled:main). setuptools builds it, and `wheel tags`
tags it for this machine's platform (linux_x86_64, say): the binary is not tied to a Python version, but to
the platform and the Debian packages packaging/runtime-packages.txt lists. Prints the wheel's path.

Usage: python3 packaging/make-wheel.py dist/mockcdn-VERSION-linux-ARCH.tar.gz
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Added to the helper's pyproject.toml in the staging copy only: an editable install has no binary to run.
WHEEL_ONLY = """
[project.scripts]
mockcdn = "mockcdn.bundled:main"
"""


def main(tarball: Path) -> Path:
    out = REPO / "dist"
    with tempfile.TemporaryDirectory(prefix="mockcdn-wheel-") as scratch:
        stage = Path(scratch) / "src"
        shutil.copytree(REPO / "clients" / "python", stage,
                        ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info", "build"))
        dist = stage / "mockcdn" / "_dist"
        with tarfile.open(tarball) as archive:
            top = archive.getmembers()[0].name.split("/")[0]
            members = [m for m in archive.getmembers()
                       if m.name.split("/")[1:2] and m.name.split("/")[1] in ("bin", "lib", "share")]
            for member in members:
                member.name = member.name[len(top) + 1:]
            archive.extractall(dist, members=members, filter="data")
        pyproject = stage / "pyproject.toml"
        text = pyproject.read_text().replace('mockcdn = ["py.typed"]', 'mockcdn = ["py.typed", "_dist/**/*"]')
        pyproject.write_text(text + WHEEL_ONLY)
        built = Path(scratch) / "wheel"
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "-w", str(built), str(stage)], check=True)
        (wheel,) = built.glob("mockcdn-*.whl")
        platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
        subprocess.run([sys.executable, "-m", "wheel", "tags", "--remove", "--platform-tag", platform, str(wheel)],
                       check=True, stdout=subprocess.DEVNULL)
        (tagged,) = built.glob("mockcdn-*.whl")
        out.mkdir(exist_ok=True)
        for old in out.glob("mockcdn-*.whl"):
            old.unlink()
        return Path(shutil.move(tagged, out / tagged.name))


if __name__ == "__main__":
    print(main(Path(sys.argv[1])).relative_to(REPO))
