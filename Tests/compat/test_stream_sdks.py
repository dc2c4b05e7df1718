"""Stream's own Python server SDKs, pinned and with their defaults, against the real binary: stream-chat
(v1 routes, token `{"server": true}`) and getstream (v2 routes, token `{}`). Each SDK makes its own token;
only the base URL points at MockCDN. Every upload, delete and app-settings route they call, and their
error paths: errors must come back as the SDK's own API exception with Stream's code, never a parse crash.

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from getstream import Stream
from getstream.exceptions import StreamApiException as GetstreamAPIException
from getstream.models import FileUploadConfig, ImageSize, OnlyUserID
from stream_chat import StreamChat
from stream_chat.base.exceptions import StreamAPIException as ChatAPIException

from support import API_KEY, API_SECRET, REPO, request

FIXTURES = REPO / "Fixtures" / "media"
# getstream fills the dozens of app fields MockCDN does not emulate with None, and says so each time.
pytestmark = pytest.mark.filterwarnings("ignore:Missing value of non-optional type:RuntimeWarning")


@pytest.fixture(scope="module")
def chat(server):
    return StreamChat(api_key=API_KEY, api_secret=API_SECRET, base_url=server)


@pytest.fixture(scope="module")
def stream(server):
    return Stream(api_key=API_KEY, api_secret=API_SECRET, base_url=server)


@pytest.fixture
def text_file():
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "notes.txt"
        path.write_bytes(b"hello from an SDK\n")
        yield path


def readable(url: str) -> bytes:
    status, body, _ = request(url)
    assert status == 200, (url, status, body[:200])
    return body


def gone(url: str) -> bool:
    return request(url)[0] == 404


# MARK: - stream-chat (v1)


def test_stream_chat_uploads_and_deletes(chat):
    channel = chat.channel("messaging", "sdk-v1")
    file = channel.send_file(str(FIXTURES / "sample.pdf"), "sample.pdf", {"id": "alice"})
    assert readable(file["file"]) == (FIXTURES / "sample.pdf").read_bytes()
    image = channel.send_image(str(FIXTURES / "sample.png"), "sample.png", {"id": "alice"})
    assert readable(image["file"]) == (FIXTURES / "sample.png").read_bytes()
    assert readable(image["thumb_url"])[:4] == b"\x89PNG"
    channel.delete_file(file["file"])
    channel.delete_image(image["file"])
    assert gone(file["file"]) and gone(image["file"])


def test_stream_chat_app_settings_and_their_error_path(chat):
    settings = chat.get_app_settings()
    assert "file_upload_config" in settings["app"]
    chat.update_app_settings(file_upload_config={"blocked_file_extensions": [".txt"]})
    try:
        assert chat.get_app_settings()["app"]["file_upload_config"]["blocked_file_extensions"] == [".txt"]
        channel = chat.channel("messaging", "sdk-v1")
        with pytest.raises(ChatAPIException) as refused:
            channel.send_file(str(FIXTURES / "README.md"), "notes.txt", {"id": "alice"})
        assert refused.value.status_code == 400
        assert refused.value.error_code == 4
        assert ".txt is blocked" in refused.value.error_message
    finally:
        chat.update_app_settings(file_upload_config={"blocked_file_extensions": []})


def test_stream_chat_with_a_wrong_secret_gets_streams_auth_error(server):
    wrong = StreamChat(api_key=API_KEY, api_secret="x" * 40, base_url=server)
    with pytest.raises(ChatAPIException) as refused:
        wrong.get_app_settings()
    assert refused.value.status_code == 401 and refused.value.error_code == 5


# MARK: - getstream (v2)


def test_getstream_channel_uploads_and_deletes(stream, text_file):
    chat = stream.chat
    file = chat.upload_channel_file(type="messaging", id="sdk-v2", file=str(text_file), user=OnlyUserID(id="alice"))
    assert readable(file.data.file) == text_file.read_bytes()
    image = chat.upload_channel_image(
        type="messaging",
        id="sdk-v2",
        file=str(FIXTURES / "sample.jpg"),
        upload_sizes=[ImageSize(width=64, height=64, resize="crop", crop="top"), ImageSize(width=32)],
        user=OnlyUserID(id="alice"),
    )
    assert readable(image.data.file)[:3] == b"\xff\xd8\xff"
    assert [(size.width, size.height, size.resize, size.crop) for size in image.data.upload_sizes] == [
        (64, 64, "crop", "top"),
        (32, None, None, None),
    ]
    chat.delete_channel_file(type="messaging", id="sdk-v2", url=file.data.file)
    chat.delete_channel_image(type="messaging", id="sdk-v2", url=image.data.file)
    assert gone(file.data.file) and gone(image.data.file)


def test_getstream_uploads_without_a_user_and_deletes(stream, text_file):
    file = stream.upload_file(file=str(text_file))
    image = stream.upload_image(file=str(FIXTURES / "sample.webp"))
    assert readable(file.data.file) == text_file.read_bytes()
    assert readable(image.data.thumb_url)[:4] == b"RIFF"
    stream.delete_file(url=file.data.file)
    stream.delete_image(url=image.data.file)
    assert gone(file.data.file) and gone(image.data.file)


def test_getstream_app_settings_and_error_paths(stream, text_file):
    app = stream.get_app().data.app
    assert app.file_upload_config is not None
    stream.update_app(file_upload_config=FileUploadConfig(size_limit=0, blocked_file_extensions=[".txt"]))
    try:
        with pytest.raises(GetstreamAPIException) as refused:
            stream.upload_file(file=str(text_file))
        assert refused.value.status_code == 400
        assert refused.value.api_error.code == 4
        assert ".txt is blocked" in refused.value.api_error.message
        assert refused.value.api_error.details == []
    finally:
        stream.update_app(file_upload_config=FileUploadConfig(size_limit=0, blocked_file_extensions=[]))
    # Not an image on the image route, and a delete of something that is not there.
    with pytest.raises(GetstreamAPIException) as refused:
        stream.upload_image(file=str(text_file))
    assert refused.value.api_error.code == 4
    with pytest.raises(GetstreamAPIException) as refused:
        stream.delete_file(url=f"{stream.base_url}/demo/attachments/00000000-0000-0000-0000-000000000000/x.txt")
    assert refused.value.status_code == 404 and refused.value.api_error.code == 16


def test_getstream_with_a_wrong_secret_gets_streams_auth_error(server):
    wrong = Stream(api_key=API_KEY, api_secret="y" * 40, base_url=server)
    with pytest.raises(GetstreamAPIException) as refused:
        wrong.get_app()
    assert refused.value.status_code == 401 and refused.value.api_error.code == 5
    assert refused.value.api_error.more_info.startswith("https://")


def test_the_tokens_are_the_sdks_own(chat, stream):
    """The two SDKs' server tokens differ: `{"server": true}` and `{}`; both are server tokens here."""
    import jwt as pyjwt

    assert pyjwt.decode(chat.auth_token, API_SECRET, algorithms=["HS256"]) == {"server": True}
    assert pyjwt.decode(stream.token, API_SECRET, algorithms=["HS256"]) == {}
    status, body, _ = request(f"{stream.base_url}/api/v2/app?api_key={API_KEY}", headers={"Authorization": stream.token})
    assert status == 200, body
    assert json.loads(body)["app"]["name"] == "demo"
