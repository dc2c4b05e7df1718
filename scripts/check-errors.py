#!/usr/bin/env python3
"""Fails when an error type of MockCDN's does not say what kind of failure it is.

Every error an API surface can answer with is rendered by its category (`CategorizedError` in MockCDNCore)
or is an envelope already (`ErrorEnvelope`, `HTTPResponseError`); see `Shared/Errors/` in MockCDNServer. A
new error type that conforms to neither would reach a client as an "internal error", so this check lists
every type declared as an `Error` in the server's, the core's and the S3 store's sources and fails on one
that conforms to none of them, neither in its declaration nor in an extension.

A few errors never reach an envelope and are listed below with the reason. An extension is matched to a type
by its last name component (`extension ImageTransform.Invalid` counts for every type named `Invalid`), so give
an error a conformance in its declaration where you can.

Usage: scripts/check-errors.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SOURCES = ["Sources/MockCDNServer", "Sources/MockCDNCore", "Sources/MockCDNS3"]
RENDERED = {"CategorizedError", "ErrorEnvelope", "HTTPResponseError"}
NEVER_ANSWERED = {
    # Wraps another error with the credential that authorised the request; the envelope renders the inner one.
    "NotedError": "a wrapper, unwrapped by ErrorEnvelopeMiddleware",
    # Thrown while a response body is written, to cut the connection on purpose: no answer follows.
    "FaultCut": "cuts a connection mid-body; never answered",
    # Private to the disk store's start: caught where it is thrown, and the entry is skipped and reported.
    "Unusable": "caught by DiskObjectStore while it opens its folder",
}
DECLARATION = re.compile(
    r"^\s*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*(?:struct|enum|class|actor)\s+"
    r"(\w+)\s*(?:<[^>]*>)?\s*:\s*([^{]+)\{",
    re.M,
)
EXTENSION = re.compile(r"^\s*(?:public\s+)?extension\s+([\w.]+)\s*:\s*([^{]+)\{", re.M)


def names(conformances: str) -> set[str]:
    return {part.strip().split(".")[-1] for part in re.sub(r"\bwhere\b.*", "", conformances).split(",")}


def main() -> int:
    files = [path for root in SOURCES for path in sorted(Path(root).rglob("*.swift"))]
    declared: list[tuple[str, Path, set[str]]] = []
    extended: dict[str, set[str]] = {}
    for path in files:
        text = path.read_text()
        for match in DECLARATION.finditer(text):
            declared.append((match.group(1), path, names(match.group(2))))
        for match in EXTENSION.finditer(text):
            extended.setdefault(match.group(1).split(".")[-1], set()).update(names(match.group(2)))
    failures = []
    errors = 0
    for name, path, conformances in declared:
        everything = conformances | extended.get(name, set())
        if not everything & (RENDERED | {"Error"}):
            continue
        errors += 1
        if everything & RENDERED or name in NEVER_ANSWERED:
            continue
        failures.append(f"{path}: {name} is an Error with no category: conform it to CategorizedError")
    for failure in failures:
        print(failure)
    if failures:
        return 1
    print(f"errors categorised: {errors} error types, {len(NEVER_ANSWERED)} never answered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
