"""The MockCDN binary a wheel carries, and the ``mockcdn`` command that runs it.

A wheel built by ``make dist`` holds the release tarball's tree under ``mockcdn/_dist`` (``bin/mockcdn``,
``lib/mockcdn/``, ``share/mockcdn/``), and installs :func:`main` as the ``mockcdn`` command. Before it runs
the binary, the command checks the Debian packages that ``share/mockcdn/runtime-packages.txt`` lists, and
names the missing ones instead of leaving the user a loader error. An editable install of the helper carries
no binary: :func:`binary` is then ``None``.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

#: The tarball's tree inside the installed package, when the wheel carries one.
ROOT = Path(__file__).resolve().parent / "_dist"


@dataclass(frozen=True)
class RuntimePackage:
    """One line of ``runtime-packages.txt``: the Debian package, the soname or program MockCDN uses of it
    (``-`` for none), when it is needed (``start``, ``images``, ``posters``, ``https`` or ``container``) and
    why."""

    name: str
    provides: str
    needed_for: str
    why: str

    def present(self) -> bool:
        """Whether what MockCDN uses of the package can be found: the library loads, the program is on
        ``PATH``. A package that provides nothing checkable counts as present."""
        if self.provides == "-":
            return True
        if ".so" in self.provides:
            try:
                ctypes.CDLL(self.provides)
            except OSError:
                return False
            return True
        return shutil.which(self.provides) is not None


def binary() -> Path | None:
    """The bundled ``bin/mockcdn``, or ``None`` when this install carries none."""
    path = ROOT / "bin" / "mockcdn"
    return path if path.is_file() else None


def fixtures() -> Path | None:
    """The bundled sample media, or ``None``."""
    path = ROOT / "share" / "mockcdn" / "fixtures"
    return path if path.is_dir() else None


def runtime_packages() -> list[RuntimePackage]:
    """The bundled ``runtime-packages.txt``, parsed; empty when this install carries none."""
    path = ROOT / "share" / "mockcdn" / "runtime-packages.txt"
    if not path.is_file():
        return []
    packages = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            packages.append(RuntimePackage(*line.split(None, 3)))
    return packages


def missing_packages() -> list[RuntimePackage]:
    """The listed packages a machine running the binary needs (not the container's own) that are missing."""
    return [p for p in runtime_packages() if p.needed_for != "container" and not p.present()]


def advice(missing: list[RuntimePackage]) -> str:
    """What to tell a user about ``missing``: the packages, why each is needed, and the command."""
    lines = ["MockCDN needs Debian/Ubuntu packages that this machine lacks:"]
    lines += [f"  {p.name} ({p.provides}): {p.why}" for p in missing]
    lines.append("Install them with:  sudo apt-get install --no-install-recommends "
                 + " ".join(p.name for p in missing))
    lines.append("(On Ubuntu 24.04, libvips42 is libvips42t64 and libssl3 is libssl3t64.)")
    return "\n".join(lines)


def check() -> str | None:
    """``None`` when the binary can start; else the advice, when a package it links is missing. A missing
    package needed only for images or posters is reported on stderr, and the binary still starts."""
    missing = missing_packages()
    if not missing:
        return None
    if any(p.needed_for == "start" for p in missing):
        return advice(missing)
    print(advice(missing) + "\nMockCDN starts without them; image transforms and video posters answer 503.",
          file=sys.stderr)
    return None


def main() -> None:
    """The ``mockcdn`` command: runs the bundled binary with this process's arguments."""
    path = binary()
    if path is None:
        sys.exit("this install of the mockcdn package carries no binary (an editable install): build one with "
                 "`make release`, or install the wheel `make dist` builds")
    problem = check()
    if problem is not None:
        sys.exit(problem)
    os.execv(path, [str(path), *sys.argv[1:]])
