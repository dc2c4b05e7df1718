"""packaging/runtime-packages.txt, the one list of the Debian packages MockCDN needs at run time, and the text
made from it. `python3 packaging/runtime_packages.py names` prints every package; `... names --for-host`
leaves out the container's own; `... install-text` prints the install instructions the tarball's README.txt
and the README's "Download and run" section carry; `... readme` writes them into README.md between its
markers (Tests/compat/test_readme.py fails when they differ)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

LIST = Path(__file__).resolve().with_name("runtime-packages.txt")
README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- runtime packages: generated from packaging/runtime-packages.txt by `python3 packaging/runtime_packages.py readme` -->"
END = "<!-- end of runtime packages -->"


@dataclass(frozen=True)
class RuntimePackage:
    name: str
    provides: str  # a shared library's soname, a program, or "-"
    needed_for: str  # start, images, posters, https or container
    why: str


def load(path: Path = LIST) -> list[RuntimePackage]:
    packages = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, provides, needed_for, why = line.split(None, 3)
        packages.append(RuntimePackage(name, provides, needed_for, why))
    return packages


def names(for_host: bool = False) -> list[str]:
    """Every package, or (for_host) the ones a machine running the tarball or the wheel needs."""
    return [p.name for p in load() if not (for_host and p.needed_for == "container")]


def install_text() -> str:
    """The install instructions, as the tarball's README.txt and the README carry them."""
    lines = [
        "On Debian 12 or Ubuntu 22.04 and later, MockCDN needs these packages at run time:",
        "",
        "    apt-get install --no-install-recommends " + " ".join(names(for_host=True)),
        "",
    ]
    lines += [f"- {p.name}: {p.why}" for p in load() if p.needed_for != "container"]
    lines += ["", "On Ubuntu 24.04 two are renamed: libvips42t64 and libssl3t64. The Swift runtime is linked in."]
    return "\n".join(lines)


def readme_block() -> str:
    """The README's generated block, markers included."""
    return f"{BEGIN}\n```text\n{install_text()}\n```\n{END}"


def readme_with_block(text: str) -> str:
    """`text` (the README) with its generated block made anew."""
    head, rest = text.split(BEGIN, 1)
    return head + readme_block() + rest.split(END, 1)[1]


if __name__ == "__main__":
    command = sys.argv[1] if len(sys.argv) > 1 else "names"
    if command == "names":
        print(" ".join(names(for_host="--for-host" in sys.argv)))
    elif command == "install-text":
        print(install_text())
    elif command == "readme":
        README.write_text(readme_with_block(README.read_text()))
    else:
        sys.exit(f"unknown command {command}: names [--for-host] | install-text | readme")
