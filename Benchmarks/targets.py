#!/usr/bin/env python3
"""Every target of a `make bench` run at a glance: reads the results file the run wrote (latest.md), finds each
table row whose target cell says "met" or "MISSED", and writes them as one table near the top of the same
file, each with its section, so that a reader sees what holds and what does not before the details.

Usage: Benchmarks/targets.py Benchmarks/results/latest.md
"""
import re
import sys

HEADING = "## Every target of this run"


def rows_with_verdicts(lines):
    """(section, row cells, verdict) of each table row that states a target."""
    section = ""
    found = []
    for line in lines:
        if line.startswith("## ") or line.startswith("### "):
            section = line.lstrip("#").strip()
        elif line.startswith("|") and re.search(r"\b(met|MISSED)\b", line):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            verdict = "MISSED" if any(re.search(r"\bMISSED\b", cell) for cell in cells) else "met"
            found.append((section, cells, verdict))
    return found


def main():
    path = sys.argv[1]
    with open(path) as handle:
        lines = handle.read().split("\n")
    # A file already summarised (a run written twice) loses the old table first.
    if HEADING in lines:
        start = lines.index(HEADING)
        end = next((index for index in range(start + 1, len(lines)) if lines[index].startswith("## ")), len(lines))
        del lines[start:end]
    found = rows_with_verdicts(lines)
    missed = sum(1 for _, _, verdict in found if verdict == "MISSED")
    table = [HEADING, "",
             f"{len(found) - missed} met, {missed} missed. Each row is the measure's own row below, cells joined by "
             "' · ' (the sections below give each table's columns, references and spreads).", "",
             "| section | measure | verdict |", "|---|---|---|"]
    for section, cells, verdict in found:
        table.append(f"| {section} | {' · '.join(cell for cell in cells if cell)} | {verdict} |")
    table.append("")
    # After the title and the paragraph that names the commit and the machine.
    first_section = next((index for index, line in enumerate(lines) if line.startswith("## ")), len(lines))
    lines[first_section:first_section] = table
    with open(path, "w") as handle:
        handle.write("\n".join(lines))


if __name__ == "__main__":
    main()
