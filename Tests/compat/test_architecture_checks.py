"""`scripts/check-surfaces.py` on small source trees made for the test: it fails on each kind of use a folder
may not make (a sibling surface's type, a room that names a surface, `Shared/` that uses a room or names a
vendor) and passes what the rules allow (a surface using a room, `Media/` using `S3/`), and the real tree
passes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support import REPO

SCRIPT = REPO / "scripts" / "check-surfaces.py"


def check(root: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "MockCDNServer"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


BASE = {
    "Shared/HTTP/QueryItems.swift": "struct QueryItems {}\n",
    "Links/LinkSigner.swift": "final class LinkSigner { let q: QueryItems }\n",
    "Delivery/DeliveryPlan.swift": "struct DeliveryPlan {}\n",
    "S3/S3Error.swift": "struct S3Error {}\n",
    "Stream/StreamAPI.swift": "struct StreamAPI { let links: LinkSigner; let plan: DeliveryPlan }\n",
    "CometChat/CometChatError.swift": "struct CometChatError {}\n",
    "Media/CDNController.swift": "struct CDNController { let e: S3Error; let q: QueryItems }\n",
}


def test_the_real_tree_passes():
    code, output = check(REPO / "Sources" / "MockCDNServer")
    assert code == 0 and output.startswith("surfaces closed:"), output


def test_what_the_rules_allow_passes(tmp_path):
    code, output = check(tree(tmp_path, BASE))
    assert code == 0, output


@pytest.mark.parametrize(("name", "text", "failure"), [
    ("Stream/StreamUploads.swift", "struct StreamUploads { let e: CometChatError }\n",
     "Stream uses CometChat's CometChatError"),
    ("Links/MediaURL.swift", "struct MediaURL { let api: StreamAPI }\n", "Links uses Stream's StreamAPI"),
    ("Delivery/WebhookDeliveries.swift", "final class WebhookDeliveries { let links: LinkSigner }\n",
     "Delivery uses Links's LinkSigner"),
    ("Shared/HTTP/Helper.swift", "struct Helper { let plan: DeliveryPlan }\n", "Shared uses Delivery's DeliveryPlan"),
    ("Shared/HTTP/Helper.swift", "struct Helper { var s3Region = \"\" }\n", "Shared names a vendor: s3Region"),
    ("Shared/HTTP/Helper.swift", "enum Helper { case streamURL }\n", "Shared names a vendor: streamURL"),
    ("Shared/HTTP/Helper.swift", "struct AmzHelper {}\n", "Shared names a vendor: AmzHelper"),
    ("S3/Reads.swift", "struct Reads { let c: CDNController }\n", "S3 uses Media's CDNController"),
])
def test_each_use_a_folder_may_not_make_fails_naming_the_file_and_line(tmp_path, name, text, failure):
    code, output = check(tree(tmp_path, {**BASE, name: text}))
    assert code == 1, output
    assert f"{name}:1: {failure}" in output, output


def test_shared_may_name_swifts_own_streams_and_vendors_in_comments_and_strings(tmp_path):
    text = ("// Stream's and CometChat's envelopes, S3's too\n"
            "struct Helper { let s: AsyncStream<Int>; let m = \"x-amz-date\" }\n")
    code, output = check(tree(tmp_path, {**BASE, "Shared/HTTP/Helper.swift": text}))
    assert code == 0, output
