#!/usr/bin/env python3
"""Fails when a folder of MockCDNServer uses a type it may not, or when `Shared/` names a vendor.

The server is sorted into three kinds of folder:
- API surfaces (`Stream/`, `CometChat/`, `Media/`, `S3/`, `TestControl/`): one per API a client speaks;
- rooms (`Intake/`, `Events/`, `Delivery/`, `Webhooks/`, `Links/`, `Objects/`, `Observers/`): what several
  surfaces do, each named for what it does;
- `Shared/`: plumbing only (HTTP helpers, errors, the credentials' shared protocol), and `Configuration/`.

A surface may use `Shared/`, `Configuration/` types handed to it, every room, and the other modules
(MockCDNCore, MockCDNS3, Hummingbird...); never a sibling surface's, except that `Media/` uses `S3/`: the CDN
answers in S3's and CloudFront's error envelope and reads the headers S3 stored. A room uses `Shared/` and
the rooms listed for it, never a surface. `Shared/` uses nothing else and names no vendor: no identifier in
its code says Stream, CometChat, S3, Amz or AWS. Only the files at the root of MockCDNServer
(`App+build.swift`, `ServerServices+make.swift`, `RouteCatalog.swift`) assemble surfaces, so only they name
several.

How: every name declared at the top level of a file (struct, class, enum, protocol, actor, typealias, func,
let, var in column 0) belongs to that file's folder. A file that mentions, outside comments and string
literals, a name that belongs to another folder it may not use is a failure, printed as
`FILE:LINE: Stream uses CometChat's CometChatError`. Members added by an extension in another folder are not
seen (an extension declares no new top-level name); keep such extensions in the folder of the type they extend,
or in the room whose work they are.

Usage: scripts/check-surfaces.py [SOURCES_DIR]   (default: Sources/MockCDNServer)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SURFACES = {"Stream", "CometChat", "Media", "TestControl", "S3"}
# Each room and the rooms it may use besides Shared/.
ROOMS = {
    "Links": set(),
    "Delivery": set(),
    "Intake": {"Events"},
    "Events": {"Delivery"},
    "Objects": {"Intake", "Events"},
    "Webhooks": {"Delivery"},
    "Observers": set(),
}
# What each folder may use besides itself.
ALLOWED = {
    "Shared": {"Shared"},
    "Configuration": {"Shared", "Configuration", "Events", "Observers"},
    **{room: {"Shared"} | uses for room, uses in ROOMS.items()},
    **{surface: {"Shared", "Configuration"} | set(ROOMS) for surface in SURFACES},
}
ALLOWED["Media"] |= {"S3"}
# An identifier that names a vendor, which Shared/ may not have (`AsyncStream` is Swift's, not Stream's).
VENDOR = re.compile(r"(?:Stream|CometChat|S3|Amz|AWS)|^(?:s3|stream|cometChat|amz|aws)[A-Z0-9_]")
NOT_VENDOR = {"AsyncStream", "AsyncThrowingStream", "makeStream", "AsyncStreamIterator"}
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
        if folder == "Shared":
            for number, line in enumerate(code_lines(path.read_text()), start=1):
                if line.lstrip().startswith("import "):
                    continue
                for name in sorted(set(WORD.findall(line)) - NOT_VENDOR):
                    if VENDOR.search(name):
                        failures.append(f"{path}:{number}: Shared names a vendor: {name}")
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
        print(
            f"{len(failures)} use(s) of a name the folder may not use; move what two surfaces share to a room "
            "named for what it does, or plumbing to Shared/"
        )
        return 1
    folders = {folder_of(p, root) for p in files}
    print(
        f"surfaces closed: {len(files)} files, {', '.join(sorted(SURFACES & folders))}; "
        f"rooms {', '.join(sorted(set(ROOMS) & folders))}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
