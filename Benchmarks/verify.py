#!/usr/bin/env python3
"""Verify's cost (docs/verify.md, "What a verify costs"): `POST /_mockcdn/verify` with the documented largest
body (64 KiB: 63 expectations, each a 1,023-byte path glob) over a full journal (1,000 entries, each path
2,047 bytes of 1,023 segments, about the longest the journal keeps whole), against two references in the same run
on the same server and journal: the same verify with literal paths of the same length, and
`GET /_mockcdn/requests` (the whole journal read once, about 2 MiB of JSON).

The globs are the kinds that cost the old matcher the pattern's segments times the path's (issue 45: ten of the
first kind took 11.7 s, 63 of them about 73 s):
- `**` repeated 341 times (it matches every path: 200, each expectation matching all 1,000 entries);
- `**` then a segment, 204 times (every `**` has a run to find after it; the paths lack it, so each run scans);
- runs of 60 segments between `**` (59 `*` and an `x` the paths lack), eight of them;
- a run of 508 segments between two `**`, 507 `*` and an `x` the paths lack (the matcher's widest bit sets).
Each body is checked for the right answer before it is timed: the first 200 with every expectation matching
every entry, the others 409 with every expectation unmet (the paths match none), the literal one 409 too, and
the journal listing 200 with 1,000 entries; a body over the step bound must be its 400 naming the bound. Reported: the median of `--runs` timed requests with its min-max, and the
ratio to each reference (medians). Then `/_mockcdn/health` answered while two of the costliest verifies run at
once (the issue's "two at once stall the server"): its slowest answer, against its median alone.

Usage: Benchmarks/verify.py --binary BINARY [--before BINARY] [--runs N]
"""
import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time

from bench import MockCDN

ENTRIES = 1000
PATH = "/demo" + "/b" * 1021  # 2,047 bytes, 1,023 segments
GLOBS = {
    "`**` repeated": "/**" * 341,
    "`**` then a segment, repeated": "/**" + "/a/**" * 204,
    "a run of 60 segments between two `**`, repeated": ("/**" + "/*" * 59 + "/x") * 8 + "/**" + "/*" * 14,
    "a run of 508 segments between two `**`": "/**" + "/*" * 507 + "/x/**",
}
EXPECTATIONS = 63
BODY_LIMIT = 64 * 1024


def document(paths):
    body = json.dumps({"expectations": [{"path": path} for path in paths]}, separators=(",", ":")).encode()
    assert len(body) <= BODY_LIMIT, len(body)
    return body


def literal_paths():
    """63 literal paths of the globs' length that no entry has."""
    return ["/demo/" + f"{index:04d}" + "c" * (1023 - 10) for index in range(EXPECTATIONS)]


