"""Delivery targets and their answers (docs/events.md, docs/webhooks.md): a target on MockCDN's own listener and
control prefix is refused where it comes in, in that surface's envelope, and nothing is configured; a target
outside the control prefix, or on another port, is taken; and a target that answers 200 with a body of any size
has its delivery, once.

Every place a delivery target comes in is driven as its users drive it: the control route's JSON, Stream's
`PATCH /app` (stream-chat's `update_app_settings`), CometChat's webhook management routes, and the config file.
S3's `PutBucketNotificationConfiguration` names queues, topics and Lambda functions by ARN, never a URL, so it
has no target of this kind to refuse."""

from __future__ import annotations

import json
import urllib.parse

import pytest
from stream_chat import StreamChat
from stream_chat.base.exceptions import StreamAPIException

from conftest import start_outcome
from s3support import advance, reset, s3
from support import API_KEY, API_SECRET, eventually, jwt, request
from webhook_receiver import Receiver

# What every refusal says after the member and the URL.
BECAUSE = ("is MockCDN's own control route (/_mockcdn/...): a delivery there would drive this server (reset it, "
           "move its clock); point the target at your receiver")


@pytest.fixture(autouse=True)
def fresh(server):
    reset(server)


def call(server: str, path: str, method: str = "GET", body=None, headers: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    status, answer, _ = request(server + path, method, data, {"Content-Type": "application/json", **(headers or {})})
    return status, json.loads(answer) if answer else None


def port_of(server: str) -> int:
    return urllib.parse.urlsplit(server).port


def own_urls(server: str) -> list[tuple[str, str]]:
    """(URL, how the refusal names it) for the ways of writing MockCDN's own control routes."""
    port = port_of(server)
    return [
        (f"http://127.0.0.1:{port}/_mockcdn/reset", f"http://127.0.0.1:{port}/_mockcdn/reset"),
        (f"http://localhost:{port}/_mockcdn/clock/advance", f"http://localhost:{port}/_mockcdn/clock/advance"),
        (f"http://[::1]:{port}/_mockcdn/reset", f"http://[::1]:{port}/_mockcdn/reset"),
        (f"http://127.1:{port}/_mockcdn/reset", f"http://127.1:{port}/_mockcdn/reset"),
        (f"http://0.0.0.0:{port}/_mockcdn/reset", f"http://0.0.0.0:{port}/_mockcdn/reset"),
        (f"http://127.0.0.1:{port}/%5Fmockcdn/reset", f"http://127.0.0.1:{port}/_mockcdn/reset"),
        (f"http://user:secret@127.0.0.1:{port}/demo/../_mockcdn/reset?token=x",
         f"http://127.0.0.1:{port}/demo/../_mockcdn/reset"),
    ]


# MARK: - /_mockcdn/apps/{app}/notifications


@pytest.mark.parametrize("index", range(7))
def test_a_notification_webhook_on_the_control_routes_is_refused_and_nothing_changes(server, index):
    url, named = own_urls(server)[index]
    kept = {"webhooks": [{"id": "kept", "url": "http://127.0.0.1:9/hooks", "events": ["s3:ObjectCreated:*"]}]}
    assert call(server, "/_mockcdn/apps/demo/notifications", "PUT", kept)[0] == 200
    status, answer = call(server, "/_mockcdn/apps/demo/notifications", "PUT",
                          {"webhooks": [{"id": "self", "url": url, "events": ["s3:ObjectCreated:*"]}]})
    assert (status, answer) == (400, {"error": {"message": f"webhooks: url {named} {BECAUSE}"}})
    assert "secret" not in json.dumps(answer) and "token" not in json.dumps(answer)
    _, now = call(server, "/_mockcdn/apps/demo/notifications")
    assert [target["id"] for target in now["webhooks"]] == ["kept"]


def test_a_target_on_mockcdn_outside_the_control_routes_or_on_another_port_is_taken(server):
    port = port_of(server)
    targets = [{"id": "media", "url": f"http://127.0.0.1:{port}/demo/hooks", "events": ["s3:ObjectCreated:*"]},
               {"id": "other", "url": f"http://127.0.0.1:{port + 1 if port < 65535 else port - 1}/_mockcdn/reset",
                "events": ["s3:ObjectCreated:*"]}]
    status, answer = call(server, "/_mockcdn/apps/demo/notifications", "PUT", {"webhooks": targets})
    assert status == 200, answer
    assert [target["id"] for target in answer["webhooks"]] == ["media", "other"]


def test_a_webhook_to_a_media_path_of_mockcdn_is_delivered_and_changes_nothing(server):
    """The delivery reaches MockCDN itself as a request the journal shows, and is refused as any unsigned
    POST: no object, no event of its own, no loop."""
    port = port_of(server)
    hooks = {"webhooks": [{"id": "self", "url": f"http://127.0.0.1:{port}/demo/hooks/x",
                           "events": ["s3:ObjectCreated:*"]}]}
    assert call(server, "/_mockcdn/apps/demo/notifications", "PUT", hooks)[0] == 200
    after = call(server, "/_mockcdn/events")[1]["last_id"]
    s3(server).put_object(Bucket="demo", Key="one.txt", Body=b"1")
    attempt = eventually(lambda: next(iter(call(server, "/_mockcdn/deliveries")[1]["attempts"]), None))
    assert attempt["target"] == "self" and attempt["outcome"] == "failed" and attempt["status"] >= 400, attempt
    assert any(entry["method"] == "POST" and entry["path"] == "/demo/hooks/x"
               for entry in call(server, "/_mockcdn/requests")[1]["requests"])
    _, events = call(server, f"/_mockcdn/events?after={after}")
    assert [(event["record"]["eventName"], event["record"]["s3"]["object"]["key"]) for event in events["events"]] \
        == [("ObjectCreated:Put", "one.txt")]


# MARK: - Stream's PATCH /app


def stream(server: str) -> StreamChat:
    return StreamChat(api_key=API_KEY, api_secret=API_SECRET, base_url=server)


@pytest.mark.parametrize("member", ["webhook_url", "event_hooks"])
def test_a_stream_webhook_on_the_control_routes_is_refused_in_streams_envelope(server, member):
    client = stream(server)
    client.update_app_settings(webhook_url="http://127.0.0.1:9/stream")
    url, named = own_urls(server)[0]
    if member == "webhook_url":
        settings, name = {"webhook_url": url}, "webhook_url"
    else:
        settings, name = {"event_hooks": [{"hook_type": "webhook", "webhook_url": url, "event_types": []}]}, \
            "event_hooks[].webhook_url"
    status, answer, headers = request(f"{server}/app?api_key={API_KEY}", "PATCH", json.dumps(settings).encode(),
                                      {"Content-Type": "application/json", **server_auth()})
    body = json.loads(answer)
    assert status == 400, body
    assert (body["code"], body["StatusCode"], body["message"]) == (4, 400, f"{name} {named} {BECAUSE}")
    with pytest.raises(StreamAPIException) as refusal:
        client.update_app_settings(**settings)
    assert refusal.value.status_code == 400
    app = client.get_app_settings()["app"]
    assert app["webhook_url"] == "http://127.0.0.1:9/stream" and app.get("event_hooks") in (None, [])


def server_auth() -> dict:
    return {"Authorization": jwt({"server": True}), "stream-auth-type": "jwt"}


# MARK: - CometChat's webhook management


def manage(server: str, path: str, method: str = "GET", body=None):
    return call(server, f"/apps/demo/webhooks{path}", method, body, {"key": API_KEY, "secret": API_SECRET})


def test_a_cometchat_webhook_on_the_control_routes_is_refused_in_cometchats_envelope(server):
    url, named = own_urls(server)[1]
    refusal = (400, {"error": {"code": "ERR_BAD_REQUEST", "message": f"webhookURL {named} {BECAUSE}"}})
    assert manage(server, "", "POST", {"id": "self", "name": "self", "webhookURL": url}) == refusal
    assert manage(server, "")[1]["data"] == []
    # Changing a webhook to point there is refused too, and leaves it as it was.
    assert manage(server, "", "POST", {"id": "wh1", "name": "fine", "webhookURL": "http://127.0.0.1:9/cc"})[0] == 200
    assert manage(server, "/wh1", "PUT", {"webhookURL": url}) == refusal
    assert manage(server, "/wh1")[1]["data"][0]["data"]["webhookURL"] == "http://127.0.0.1:9/cc"


# MARK: - The config file


@pytest.mark.parametrize(("section", "message"), [
    ("    notifications:\n      webhooks:\n"
     "        - { url: 'http://cdn.test:8080/_mockcdn/reset', events: ['s3:ObjectCreated:*'] }\n",
     f"app demo: notifications: webhooks: url http://cdn.test:8080/_mockcdn/reset {BECAUSE}"),
    ("    webhooks:\n      stream: { webhook_url: 'http://cdn.test:8080/_mockcdn/reset' }\n",
     f"app demo: webhooks: stream: webhook_url http://cdn.test:8080/_mockcdn/reset {BECAUSE}"),
    ("    webhooks:\n      cometchat:\n"
     "        - { id: media, webhookURL: 'http://CDN.test:8080/_mockcdn/clock', triggers: [message_sent] }\n",
     f"app demo: webhooks: cometchat: webhookURL http://CDN.test:8080/_mockcdn/clock {BECAUSE}"),
])
def test_a_config_file_target_on_the_public_url_control_routes_stops_the_start(tmp_path, section, message):
    config = tmp_path / "mockcdn.yaml"
    config.write_text("server:\n  public_url: http://cdn.test:8080\n"
                      f"apps:\n  - app_id: demo\n    api_key: {API_KEY}\n    api_secret: {API_SECRET}\n" + section)
    first, error = start_outcome(str(config))
    assert not first.startswith("mockcdn ready") and message in error, error


# MARK: - The answer of a target


def test_a_200_with_a_one_mib_body_is_one_delivery_journaled_delivered_and_never_retried(server):
    target = Receiver(answer=b"x" * (1024 * 1024))
    try:
        hooks = {"webhooks": [{"id": "big", "url": target.url("/hooks"), "events": ["s3:ObjectCreated:*"]}]}
        assert call(server, "/_mockcdn/apps/demo/notifications", "PUT", hooks)[0] == 200
        s3(server).put_object(Bucket="demo", Key="big-answer.txt", Body=b"1")
        target.wait_for(1)
        attempts = eventually(lambda: call(server, "/_mockcdn/deliveries?target=big")[1]["attempts"] or None)
        [attempt] = attempts
        assert (attempt["attempt"], attempt["status"], attempt["outcome"]) == (1, 200, "delivered"), attempt
        assert attempt["error"] is None and attempt["next_attempt_at"] is None
        assert call(server, "/_mockcdn/deliveries?target=big")[1]["pending"] == []
        # Past every retry's time (10 s, 30 s, 2 min, 10 min): nothing is due, so nothing is sent again. A
        # second upload's delivery is the barrier: once it is in, the first was not sent twice before it.
        advance(server, 15 * 60)
        s3(server).put_object(Bucket="demo", Key="after.txt", Body=b"2")
        received = target.wait_for(2)
        assert [json.loads(body)["Records"][0]["s3"]["object"]["key"] for _, body in received] == \
            ["big-answer.txt", "after.txt"]
        assert len(target.received) == 2
    finally:
        target.close()
