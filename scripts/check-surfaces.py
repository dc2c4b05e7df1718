#!/usr/bin/env python3
"""Fails when an API surface of MockCDNServer uses a type declared in a sibling surface.

The server is sorted by API surface (`Stream/`, `CometChat/`, `Media/`, `TestControl/`, and `S3/` once it
exists). A surface may use `Shared/`, `Configuration/` types handed to it, and the other modules (MockCDNCore,
MockCDNS3, Hummingbird...); never a sibling's. `Shared/` uses no surface. Only the files at the root of
MockCDNServer (`App+build.swift`, `ServerServices.swift`, `RouteCatalog.swift`) assemble surfaces, so only they
name several.

How: every name declared at the top level of a file (struct, class, enum, protocol, actor, typealias, func,
let, var in column 0) belongs to that file's folder. A file that mentions, outside comments and string
literals, a name that belongs to another folder it may not use is a failure, printed as
`FILE:LINE: Stream uses CometChat's CometChatError`. Members added by an extension in another folder are not
seen (an extension declares no new top-level name); keep such extensions in the folder of the type they extend.

Usage: scripts/check-surfaces.py [SOURCES_DIR]   (default: Sources/MockCDNServer)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SURFACES = {"Stream", "CometChat", "Media", "TestControl", "S3"}
# What each kind of folder may use besides itself.
ALLOWED = {
    "Shared": {"Shared"},
    "Configuration": {"Shared", "Configuration"},
    **{surface: {"Shared", "Configuration"} for surface in SURFACES},
}
DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated)\s+)*"
    r"(?:struct|class|enum|protocol|actor|typealias|func|let|var)\s+([A-Za-z_]\w*)",
    re.M,
)
WORD = re.compile(r"\b[A-Za-z_]\w*\b")


def folder_of(path: Path, root: Path) -> str:
    parts = path.relative_to(root).parts
    return parts[0] if len(parts) > 1 else "(root)"


def code_lines(text: str) -> list[str]:
    """The file's lines with comments and string literals blanked (line numbers kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r'"""(.*?)"""', lambda m: '""' + "\n" * m.group(0).count("\n"), text, flags=re.S)
    lines = []
    for line in text.split("\n"):
        line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
        lines.append(line.split("//", 1)[0])
    return lines


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "Sources/MockCDNServer")
    files = sorted(root.rglob("*.swift"))
    owners: dict[str, set[str]] = {}
    for path in files:
        for match in DECLARATION.finditer(path.read_text()):
            owners.setdefault(match.group(1), set()).add(folder_of(path, root))
    failures = []
    for path in files:
        folder = folder_of(path, root)
        if folder not in ALLOWED:
            continue
        may_use = ALLOWED[folder] | {folder}
        for number, line in enumerate(code_lines(path.read_text()), start=1):
            for name in set(WORD.findall(line)):
                owning = owners.get(name, set())
                # A name declared in the file's own folder, or in one it may use, is that one.
                if not owning or owning & may_use:
                    continue
                for other in sorted(owning):
                    failures.append(f"{path}:{number}: {folder} uses {other}'s {name}")
    for failure in failures:
        print(failure)
    if failures:
        print(f"{len(failures)} use(s) of a sibling surface's names; move what two surfaces share to Shared/")
        return 1
    print(f"surfaces closed: {len(files)} files, {', '.join(sorted(SURFACES & {folder_of(p, root) for p in files}))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
