"""Links follow the host the client used: without `--public-url`, every link in an answer is built from
the request's `Host`, so an Android emulator (10.0.2.2) or a container network name gets links it can
open; a link verifies on the host it was signed for and nowhere else. Two loopback addresses stand in for
two networks.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import re
import urllib.parse
import xml.etree.ElementTree as ET

from conftest import launch
from support import jwt, request, upload


def test_links_follow_the_request_host():
    with launch("--host", "0.0.0.0", "--admin-token", "links-test-admin-token") as server:
        port = urllib.parse.urlparse(server.url).port
        first, second = f"http://127.0.0.1:{port}", f"http://127.0.0.2:{port}"
        links = {base: upload(base, "image", "p.png", "image/png", open_fixture("sample.png")) for base in (first, second)}
        for base, link in links.items():
            assert link.startswith(base + "/demo/images/"), link
            status, body, _ = request(link)
            assert status == 200 and body[:4] == b"\x89PNG"
        # A link signed for one host does not verify on the other.
        moved = links[second].replace(second, first)
        status, body, _ = request(moved)
        assert status == 403, body[:200]
        assert ET.fromstring(body).findtext("Code") == "AccessDenied"
        # The listing re-signs for the host that asks.
        listing = f"/channels/messaging/general/uploads?api_key=demo-key"
        for base in (first, second):
            status, body, _ = request(base + listing, headers={"Authorization": jwt({"server": True})})
            assert status == 200
            entries = json.loads(body)["uploads"]
            assert all(entry["file"].startswith(base) for entry in entries)
            # Re-signed in Stream's shape: Key-Pair-Id first, and an image's original size after the signature.
            assert all(entry["file"].split("?", 1)[1].startswith("Key-Pair-Id=") for entry in entries)
            assert all(re.search(r"&Signature=[^&]+&oh=\d+&ow=\d+$", entry["file"]) for entry in entries)
        # CometChat's settings name the media host the client used.
        status, body, _ = request(second + "/v1/apps/demo/settings")
        assert json.loads(body)["SECURED_MEDIA_HOST"] == f"127.0.0.2:{port}"


def test_public_url_wins_over_the_host():
    with launch("--public-url", "http://media.example.test:9999") as server:
        link = upload(server.url, "file", "a.txt", "text/plain", b"x")
        assert link.startswith("http://media.example.test:9999/demo/attachments/"), link


def open_fixture(name: str) -> bytes:
    from support import REPO

    return (REPO / "Fixtures" / "media" / name).read_bytes()
