#!/usr/bin/env python3
"""Writes the S3 operations MockCDN does not serve (the rows of `S3Operation.all` in
Sources/MockCDNServer/S3/S3Operation.swift answered `.notImplemented`) into docs/s3-api.md, between its
`s3-not-served:start` and `s3-not-served:end` markers, as `S3Operation.notServedTable` renders them. The Swift
test S3OperationGateTests ("docs/s3-api.md lists the operations not served") checks the same on every
`swift test`.

Usage: scripts/update-s3-not-served.py
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TABLE = REPO / "Sources/MockCDNServer/S3/S3Operation.swift"
DOCS = REPO / "docs/s3-api.md"
ROW = re.compile(
    r'S3Operation\(\s*\[(.*?)\],\s*\.(\w+),\s*\.(\w+),\s*(nil|"[^"]*"),\s*\.(\w+)(?:,\s*service:\s*"(\w+)")?\s*\)',
    re.S)
PATHS = {"service": "/", "bucket": "/{bucket}", "object": "/{bucket}/{key}", "objectLambda": "/WriteGetObjectResponse"}


def table() -> str:
    lines = ["| request | operations | answer |", "|---|---|---|"]
    for match in ROW.finditer(TABLE.read_text()):
        if match.group(5) != "notImplemented":
            continue
        names, method, target, subresource, _, service = match.groups()
        names = re.sub(r"\s+", " ", names.strip().rstrip(","))
        request = f"{method.upper()} {PATHS[target]}" + ("" if subresource == "nil" else "?" + subresource.strip('"'))
        request += f" (signed for {service})" if service else ""
        lines.append(f"| `{request}` | {names.replace(chr(34), '')} | 501 `NotImplemented` |")
    return "\n".join(lines) + "\n"


def main() -> None:
    text = DOCS.read_text()
    start = text.index("<!-- s3-not-served:start -->\n") + len("<!-- s3-not-served:start -->\n")
    end = text.index("<!-- s3-not-served:end -->")
    DOCS.write_text(text[:start] + table() + text[end:])


if __name__ == "__main__":
    main()
