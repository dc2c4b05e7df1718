"""Video uploads get a server-made poster as `thumb_url`, as on Stream: MP4, MOV and WebM through the real
binary and the ffmpeg binary. The poster is a stored object whose link takes the resize parameters; a
video that does not decode still uploads, without `thumb_url`; deleting the video deletes its poster.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import uuid
import urllib.parse

import pytest

from support import REPO, image_size, jwt, multipart, request

MEDIA = REPO / "Fixtures" / "media"


def upload(server: str, name: str, content_type: str, data: bytes) -> dict:
    boundary = "video" + uuid.uuid4().hex
    status, body, _ = request(
        f"{server}/api/v2/chat/channels/messaging/videos/file?api_key=demo-key",
        "POST",
        multipart([("file", name, content_type, data)], boundary),
        {"Authorization": jwt(), "Content-Type": f"multipart/form-data; boundary={boundary}"},
    )
    assert status == 201, body[:300]
    return json.loads(body)


@pytest.mark.parametrize("name,content_type", [("sample.mp4", "video/mp4"), ("sample.mov", "video/quicktime"),
                                               ("sample.webm", "video/webm")])
def test_video_uploads_get_a_poster(server, name, content_type):
    answer = upload(server, name, content_type, (MEDIA / name).read_bytes())
    thumb = answer["thumb_url"]
    assert "/demo/thumbnails/" in thumb and "&w=150&h=150&resize=clip" in thumb
    status, body, headers = request(thumb)
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    assert image_size(body) in ((150, 112), (150, 113))  # 160x120 fitted inside 150x150
    original = thumb.split("&w=150")[0]
    assert image_size(request(original)[1]) == (160, 120)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(original).query))
    assert (query["ow"], query["oh"]) == ("160", "120")
    # The channel listing names the same poster.
    listing = request(f"{server}/channels/messaging/videos/uploads?api_key=demo-key", headers={"Authorization": jwt({"server": True})})[1]
    listed = [entry for entry in json.loads(listing)["uploads"] if entry["file"].split("?")[0] == answer["file"].split("?")[0]]
    assert listed and listed[0]["thumb_url"].split("?")[0] == original.split("?")[0]
    # Deleting the video deletes its poster.
    status, _, _ = request(
        f"{server}/api/v2/chat/channels/messaging/videos/file?api_key=demo-key&url={urllib.parse.quote(answer['file'], safe='')}",
        "DELETE", headers={"Authorization": jwt()},
    )
    assert status == 200
    assert request(answer["file"])[0] == 404 and request(original)[0] == 404


def test_an_undecodable_video_uploads_without_a_thumbnail(server):
    fake = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00garbage" * 200
    answer = upload(server, "broken.mp4", "video/mp4", fake)
    assert "thumb_url" not in answer or answer["thumb_url"] is None
    assert request(answer["file"])[1] == fake
