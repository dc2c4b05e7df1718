#!/usr/bin/env python3
"""Fails when a public symbol of the named modules has no doc comment of its own. DocC builds a page for an
undocumented symbol without a word of warning, so `make docs` runs this after it, on the symbol graphs the
DocC plugin has just extracted (`swift package generate-documentation` writes them under
`.build/<triple>/extracted-symbols/<package>/<Module>/`): the same symbols, from the same build, as the pages.

    scripts/check-doc-comments.py [--build-dir .build] [--newer-than STAMP] [--verbose] MODULE...

Which symbols count. Every symbol in MODULE.symbols.json and in MODULE@Other.symbols.json (what MODULE adds to
another module's types, e.g. `Trait.mockCDN`), public or open, that is declared in MODULE's sources, i.e. has a
source location. Symbols without one are the compiler's or a macro's, with no declaration to put a comment
on, and are skipped: members a derived conformance adds (`init(rawValue:)`, `hashValue`, `hash(into:)`,
`init(from:)`), default implementations a conformance brings in from a protocol extension (`!=`,
`localizedDescription`; their identifiers end in `::SYNTHESIZED::<type>`), and peers a macro expands to
(`$current` of `@TaskLocal`). Symbols of re-exported modules (`@_exported import`) are not in these files.

What counts as documented. A `docComment` written on the declaration itself: in the symbol's own file, ending
at most four lines above it (room for attributes such as `@discardableResult`). The symbol graph also gives
an undocumented symbol the comment of the protocol requirement it implements, from another module
(`description` gets CustomStringConvertible's) or from this one (`MockCDNRequester.imageRequest` gets
`CDNRequester`'s): such an inherited comment does not count, since it describes the protocol, not this
type's behaviour. The comment must also open with a summary line (STYLE.md, rule 7), not with `- Parameters:`
or another callout, so that the page has an abstract.

Exits 1 naming each symbol that fails, 2 when a module's symbol graph is missing or older than --newer-than.
"""
import argparse
import glob
import json
import os
import sys

# Lines between the end of a doc comment and the declaration it documents (attributes, a wrapped signature's
# first line is the one the symbol graph points at).
MAX_GAP = 4


def graph_directory(build_dir, module, newer_than):
    """The folder of MODULE's symbol graphs the DocC plugin wrote last, or None."""
    candidates = [
        d
        for d in glob.glob(os.path.join(build_dir, "*", "extracted-symbols", "*", module))
        if os.path.isfile(os.path.join(d, f"{module}.symbols.json"))
    ]
    if not candidates:
        return None
    newest = max(candidates, key=lambda d: os.path.getmtime(os.path.join(d, f"{module}.symbols.json")))
    if newer_than and os.path.getmtime(os.path.join(newest, f"{module}.symbols.json")) < os.path.getmtime(newer_than):
        return None
    return newest


def own_comment(symbol):
    """The symbol's own doc comment lines (texts), or None when it has none of its own."""
    comment = symbol.get("docComment")
    location = symbol.get("location")
    if not comment or not location or comment.get("uri") != location.get("uri"):
        return None
    lines = comment.get("lines") or []
    ranges = [line["range"] for line in lines if "range" in line]
    if not ranges:
        return None
    gap = location["position"]["line"] - ranges[-1]["end"]["line"]
    if not 0 < gap <= MAX_GAP:
        return None
    return [line["text"] for line in lines]


def has_summary(texts):
    first = next((t.strip() for t in texts if t.strip()), "")
    return bool(first) and not first.startswith("- ")


def check(directory, module):
    """(counted, missing, skipped) for one module: counted and missing as display names."""
    counted, missing, skipped = [], [], []
    for path in sorted(glob.glob(os.path.join(directory, f"{module}.symbols.json"))) + sorted(
        glob.glob(os.path.join(directory, f"{module}@*.symbols.json"))
    ):
        graph = json.load(open(path, encoding="utf-8"))
        extended = "" if path.endswith(f"{module}.symbols.json") else os.path.basename(path).split("@")[1][:-13]
        for symbol in graph["symbols"]:
            name = ".".join(symbol["pathComponents"])
            if extended:
                name = f"{extended}.{name}"
            kind = symbol["kind"]["identifier"]
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if "location" not in symbol:
                skipped.append(f"{name} ({kind}, generated)")
                continue
            counted.append(name)
            texts = own_comment(symbol)
            if texts is None:
                missing.append(f"{name} ({kind}): no doc comment of its own")
            elif not has_summary(texts):
                missing.append(f"{name} ({kind}): the comment has no summary line")
    return counted, missing, skipped


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("modules", nargs="+")
    parser.add_argument("--build-dir", default=".build")
    parser.add_argument("--newer-than", help="a file the symbol graphs must be newer than (the run's stamp)")
    parser.add_argument("--verbose", action="store_true", help="list every symbol counted and skipped")
    arguments = parser.parse_args()

    failed = False
    for module in arguments.modules:
        directory = graph_directory(arguments.build_dir, module, arguments.newer_than)
        if directory is None:
            print(
                f"check-doc-comments: no fresh symbol graph of {module} under"
                f" {arguments.build_dir}/*/extracted-symbols; run"
                f" `swift package generate-documentation --target {module}` first",
                file=sys.stderr,
            )
            sys.exit(2)
        counted, missing, skipped = check(directory, module)
        if arguments.verbose:
            for name in counted:
                print(f"  counted  {name}")
            for name in skipped:
                print(f"  skipped  {name}")
        print(
            f"{module}: {len(counted)} public symbols declared in its sources, {len(counted) - len(missing)}"
            f" documented ({len(skipped)} generated ones skipped)"
        )
        for entry in missing:
            print(f"  missing: {module}.{entry}", file=sys.stderr)
        failed = failed or bool(missing)
    if failed:
        print("check-doc-comments: every public symbol needs a doc comment (STYLE.md, rule 7)", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
