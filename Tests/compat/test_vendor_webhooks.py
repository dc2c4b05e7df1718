"""Vendor-shaped webhooks on demand (docs/webhooks.md): `POST /_mockcdn/webhooks` sends Stream's `message.new`
or CometChat's `message_sent` for a message with the app's objects attached, to the URL each vendor's own
set-up call configured (stream-chat's `update_app_settings`, CometChat's webhook management routes), through
the upload events' deliveries: Stream's headers and signature as stream-chat's `verify_webhook` checks them,
gzip, Stream's and CometChat's retry rules on the virtual clock, CometChat's Basic auth and 2-second rule, and
the media URL chain appId/apiKey -> `?fat=` -> presigned link.

A local receiver (`Receiver`, an http.server in a thread on port 0) records what it gets; a test awaits its
deliveries through a threading.Condition, never by sleeping."""

from __future__ import annotations

import base64
import gzip
import json
import socket
import urllib.error
import urllib.parse
import urllib.request

import pytest
from stream_chat import StreamChat

from conftest import launch, start_outcome
from s3support import advance, reset
from support import API_KEY, API_SECRET, eventually, request
from webhook_receiver import DEADLINE, Receiver

@pytest.fixture
def receiver():
    target = Receiver()
    yield target
    target.close()


@pytest.fixture(autouse=True)
def fresh(server):
    reset(server)
    yield


