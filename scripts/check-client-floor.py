#!/usr/bin/env python3
"""MockCDNClient can be linked by an app from iOS 15 on: the package declares iOS 15 (SwiftPM's platforms are
per package), and the client target depends on no other target or product, so building it never meets a
dependency's higher floor. Reads `swift package dump-package` on stdin."""
import json
import sys

IOS_FLOOR = "15.0"

manifest = json.load(sys.stdin)
ios = [p["version"] for p in manifest.get("platforms", []) if p["platformName"] == "ios"]
client = next(t for t in manifest["targets"] if t["name"] == "MockCDNClient")
problems = []
if ios != [IOS_FLOOR]:
    problems.append(f"the package declares iOS {ios or 'nothing'}, not {IOS_FLOOR}")
if client["dependencies"]:
    problems.append(f"MockCDNClient depends on {client['dependencies']}")
if problems:
    sys.exit("MockCDNClient's floor: " + "; ".join(problems))
print(f"MockCDNClient: iOS {IOS_FLOOR} floor, no dependencies")