def post(port, body, timeout=300):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        began = time.perf_counter()
        connection.request("POST", "/_mockcdn/verify", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        return (time.perf_counter() - began) * 1000, response.status, answer
    finally:
        connection.close()


def get(port, target, timeout=300):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        began = time.perf_counter()
        connection.request("GET", target)
        response = connection.getresponse()
        answer = response.read()
        return (time.perf_counter() - began) * 1000, response.status, answer
    finally:
        connection.close()


def fill(port):
    """1,000 refused reads of PATH, on one keep-alive connection: the journal's default size, full."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        for _ in range(ENTRIES):
            connection.request("GET", PATH)
            connection.getresponse().read()
    finally:
        connection.close()
    _, status, answer = get(port, "/_mockcdn/requests")
    entries = json.loads(answer)["requests"]
    if status != 200 or len(entries) != ENTRIES or any(entry["path"] != PATH for entry in entries):
        sys.exit(f"the journal does not hold {ENTRIES} entries of the path: {status}, {len(entries)}")


def checked_verify(port, body, name, answered=None):
    """The verify's answer, checked: every expectation met by every entry (200) or by none (409), or the
    bound's 400. `answered` is an answer already had (status, body), else the verify is made."""
    status, answer = answered if answered else post(port, body)[1:]
    result = json.loads(answer)
    if status in (200, 409) and len(result["expectations"]) == EXPECTATIONS:
        counts = {len(each["matched"]) for each in result["expectations"]}
        if (status, counts) in ((200, {ENTRIES}), (409, {0})) and result["met"] == (status == 200):
            return str(status)
    if status == 400 and result["error"]["message"].startswith("verify takes at most "):
        return "400 (over the step bound)"
    sys.exit(f"{name}: unexpected answer {status}: {answer[:300]!r}")


def cpu_ms(pid):
    """The server's CPU time so far (user and system), in milliseconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def timed(server, body, runs, timeout=300):
    """(wall ms, server CPU ms) of each of `runs` verifies of `body`, and the last answer (status, body)."""
    walls, cpus = [], []
    for _ in range(runs):
        before = cpu_ms(server.process.pid)
        took, status, answer = post(server.port, body, timeout)
        cpus.append(cpu_ms(server.process.pid) - before)
        walls.append(took)
    return walls, cpus, (status, answer)


def measure(binary, runs, timeout=300):
    """The answers, (wall, CPU) samples per body and the references, and health during two of the
    costliest."""
    server = MockCDN(binary, "--fixtures", "none")
    try:
        fill(server.port)
        literal = document(literal_paths())
        checked_verify(server.port, literal, "literal paths")
        _, status, _ = get(server.port, "/_mockcdn/requests")
        assert status == 200
        # A slow (earlier) build's one timed run is checked by its own answer instead of a run before it.
        checked_first = timeout <= 300
        results = {}
        for name, glob in GLOBS.items():
            body = document([glob] * EXPECTATIONS)
            results[name] = (checked_verify(server.port, body, name) if checked_first else "", body)
        rows = {"literal": timed(server, literal, runs)[:2]}
        walls, cpus = [], []
        for _ in range(runs):
            before = cpu_ms(server.process.pid)
            took, _, _ = get(server.port, "/_mockcdn/requests")
            cpus.append(cpu_ms(server.process.pid) - before)
            walls.append(took)
        rows["listing"] = (walls, cpus)
        for name, (_, body) in results.items():
            walls, cpus, last = timed(server, body, runs, timeout)
            rows[name] = (walls, cpus)
            if not checked_first:
                results[name] = (checked_verify(server.port, body, name, answered=last), body)
        costliest = max(results, key=lambda name: statistics.median(rows[name][1]))
        health = health_during(server.port, results[costliest][1], timeout)
        return {name: answer for name, (answer, _) in results.items()}, rows, (costliest, *health)
    finally:
        server.stop()


def health_during(port, body, timeout=300):
    """`/_mockcdn/health` times alone, then while two copies of `body` are verified at once."""
    alone = [get(port, "/_mockcdn/health")[0] for _ in range(20)]
    done = threading.Event()
    answers = []

    def verify():
        answers.append(post(port, body, timeout)[1])

    threads = [threading.Thread(target=verify) for _ in range(2)]
    for thread in threads:
        thread.start()
    during = []
    while any(thread.is_alive() for thread in threads):
        took, status, _ = get(port, "/_mockcdn/health")
        if status != 200:
            sys.exit(f"health answered {status} during the verifies")
        during.append(took)
    for thread in threads:
        thread.join()
    done.set()
    return alone, during, answers


def median_range(samples):
    return f"{statistics.median(samples):,.1f} ms ({min(samples):,.1f}-{max(samples):,.1f})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--before", help="an earlier mockcdn binary, measured the same way (one run each)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    answers, rows, (costliest, alone, during, concurrent) = measure(args.binary, args.runs)
    literal, listing = statistics.median(rows["literal"][0]), statistics.median(rows["listing"][0])
    sizes = sorted({len(document([glob] * EXPECTATIONS)) for glob in GLOBS.values()})
    print(f"{EXPECTATIONS} expectations of 1,015-1,023-byte path globs ({sizes[0]:,}-{sizes[-1]:,} bytes of body) "
          f"over {ENTRIES:,} journal entries of a {len(PATH):,}-byte path of {PATH.count('/') + 1:,} segments; "
          f"medians of {args.runs} with min-max; CPU is the server's own (user and system) for the request. "
          f"Load average now: {open('/proc/loadavg').read().split()[0]}.")
    print()
    print("| verify body | answer | time | server CPU | / literal paths | / journal listing | target |")
    print("|---|---|---|---|---|---|---|")
    print(f"| 63 literal paths (reference) | 409 | {median_range(rows['literal'][0])} | "
          f"{median_range(rows['literal'][1])} | 1.00x | {literal / listing:.2f}x | |")
    print(f"| `GET /_mockcdn/requests` (reference) | 200 | {median_range(rows['listing'][0])} | "
          f"{median_range(rows['listing'][1])} | {listing / literal:.2f}x | 1.00x | |")
    for name in GLOBS:
        walls, cpus = rows[name]
        median = statistics.median(walls)
        verdict = "met" if max(walls) < 1000 else "MISSED"
        print(f"| {name} | {answers[name]} | {median_range(walls)} | {median_range(cpus)} | "
              f"{median / literal:.2f}x | {median / listing:.2f}x | under 1 s: {verdict} |")
    print()
    slowest = max(during) if during else 0.0
    verdict = "met" if slowest < 1000 else "MISSED"
    print(f"`/_mockcdn/health` alone: {median_range(alone)}; while two verifies of the costliest body ({costliest}) "
          f"ran at once ({len(during)} answers; the verifies answered {sorted(set(concurrent))}): "
          f"{median_range(during)}.")
    print()
    print("| health while two verifies run | slowest answer | target |")
    print("|---|---|---|")
    print(f"| {costliest}, twice at once | {slowest:,.1f} ms | under 1 s: {verdict} |")
    if args.before:
        before_answers, before_rows, (_, _, before_during, _) = measure(args.before, 1, timeout=1800)
        print()
        print(f"Before ({args.before}, one run each) and after, the same bodies over the same journal:")
        print()
        print("| verify body | before: answer, time | before: server CPU | after: answer, time | after / before |")
        print("|---|---|---|---|---|")
        for name in GLOBS:
            before_wall, before_cpu = before_rows[name]
            print(f"| {name} | {before_answers[name]}, {before_wall[0]:,.0f} ms | {before_cpu[0]:,.0f} ms | {answers[name]}, "
                  f"{median_range(rows[name][0])} | {statistics.median(rows[name][0]) / before_wall[0]:.4f}x |")
        print(f"| health's slowest answer while two ran | {max(before_during or [0]):,.0f} ms | | {slowest:,.1f} ms | |")


if __name__ == "__main__":
    main()
