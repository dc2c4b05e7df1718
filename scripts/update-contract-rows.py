#!/usr/bin/env python3
"""Writes the contract coverage table (`mockcdn report --list`, from ContractBehaviours in the code) into
docs/report.md and the `ContractRowId` enum of openapi.yaml, between their `contract-rows:start` and
`contract-rows:end` markers. With --check it changes nothing and exits 1 naming a file that differs (the
Swift test ContractReportDriftTests checks the same on every `swift test`).

Usage: scripts/update-contract-rows.py [--check] [--binary .build/debug/mockcdn]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
START, END = "contract-rows:start", "contract-rows:end"


def replaced(text: str, body: str) -> str:
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if START in line)
    end = next(i for i in range(start, len(lines)) if END in lines[i])
    return "\n".join(lines[: start + 1] + body.rstrip("\n").split("\n") + lines[end:])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--binary", default=str(REPO / ".build" / "debug" / "mockcdn"))
    args = parser.parse_args()
    table = subprocess.run([args.binary, "report", "--list"], check=True, capture_output=True, text=True).stdout
    ids = re.findall(r"^\| `([^`]+)` \|", table, flags=re.M)
    targets = {
        REPO / "docs" / "report.md": table,
        REPO / "openapi.yaml": "".join(f"        - {row}\n" for row in ids),
    }
    drift = []
    for path, body in targets.items():
        text = path.read_text()
        new = replaced(text, body)
        if new != text:
            drift.append(path.relative_to(REPO))
            if not args.check:
                path.write_text(new)
    if args.check and drift:
        print("contract rows differ from the code in: " + ", ".join(map(str, drift))
              + " (run scripts/update-contract-rows.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
