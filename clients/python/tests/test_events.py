"""Upload events, their webhook deliveries and vendor-shaped webhooks through the plugin's ``mockcdn`` fixture:
``events`` (the long poll), ``notification_targets``/``set_notification_targets``, ``deliveries`` and
``send_webhook``, with a local receiver for the deliveries."""

from __future__ import annotations

import hashlib
import hmac
import json
import queue
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from conftest import read
from mockcdn import MockCDN, MockCDNError

DEMO_SECRET = b"demo-secret-for-local-testing-only"  # the default app's api_secret, which signs deliveries


@dataclass
class Receiver:
    """A local webhook target: every POST it gets, as ``(path, headers, body)``, in ``received``."""

    url: str
    received: queue.Queue[tuple[str, dict[str, str], bytes]] = field(default_factory=queue.Queue)

    def next(self) -> tuple[str, dict[str, str], bytes]:
        """The next POST, waited for (at most 10 s: a delivery runs as soon as its event is in)."""
        try:
            return self.received.get(timeout=10)
        except queue.Empty:
            pytest.fail("no delivery reached the receiver within 10 s")


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """An HTTP server on a free loopback port answering every POST 200, for the test's length."""
    received: queue.Queue[tuple[str, dict[str, str], bytes]] = queue.Queue()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            received.put((self.path, {name.lower(): value for name, value in self.headers.items()}, body))

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Receiver(f"http://127.0.0.1:{server.server_address[1]}", received)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def upload(cdn: MockCDN, name: str, content: bytes, content_type: str = "text/plain") -> str:
    """Uploads a file as CometChat's media route takes it (``POST /demo/media``, multipart ``file``, a FAT) and
    returns its key within the app (``media/{uuid}/{name}``)."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            f"Content-Type: {content_type}\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
    status, answer = read(cdn.url + "/demo/media", {
        "fat": cdn.token(user_id="alice"), "Content-Type": f"multipart/form-data; boundary={boundary}"},
        method="POST", body=body)
    assert status == 201, (status, answer)
    path = urllib.parse.urlsplit(json.loads(answer)["url"]).path
    assert path.startswith("/demo/media/") and path.endswith("/" + name), path
    return path.removeprefix("/demo/")


def attempts_once(cdn: MockCDN, condition: Callable[[list[dict[str, Any]]], bool], **filters: str) -> list[dict]:
    """The delivery journal's attempts once ``condition`` holds of them. The target has the request before
    MockCDN has its answer and notes the attempt, so the journal is read again until it does (at most 10 s)."""
    deadline = time.monotonic() + 10
    while True:
        attempts = cdn.deliveries(**filters)["attempts"]
        if condition(attempts):
            return attempts
        if time.monotonic() > deadline:
            pytest.fail(f"the delivery journal never showed the attempt: {attempts}")
        threading.Event().wait(0.02)


def test_an_upload_is_queued_and_delivered_to_the_webhook(mockcdn: MockCDN, receiver: Receiver) -> None:
    note = b"an upload's bytes\n"  # a text file: no image support needed
    hook = receiver.url + "/hooks/s3"
    kept = mockcdn.set_notification_targets("demo", {
        "webhooks": [{"id": "thumbs", "url": hook, "events": ["s3:ObjectCreated:*"], "prefix": "media/"}],
        "queues": [{"arn": "arn:aws:sqs:us-east-1:000000000000:index", "events": ["s3:ObjectRemoved:*"]}]})
    assert kept["webhooks"] == [{"id": "thumbs", "url": hook, "events": ["s3:ObjectCreated:*"], "prefix": "media/"}]
    assert [target["id"] for target in kept["queues"]] == ["notification-1"]  # an id made up for it
    assert mockcdn.notification_targets("demo") == kept
    # The reset before the test emitted the fixtures' deletes: `after` skips them.
    before = mockcdn.events()
    assert before["events"] and {event["record"]["eventName"] for event in before["events"]} == {
        "ObjectRemoved:Delete"}
    after = before["last_id"]

    with ThreadPoolExecutor(max_workers=1) as pool:
        # The long poll may be in before the upload or not: either way it answers with the upload's event.
        poll = pool.submit(mockcdn.events, after=after, wait=10, app="demo")
        key = upload(mockcdn, "note.txt", note)
        answer = poll.result(timeout=20)

    [event] = answer["events"]
    assert event["id"] == after + 1 and answer["last_id"] == event["id"]
    assert event["app"] == "demo" and event["targets"] == ["thumbs"] and event["arns"] == []
    record = event["record"]
    assert record["eventName"] == "ObjectCreated:Put"
    assert record["s3"]["bucket"]["name"] == "demo"
    assert record["s3"]["object"]["key"] == key and record["s3"]["object"]["size"] == len(note)
    assert record["s3"]["configurationId"] == ""  # read without target=
    # The target's view: the same event, its record naming the target.
    [tagged] = mockcdn.events(after=after, target="thumbs")["events"]
    assert tagged["id"] == event["id"] and tagged["record"]["s3"]["configurationId"] == "thumbs"
    assert mockcdn.events(after=after, target="notification-1")["events"] == []  # deletes only

    path, headers, body = receiver.next()
    assert path == "/hooks/s3"
    assert headers["x-signature"] == hmac.new(DEMO_SECRET, body, hashlib.sha256).hexdigest()
    assert headers["x-mockcdn-event"] == str(event["id"]) and headers["x-mockcdn-attempt"] == "1"
    [delivered] = json.loads(body)["Records"]
    assert delivered == tagged["record"]

    [attempt] = attempts_once(mockcdn, bool, app="demo", target="thumbs")
    assert attempt["delivery"] == headers["x-mockcdn-delivery"]
    assert (attempt["url"], attempt["event_id"], attempt["event_name"], attempt["key"]) == (
        hook, event["id"], "ObjectCreated:Put", key)
    assert (attempt["attempt"], attempt["status"], attempt["outcome"], attempt["next_attempt_at"]) == (
        1, 200, "delivered", None)
    assert mockcdn.deliveries(target="notification-1") == {"attempts": [], "pending": []}
    assert receiver.received.empty()  # one delivery, never sent again


def test_a_long_poll_that_runs_out_answers_empty(mockcdn: MockCDN) -> None:
    last = mockcdn.events()["last_id"]
    # A client whose own timeout is shorter than the wait: the poll's request waits the wait out anyway.
    impatient = MockCDN(mockcdn.url, mockcdn.admin_token, timeout=0.5)
    started = time.monotonic()
    answer = impatient.events(after=last, wait=1, app="demo")
    assert answer == {"events": [], "last_id": last, "waiting": 0}
    assert time.monotonic() - started >= 0.9  # the server held it for the wait


def test_a_stream_message_webhook_is_sent_and_journaled(mockcdn: MockCDN, receiver: Receiver) -> None:
    # The app's Stream webhook, set as stream-chat's update_app_settings sets it (PATCH /app, a server token).
    status, answer = read(mockcdn.url + "/app?api_key=demo-key",
                          {"Authorization": mockcdn.token("server"), "stream-auth-type": "jwt",
                           "Content-Type": "application/json"},
                          method="PATCH", body=json.dumps({"webhook_url": receiver.url + "/stream"}).encode())
    assert status == 201, (status, answer)

    sent = mockcdn.send_webhook({"vendor": "stream", "event": "message.new", "keys": ["fixtures/sample.jpg"],
                                 "message": {"text": "look", "user": "alice", "channel": "messaging:general"}})
    [delivery] = sent["deliveries"]
    assert delivery["target"] == "webhook_url" and delivery["url"] == receiver.url + "/stream"
    [payload] = sent["payloads"]
    assert payload["type"] == "message.new" and payload["cid"] == "messaging:general"

    path, headers, body = receiver.next()
    assert path == "/stream" and json.loads(body) == payload
    assert headers["x-signature"] == hmac.new(DEMO_SECRET, body, hashlib.sha256).hexdigest()
    assert headers["x-webhook-id"] == delivery["webhook_id"] and headers["x-api-key"] == "demo-key"
    [attachment] = payload["message"]["attachments"]
    assert attachment["type"] == "image" and "/demo/fixtures/sample.jpg" in attachment["image_url"]

    [attempt] = attempts_once(mockcdn, bool, app="demo")
    assert (attempt["delivery"], attempt["event_id"], attempt["event_name"], attempt["key"]) == (
        delivery["delivery"], None, "message.new", "fixtures/sample.jpg")
    assert (attempt["status"], attempt["outcome"]) == (200, "delivered")


def test_bad_inputs_raise_with_the_server_status(mockcdn: MockCDN) -> None:
    for call in (lambda: mockcdn.events(app="nosuch"), lambda: mockcdn.notification_targets("nosuch"),
                 lambda: mockcdn.set_notification_targets("nosuch", {})):
        with pytest.raises(MockCDNError) as raised:
            call()
        assert raised.value.status == 404 and raised.value.message == "no app nosuch"
    with pytest.raises(MockCDNError) as raised:
        mockcdn.events(wait=61)
    assert raised.value.status == 400 and raised.value.message == "wait must be 0...60 seconds"

    kept = mockcdn.set_notification_targets("demo", {"webhooks": [
        {"id": "a", "url": "http://127.0.0.1:9/a", "events": ["s3:ObjectCreated:*"]}]})
    for document, words in (
            ({"webhooks": [{"url": "ftp://example.com/", "events": ["s3:ObjectCreated:*"]}]},
             "webhooks: url must be an http:// or https:// URL with a host"),
            ({"webhooks": [{"url": "http://127.0.0.1:9/b", "events": ["s3:Nope"]}]}, "s3:Nope"),
            ({"hooks": []}, "hooks")):
        with pytest.raises(MockCDNError) as raised:
            mockcdn.set_notification_targets("demo", document)
        assert raised.value.status == 400 and words in raised.value.message, raised.value.message
    assert mockcdn.notification_targets("demo") == kept  # nothing of a refused document is kept

    for body, status, words in (
            ({"vendor": "slack", "event": "message.new", "message": {"user": "alice"}}, 400,
             "vendor must be stream or cometchat"),
            ({"app": "nosuch", "vendor": "stream", "event": "message.new",
              "message": {"user": "alice", "channel": "messaging:general"}}, 404, "no app nosuch"),
            ({"vendor": "stream", "event": "message.new", "message": {"user": "alice", "channel": "messaging:x"}},
             422, "has no Stream webhook")):
        with pytest.raises(MockCDNError) as raised:
            mockcdn.send_webhook(body)
        assert raised.value.status == status and words in raised.value.message, raised.value.message
    assert mockcdn.deliveries() == {"attempts": [], "pending": []}  # nothing was sent