def call(server: str, path: str, method: str = "GET", body=None, headers: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    status, answer, answered = request(server + path, method, data, {"Content-Type": "application/json",
                                                                     **(headers or {})})
    return status, (json.loads(answer) if answer else None), answered


def send(server: str, body: dict) -> tuple[int, dict]:
    status, answer, _ = call(server, "/_mockcdn/webhooks", "POST", body)
    return status, answer


def stream_client(server: str) -> StreamChat:
    return StreamChat(api_key=API_KEY, api_secret=API_SECRET, base_url=server)


STREAM_MESSAGE = {"vendor": "stream", "event": "message.new",
                  "message": {"text": "look", "user": "alice", "channel": "messaging:general"},
                  "keys": ["fixtures/sample.jpg", "fixtures/sample.pdf"]}


def attempts(server: str, delivery: str) -> list[dict]:
    _, listing, _ = call(server, "/_mockcdn/deliveries?app=demo")
    return [a for a in listing["attempts"] if a["delivery"] == delivery]


def settled(server: str, delivery: str, count: int) -> list[dict]:
    """The delivery's first `count` attempts, once the journal holds them (the receiver has each before MockCDN
    notes it, right after the answer arrives)."""
    found = eventually(lambda: (lambda seen: seen if len(seen) >= count else None)(attempts(server, delivery)),
                       timeout=DEADLINE, message=lambda: f"fewer than {count} attempts journaled: "
                       f"{attempts(server, delivery)}")
    return found[:count]


# MARK: - Stream


def test_update_app_settings_sets_the_webhook_url_and_get_app_returns_it(server, receiver):
    client = stream_client(server)
    client.update_app_settings(webhook_url=receiver.url("/stream"), enable_hook_payload_compression=False)
    app = client.get_app_settings()["app"]
    assert app["webhook_url"] == receiver.url("/stream")
    assert app["enable_hook_payload_compression"] is False
    client.update_app_settings(event_hooks=[{"enabled": True, "hook_type": "webhook",
                                             "webhook_url": receiver.url("/hooks2"), "event_types": ["message.new"]}])
    hooks = client.get_app_settings()["app"]["event_hooks"]
    assert [(h["hook_type"], h["webhook_url"], h["event_types"]) for h in hooks] == \
        [("webhook", receiver.url("/hooks2"), ["message.new"])]
    assert hooks[0]["id"]
    client.update_app_settings(event_hooks=[])
    assert client.get_app_settings()["app"]["event_hooks"] == []
    # The server SDKs' name for the switch turns it on too.
    client.update_app_settings(webhook_compression_algorithm="gzip")
    assert client.get_app_settings()["app"]["enable_hook_payload_compression"] is True


def test_stream_delivery_passes_verify_webhook_and_a_tampered_body_fails(server, receiver):
    client = stream_client(server)
    client.update_app_settings(webhook_url=receiver.url("/stream"))
    status, answer = send(server, STREAM_MESSAGE)
    assert status == 202, answer
    [(headers, body)] = receiver.wait_for(1)
    assert client.verify_webhook(body, headers["x-signature"])
    assert not client.verify_webhook(body.replace(b"look", b"lool"), headers["x-signature"])
    assert headers["x-api-key"] == API_KEY
    assert headers["x-webhook-attempt"] == "1"
    assert headers["x-webhook-id"] == answer["deliveries"][0]["webhook_id"]
    assert headers["content-type"] == "application/json"
    assert "content-encoding" not in headers
    event = json.loads(body)
    assert event == answer["payloads"][0]
    assert (event["type"], event["cid"], event["channel_type"], event["channel_id"]) == \
        ("message.new", "messaging:general", "messaging", "general")
    assert event["message"]["text"] == "look" and event["message"]["user"]["id"] == "alice"
    assert event["message_id"] == event["message"]["id"]
    image, pdf = event["message"]["attachments"]
    assert (image["type"], image["fallback"], image["mime_type"]) == ("image", "sample.jpg", "image/jpeg")
    assert (pdf["type"], pdf["title"], pdf["mime_type"]) == ("file", "sample.pdf", "application/pdf")
    # The links are MockCDN's signed CDN links: they read, and unsigned they do not.
    for link in (image["image_url"], image["thumb_url"], pdf["asset_url"]):
        assert request(link)[0] == 200, link
    assert image["thumb_url"] == image["image_url"] + "&w=150&h=150&resize=clip"  # its 150x150 resize
    assert request(image["image_url"].split("?")[0])[0] == 401
    assert pdf["file_size"] == len(request(pdf["asset_url"])[1])


def test_stream_gzip_signs_the_uncompressed_body(server, receiver):
    client = stream_client(server)
    client.update_app_settings(webhook_url=receiver.url(), enable_hook_payload_compression=True)
    assert send(server, STREAM_MESSAGE)[0] == 202
    [(headers, body)] = receiver.wait_for(1)
    assert headers["content-encoding"] == "gzip"
    assert body[:2] == b"\x1f\x8b"
    plain = gzip.decompress(body)
    assert client.verify_webhook(plain, headers["x-signature"])
    assert not client.verify_webhook(body, headers["x-signature"])
    assert json.loads(plain)["type"] == "message.new"


def test_stream_retry_keeps_the_webhook_id_and_counts_attempts(server):
    target = Receiver(statuses=[503])
    try:
        stream_client(server).update_app_settings(webhook_url=target.url())
        _, answer = send(server, STREAM_MESSAGE)
        delivery = answer["deliveries"][0]["delivery"]
        first = settled(server, delivery, 1)[0]
        assert (first["status"], first["outcome"], first["event_name"]) == (503, "failed", "message.new")
        assert first["next_attempt_at"] is not None
        advance(server, 2)
        (one, _), (two, body) = target.wait_for(2)
        assert (one["x-webhook-attempt"], two["x-webhook-attempt"]) == ("1", "2")
        assert one["x-webhook-id"] == two["x-webhook-id"] == answer["deliveries"][0]["webhook_id"]
        assert stream_client(server).verify_webhook(body, two["x-signature"])
        assert settled(server, delivery, 2)[1]["outcome"] == "delivered"
    finally:
        target.close()


def test_stream_timeouts_get_three_attempts_within_15_seconds(server, receiver):
    stream_client(server).update_app_settings(webhook_url=receiver.url())
    # An answer later than Stream's 6 s: a delay fault past the limit is a timeout at once, no real wait.
    status, _, _ = call(server, "/_mockcdn/faults", "POST",
                        {"match": {"scope": "deliveries"}, "times": 3, "action": {"delay_ms": 6000}})
    assert status == 201
    _, answer = send(server, STREAM_MESSAGE)
    delivery = answer["deliveries"][0]["delivery"]
    first = settled(server, delivery, 1)[0]
    assert first["outcome"] == "timeout" and _seconds_between(first["at"], first["next_attempt_at"]) == 2
    # The second attempt made 12 s after the first: its retry would be due past 15 s, so none follows.
    advance(server, 12)
    second = settled(server, delivery, 2)[1]
    assert (second["outcome"], second["next_attempt_at"]) == ("timeout", None)
    assert [h["x-webhook-attempt"] for h, _ in receiver.wait_for(2)] == ["1", "2"]


def test_stream_refused_connection_is_unreachable_and_gets_two_attempts(server):
    # A port bound but not listening refuses connections; it stays bound so no other test can take it.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        stream_client(server).update_app_settings(webhook_url=f"http://127.0.0.1:{closed.getsockname()[1]}/hook")
        _, answer = send(server, STREAM_MESSAGE)
        delivery = answer["deliveries"][0]["delivery"]
        first = settled(server, delivery, 1)[0]
        assert (first["outcome"], first["status"]) == ("unreachable", None)
        # Refused at once, not after Stream's 6-second limit (a retried connection would take all of it).
        assert first["duration_ms"] < 6000 and _seconds_between(first["at"], first["next_attempt_at"]) == 2
        advance(server, 2)
        second = settled(server, delivery, 2)[1]
        assert (second["outcome"], second["next_attempt_at"]) == ("unreachable", None)


def test_stream_does_not_retry_a_plain_4xx(server):
    target = Receiver(statuses=[400])
    try:
        stream_client(server).update_app_settings(webhook_url=target.url())
        _, answer = send(server, STREAM_MESSAGE)
        [attempt] = settled(server, answer["deliveries"][0]["delivery"], 1)
        assert (attempt["status"], attempt["next_attempt_at"]) == (400, None)
    finally:
        target.close()


def test_every_matching_hook_gets_its_own_delivery_and_webhook_id(server, receiver):
    stream_client(server).update_app_settings(
        webhook_url=receiver.url("/legacy"),
        event_hooks=[{"hook_type": "webhook", "webhook_url": receiver.url("/new"), "event_types": ["message.new"]},
                     {"hook_type": "webhook", "webhook_url": receiver.url("/other"), "event_types": ["message.updated"]},
                     {"hook_type": "webhook", "enabled": False, "webhook_url": receiver.url("/off")}])
    _, answer = send(server, STREAM_MESSAGE)
    assert [d["url"] for d in answer["deliveries"]] == [receiver.url("/legacy"), receiver.url("/new")]
    assert answer["deliveries"][0]["target"] == "webhook_url"
    received = receiver.wait_for(2)
    assert len({headers["x-webhook-id"] for headers, _ in received}) == 2
    assert received[0][1] == received[1][1]


# MARK: - CometChat


def manage(server: str, path: str, method: str = "GET", body=None, key: str = API_KEY, secret: str = API_SECRET):
    return call(server, f"/apps/demo/webhooks{path}", method, body, {"key": key, "secret": secret})


def cometchat_hook(server: str, url: str, **members) -> None:
    status, answer, _ = manage(server, "", "POST", {"id": "wh1", "name": "Media hook", "webhookURL": url, **members})
    assert status == 200, answer
    assert answer[0]["data"]["id"] == "wh1"
    status, answer, _ = manage(server, "/wh1/triggers", "POST", {"triggerIds": ["message_sent"]})
    assert status == 200 and answer["data"]["message_sent"]["success"] is True, answer


COMETCHAT_MESSAGE = {"vendor": "cometchat", "event": "message_sent",
                     "message": {"text": "see", "user": "cometchat-uid-1", "receiver": "cometchat-uid-2"},
                     "keys": ["fixtures/sample.png"]}


def test_cometchat_management_routes_round_trip(server):
    cometchat_hook(server, "http://127.0.0.1:9/x", useBasicAuth=True, username="u", password="p")
    status, listing, _ = manage(server, "")
    assert status == 200 and [h["id"] for h in listing["data"]] == ["wh1"]
    assert "password" not in listing["data"][0]
    assert listing["meta"]["pagination"]["total"] == 1
    status, one, _ = manage(server, "/wh1", "PUT", {"retryOnFailure": True})
    assert status == 200 and one["data"][0]["data"]["retryOnFailure"] is True
    status, triggers, _ = manage(server, "/wh1/triggers")
    assert [t["id"] for t in triggers["data"]] == ["message_sent"]
    assert manage(server, "", secret="wrong")[:2] == (401, {"error": {
        "code": "ERR_UNAUTHORIZED", "message": "the key and secret headers do not match app demo"}})
    assert manage(server, "", "POST", {"id": "wh1", "name": "again", "webhookURL": "http://127.0.0.1:9/y"})[:2] == \
        (400, {"error": {"code": "ERR_BAD_REQUEST", "message": "a webhook with id wh1 already exists"}})
    assert manage(server, "/wh1/triggers", "POST", {"triggerIds": ["nope"]})[:2] == \
        (400, {"error": {"code": "ERR_BAD_REQUEST", "message": "nope is not a CometChat trigger (such as message_sent)"}})
    status, removed, _ = manage(server, "/wh1", "DELETE")
    assert status == 200 and removed["data"]["success"] is True
    assert manage(server, "/wh1")[0] == 404


def test_cometchat_delivery_carries_basic_auth_and_the_media_chain_leads_to_a_presigned_link(server, receiver):
    cometchat_hook(server, receiver.url("/cc"), useBasicAuth=True, username="hook-user", password="hook-pass")
    status, answer = send(server, COMETCHAT_MESSAGE)
    assert status == 202, answer
    [(headers, body)] = receiver.wait_for(1)
    assert headers["authorization"] == "Basic " + base64.b64encode(b"hook-user:hook-pass").decode()
    event = json.loads(body)
    assert (event["trigger"], event["appId"], event["webhook"]) == ("message_sent", "demo", "wh1")
    assert event["region"]
    message = event["data"]["message"]
    assert (message["sender"], message["receiver"], message["receiverType"], message["type"], message["category"]) \
        == ("cometchat-uid-1", "cometchat-uid-2", "user", "image", "message")
    assert message["id"].isdigit()
    [attachment] = message["data"]["attachments"]
    assert (attachment["name"], attachment["extension"], attachment["mimeType"]) == ("sample.png", "png", "image/png")
    url = attachment["url"]
    assert message["data"]["url"] == url
    # Fetched as it is: 401. With the app's id and API key: a ?fat= URL, which redirects to a presigned link.
    assert request(url)[0] == 401
    status, refusal, _ = request(url, headers={"appId": "demo", "apiKey": "wrong"})
    assert (status, json.loads(refusal)) == (401, {"error": {
        "code": "ERR_UNAUTHORIZED", "message": "the appId and apiKey headers do not name app demo and its API key"}})
    status, exchanged, _ = request(url, headers={"appId": "demo", "apiKey": API_KEY})
    assert status == 200, exchanged
    fat_url = json.loads(exchanged)["data"]["url"]
    status, again, _ = request(url + "?redirect=0", headers={"appId": "demo", "apiKey": API_KEY})
    assert status == 200 and json.loads(again)["data"]["url"].startswith(url + "?fat=")
    assert urllib.parse.urlsplit(fat_url).query.startswith("fat=")

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(fat_url, timeout=DEADLINE)
        raise AssertionError("no redirect")
    except urllib.error.HTTPError as redirect:
        assert redirect.code == 302
        location = redirect.headers["Location"]
    assert "X-Amz-Expires=300" in location
    status, data, _ = request(location)
    assert status == 200 and data[:8] == b"\x89PNG\r\n\x1a\n"
    assert attachment["size"] == len(data)
    # Five minutes later the link is dead.
    advance(server, 301)
    assert request(location)[0] in (401, 403)


def test_cometchat_slow_answer_fails_and_retries_at_10_and_30_seconds_with_retry_on_failure(server, receiver):
    cometchat_hook(server, receiver.url("/cc"), retryOnFailure=True)
    # An answer later than 2 s: a delivery fault's delay past CometChat's limit counts as a timeout at once.
    status, _, _ = call(server, "/_mockcdn/faults", "POST",
                        {"match": {"scope": "deliveries", "path": "/cc"}, "times": 2, "action": {"delay_ms": 2500}})
    assert status in (200, 201)
    _, answer = send(server, COMETCHAT_MESSAGE)
    delivery = answer["deliveries"][0]["delivery"]
    first = settled(server, delivery, 1)[0]
    assert first["outcome"] == "timeout" and first["fault"]
    assert receiver.wait_for(1)
    assert _seconds_between(first["at"], first["next_attempt_at"]) == 10
    advance(server, 10)
    second = settled(server, delivery, 2)[1]
    assert second["outcome"] == "timeout"
    assert _seconds_between(second["at"], second["next_attempt_at"]) == 30
    advance(server, 30)
    third = settled(server, delivery, 3)[2]
    assert (third["outcome"], third["next_attempt_at"]) == ("delivered", None)
    assert len(receiver.wait_for(3)) == 3


def test_cometchat_without_retry_on_failure_tries_once(server):
    target = Receiver(statuses=[500])
    try:
        cometchat_hook(server, target.url("/cc"))
        _, answer = send(server, COMETCHAT_MESSAGE)
        [attempt] = settled(server, answer["deliveries"][0]["delivery"], 1)
        assert (attempt["status"], attempt["outcome"], attempt["next_attempt_at"]) == (500, "failed", None)
        _, listing, _ = call(server, "/_mockcdn/deliveries?app=demo")
        assert listing["pending"] == []
    finally:
        target.close()


def test_config_file_webhooks_and_their_refusal(tmp_path, receiver):
    config = tmp_path / "mockcdn.yaml"
    config.write_text(f"""
apps:
  - app_id: demo
    api_key: {API_KEY}
    api_secret: {API_SECRET}
    webhooks:
      stream: {{ webhook_url: "{receiver.url('/stream')}", enable_hook_payload_compression: true }}
      cometchat:
        - {{ id: media, webhookURL: "{receiver.url('/cc')}", triggers: [message_sent], useBasicAuth: true,
            username: hooks, password: s3cret }}
""")
    with launch("--config", str(config)) as running:
        _, answer = send(running.url, {**COMETCHAT_MESSAGE, "keys": []})
        assert answer["deliveries"][0]["target"] == "media"
        [(headers, body)] = receiver.wait_for(1)
        assert headers["authorization"] == "Basic " + base64.b64encode(b"hooks:s3cret").decode()
        assert json.loads(body)["data"]["message"]["type"] == "text"
        reset(running.url)  # the file's webhooks come back after a reset
        assert stream_client(running.url).get_app_settings()["app"]["enable_hook_payload_compression"] is True
        _, answer = send(running.url, STREAM_MESSAGE)
        [(headers, body)] = receiver.wait_for(2)[1:]
        assert headers["content-encoding"] == "gzip"
    config.write_text(f"""
apps:
  - app_id: demo
    api_key: {API_KEY}
    api_secret: {API_SECRET}
    webhooks:
      cometchat:
        - {{ id: media, webhookURL: "ftp://nowhere", triggers: [message_sent] }}
""")
    first, error = start_outcome(str(config))
    assert not first.startswith("mockcdn ready")
    assert "app demo: webhooks: webhookURL must be an http:// or https:// URL with a host" in error, error


def _seconds_between(start: str, end: str) -> float:
    from datetime import datetime
    parse = lambda text: datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")  # noqa: E731
    return round((parse(end) - parse(start)).total_seconds())


# MARK: - Refusals


@pytest.mark.parametrize("body, status, message", [
    ({**STREAM_MESSAGE, "vendor": "slack"}, 400, "vendor must be stream or cometchat"),
    ({**STREAM_MESSAGE, "event": "message_sent"}, 400, "event must be message.new for stream"),
    ({**COMETCHAT_MESSAGE, "event": "message.new"}, 400, "event must be message_sent for cometchat"),
    ({**STREAM_MESSAGE, "app": "nope"}, 404, "no app nope"),
    ({**STREAM_MESSAGE, "extra": 1}, 400, "unknown member extra"),
    (STREAM_MESSAGE, 422, "app demo has no Stream webhook for message.new: set webhook_url or event_hooks with "
                          "PATCH /app"),
    (COMETCHAT_MESSAGE, 422, "app demo has no enabled CometChat webhook with the message_sent trigger: create one "
                             "with POST /apps/demo/webhooks and add the trigger, or list it under apps[].webhooks"),
])
def test_refusals(server, body, status, message):
    answered, answer = send(server, body)
    assert (answered, answer) == (status, {"error": {"message": message}})


def test_unknown_key_is_404(server, receiver):
    stream_client(server).update_app_settings(webhook_url=receiver.url())
    answered, answer = send(server, {**STREAM_MESSAGE, "keys": ["fixtures/nothing.jpg"]})
    assert (answered, answer) == (404, {"error": {"message": "no object fixtures/nothing.jpg in app demo"}})
    _, listing, _ = call(server, "/_mockcdn/deliveries?app=demo")
    assert listing["attempts"] == [] and listing["pending"] == []
