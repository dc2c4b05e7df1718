"""Upload events (docs/events.md): the S3 event records every object change emits, the built-in queue and its
long poll, webhook targets with their signatures, filters, retries on the virtual clock and delivery faults, S3's
notification configuration through boto3, and the refusals of these routes.

A local webhook receiver (`Receiver`, an http.server in a thread) records what it gets; a test awaits its
deliveries through a threading.Condition, and MockCDN's events through the long poll, never by sleeping."""

from __future__ import annotations

import calendar
import hashlib
import hmac
import json
import re
import threading
import time
import urllib.parse
import uuid

import pytest

from conftest import launch, start_outcome
from s3support import advance, fat, refused, reset, s3
from support import API_KEY, API_SECRET, REPO, eventually, jwt, multipart, request, upload
from webhook_receiver import DEADLINE, Receiver

# Where the receiver takes deliveries: a path and a query, both kept as configured.
HOOK = "/hooks/s3?source=mockcdn"


@pytest.fixture
def receiver():
    made: list[Receiver] = []

    def make(**options) -> Receiver:
        made.append(Receiver(**options))
        return made[-1]

    yield make
    for each in made:
        each.close()


@pytest.fixture(autouse=True)
def fresh(server):
    reset(server)


def control(server: str, path: str, method: str = "GET", payload=None, raw: bytes | None = None) -> tuple[int, dict]:
    body = raw if raw is not None else (json.dumps(payload).encode() if payload is not None else None)
    status, answer, _ = request(server + path, method, body, {"Content-Type": "application/json"} if body else {})
    return status, json.loads(answer) if answer else {}


def set_targets(server: str, configuration: dict, app: str = "demo") -> dict:
    status, answer = control(server, f"/_mockcdn/apps/{app}/notifications", "PUT", configuration)
    assert status == 200, answer
    return answer


def last_id(server: str) -> int:
    return control(server, "/_mockcdn/events")[1]["last_id"]


def next_events(server: str, after: int, count: int = 1, **filters) -> list[dict]:
    """The first `count` events after `after` (with the filters), awaited with the long poll."""
    found: list[dict] = []
    deadline = time.monotonic() + DEADLINE
    while len(found) < count:
        assert time.monotonic() < deadline, f"{len(found)} of {count} events arrived: {found}"
        query = urllib.parse.urlencode({"after": after, "wait": 10, **filters})
        status, answer = control(server, "/_mockcdn/events?" + query)
        assert status == 200, answer
        found += answer["events"]
        if answer["events"]:
            after = answer["events"][-1]["id"]
    return found[:count]


def deliveries(server: str, **filters) -> dict:
    status, answer = control(server, "/_mockcdn/deliveries?" + urllib.parse.urlencode(filters))
    assert status == 200, answer
    return answer


def attempts_of(server: str, delivery: str, count: int) -> list[dict]:
    """The first `count` attempts of a delivery, once they are journaled (an attempt is journaled right after
    its answer, which the receiver saw first)."""
    def found():
        attempts = [a for a in deliveries(server)["attempts"] if a["delivery"] == delivery]
        return attempts if len(attempts) >= count else None
    return eventually(found, timeout=DEADLINE)[:count]


def signature(body: bytes, secret: str = API_SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def bare(etag: str) -> str:
    return etag.strip('"')


# --- the record, the signature, the webhook ------------------------------------------------------------------


def test_a_webhook_gets_a_signed_s3_record_of_the_upload(server, receiver):
    hook = receiver()
    set_targets(server, {"webhooks": [{"id": "thumbs", "url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    key = f"docs/{uuid.uuid4().hex} a+b=c(1)~é.txt"
    put = s3(server).put_object(Bucket="demo", Key=key, Body=b"hello events", ContentType="text/plain")
    headers, body = hook.wait_for(1)[0]
    assert headers["x-signature"] == signature(body)
    assert headers["content-type"] == "application/json"
    assert headers["x-mockcdn-attempt"] == "1" and re.fullmatch(r"d\d+", headers["x-mockcdn-delivery"])
    (record,) = json.loads(body)["Records"]
    assert record["eventVersion"] == "2.1" and record["eventSource"] == "aws:s3"
    assert record["awsRegion"] == "us-east-1" and record["eventName"] == "ObjectCreated:Put"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["eventTime"])
    assert record["userIdentity"]["principalId"] and record["requestParameters"]["sourceIPAddress"] == "127.0.0.1"
    assert set(record["responseElements"]) == {"x-amz-request-id", "x-amz-id-2"}
    s3_part = record["s3"]
    assert s3_part["s3SchemaVersion"] == "1.0" and s3_part["configurationId"] == "thumbs"
    assert s3_part["bucket"]["name"] == "demo" and s3_part["bucket"]["arn"] == "arn:aws:s3:::demo"
    obj = s3_part["object"]
    # As AWS encodes it: form encoding as Java's URLEncoder does it (a space is +, `~` is %7E), `/` kept.
    assert obj["key"] == urllib.parse.quote_plus(key, safe="/*").replace("~", "%7E")
    assert urllib.parse.unquote_plus(obj["key"]) == key
    assert obj["size"] == len(b"hello events") and obj["eTag"] == bare(put["ETag"])
    assert re.fullmatch(r"[0-9A-F]{16}", obj["sequencer"])
    # The attempt is journaled with its status.
    (attempt,) = attempts_of(server, headers["x-mockcdn-delivery"], 1)
    assert attempt["status"] == 200 and attempt["outcome"] == "delivered" and attempt["next_attempt_at"] is None
    assert attempt["target"] == "thumbs" and attempt["event_name"] == "ObjectCreated:Put" and attempt["key"] == key


def test_event_time_comes_from_the_virtual_clock(server):
    # Ten minutes on: within S3's 15-minute skew allowance, so boto3's signed request still passes.
    advance(server, 600)
    now = control(server, "/_mockcdn/clock")[1]["now"]
    after = last_id(server)
    s3(server).put_object(Bucket="demo", Key="clock.txt", Body=b"x")
    (event,) = next_events(server, after, app="demo")
    stamp = calendar.timegm(time.strptime(event["record"]["eventTime"][:19], "%Y-%m-%dT%H:%M:%S"))
    # Within a minute of the moved clock, and far from the system time: the record read the virtual clock.
    assert abs(stamp - now) < 60 and stamp - time.time() > 300


def test_sequencers_increase_per_key(server):
    after = last_id(server)
    client = s3(server)
    for body in (b"1", b"22", b"333"):
        client.put_object(Bucket="demo", Key="seq.txt", Body=body)
    client.delete_object(Bucket="demo", Key="seq.txt")
    events = next_events(server, after, 4, app="demo")
    sequencers = [e["record"]["s3"]["object"]["sequencer"] for e in events]
    assert sequencers == sorted(sequencers) and len(set(sequencers)) == 4
    assert [e["record"]["s3"]["object"].get("size") for e in events] == [1, 2, 3, None]
    assert [e["record"]["eventName"] for e in events] == ["ObjectCreated:Put"] * 3 + ["ObjectRemoved:Delete"]


def test_filters_by_event_name_prefix_and_suffix(server, receiver):
    created, removed = receiver(), receiver()
    set_targets(server, {"webhooks": [
        {"id": "png-images", "url": created.url(HOOK), "events": ["s3:ObjectCreated:*"], "prefix": "pics/",
         "suffix": ".png"},
        {"id": "deletes", "url": removed.url(HOOK), "events": ["s3:ObjectRemoved:Delete"]},
    ]})
    after = last_id(server)
    client = s3(server)
    for key in ("pics/a.png", "pics/a.jpg", "other/a.png"):
        client.put_object(Bucket="demo", Key=key, Body=b"x")
    client.delete_object(Bucket="demo", Key="pics/a.png")
    events = next_events(server, after, 4, app="demo")
    assert [e["targets"] for e in events] == [["png-images"], [], [], ["deletes"]]
    # Deliveries are made when the event is queued: after the queue shows all four, no other can follow.
    assert [json.loads(b)["Records"][0]["s3"]["object"]["key"] for _, b in created.wait_for(1)] == ["pics/a.png"]
    assert [json.loads(b)["Records"][0]["eventName"] for _, b in removed.wait_for(1)] == ["ObjectRemoved:Delete"]
    expected = {"png-images": {events[0]["id"]}, "deletes": {events[3]["id"]}}

    def by_target():
        found = {}
        for entry in deliveries(server)["attempts"]:
            found.setdefault(entry["target"], set()).add(entry["event_id"])
        return found
    # Each attempt is journaled once the target answered it.
    eventually(lambda: by_target() == expected, DEADLINE, message=lambda: f"{by_target()} != {expected}")


# --- retries on the virtual clock, faults ------------------------------------------------------------------


def test_a_failing_target_is_retried_on_the_virtual_clock(server, receiver):
    hook = receiver(statuses=[500, 503, 502])
    set_targets(server, {"webhooks": [{"id": "flaky", "url": hook.url(HOOK), "events": ["s3:ObjectCreated:Put"]}]})
    s3(server).put_object(Bucket="demo", Key="retry.txt", Body=b"x")
    first, _ = hook.wait_for(1)[0]
    delivery = first["x-mockcdn-delivery"]
    (attempt,) = attempts_of(server, delivery, 1)
    assert attempt["status"] == 500 and attempt["outcome"] == "failed" and attempt["next_attempt_at"]
    (waiting,) = deliveries(server)["pending"]
    assert waiting["delivery"] == delivery and waiting["attempt"] == 2
    # The schedule (10 s, 30 s, 2 min, 10 min) runs on MockCDN's clock: each advance makes the next attempt
    # due at once. The third wait is 2 minutes, past this test's 30 s deadline: only the clock can bring it.
    for seconds, count in ((10, 2), (30, 3), (120, 4)):
        # The failed attempt is journaled with its next time before the clock moves past it.
        assert attempts_of(server, delivery, count - 1)[-1]["next_attempt_at"]
        advance(server, seconds)
        headers, body = hook.wait_for(count)[-1]
        assert headers["x-mockcdn-delivery"] == delivery and headers["x-mockcdn-attempt"] == str(count)
        assert headers["x-signature"] == signature(body)
    attempts = attempts_of(server, delivery, 4)
    assert [a["status"] for a in attempts] == [500, 503, 502, 200]
    assert attempts[-1]["outcome"] == "delivered" and deliveries(server)["pending"] == []


def add_fault(server: str, rule: dict) -> str:
    status, answer = control(server, "/_mockcdn/faults", "POST", rule)
    assert status == 201, answer
    return answer["id"]


def test_a_status_fault_makes_the_target_see_the_delivery_again(server, receiver):
    hook = receiver()
    set_targets(server, {"webhooks": [{"url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    rule = add_fault(server, {"match": {"scope": "deliveries", "path": "/hooks/*"}, "times": 1,
                              "action": {"status": 503}})
    s3(server).put_object(Bucket="demo", Key="idempotent.txt", Body=b"x")
    first, body = hook.wait_for(1)[0]
    (attempt,) = attempts_of(server, first["x-mockcdn-delivery"], 1)
    assert (attempt["status"], attempt["outcome"], attempt["fault"]) == (503, "failed", rule)
    advance(server, 10)
    again, same_body = hook.wait_for(2)[1]
    assert again["x-mockcdn-delivery"] == first["x-mockcdn-delivery"] and same_body == body
    assert attempts_of(server, first["x-mockcdn-delivery"], 2)[1]["outcome"] == "delivered"


def test_a_dropped_delivery_never_reaches_the_target_and_is_retried(server, receiver):
    hook = receiver()
    set_targets(server, {"webhooks": [{"id": "dropped", "url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    rule = add_fault(server, {"match": {"scope": "deliveries"}, "times": 1, "action": {"drop": True}})
    after = last_id(server)
    s3(server).put_object(Bucket="demo", Key="dropped.txt", Body=b"x")
    next_events(server, after, app="demo")
    attempt = eventually(lambda: next(iter(deliveries(server, target="dropped")["attempts"]), None), DEADLINE)
    assert (attempt["status"], attempt["outcome"], attempt["fault"]) == (None, "dropped", rule)
    assert hook.received == []
    advance(server, 10)
    headers, _ = hook.wait_for(1)[0]
    assert headers["x-mockcdn-attempt"] == "2" and headers["x-mockcdn-delivery"] == attempt["delivery"]


def test_a_slow_fault_delays_the_delivery(server, receiver):
    hook = receiver()
    set_targets(server, {"webhooks": [{"id": "slow", "url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    add_fault(server, {"match": {"scope": "deliveries", "method": "POST"}, "action": {"delay_ms": 400}})
    s3(server).put_object(Bucket="demo", Key="slow.txt", Body=b"x")
    headers, _ = hook.wait_for(1)[0]
    (attempt,) = attempts_of(server, headers["x-mockcdn-delivery"], 1)
    # One-sided: the attempt took at least the delay.
    assert attempt["outcome"] == "delivered" and attempt["duration_ms"] >= 400


def test_delivery_rules_leave_requests_alone_and_request_rules_leave_deliveries(server, receiver):
    hook = receiver()
    set_targets(server, {"webhooks": [{"url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    add_fault(server, {"match": {"scope": "deliveries"}, "action": {"status": 500}})
    add_fault(server, {"match": {"path": "/hooks"}, "action": {"status": 418}})
    s3(server).put_object(Bucket="demo", Key="scoped.txt", Body=b"x")  # not refused: the rule is for deliveries
    headers, _ = hook.wait_for(1)[0]
    assert attempts_of(server, headers["x-mockcdn-delivery"], 1)[0]["status"] == 500


def test_a_hanging_target_does_not_slow_uploads(server, receiver):
    client = s3(server)
    client.put_object(Bucket="demo", Key="warm.txt", Body=b"x")
    hook = receiver(hang=True)
    set_targets(server, {"webhooks": [{"url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    client.put_object(Bucket="demo", Key="hang-0.txt", Body=b"x")
    hook.wait_for(1)  # the target now holds a delivery and answers nothing
    took = []
    for n in range(1, 6):
        started = time.monotonic()
        client.put_object(Bucket="demo", Key=f"hang-{n}.txt", Body=b"x" * 1024)
        took.append(time.monotonic() - started)
        # Each upload answered while the target still held the first delivery unanswered.
        assert not hook.release.is_set()
    # Every delivery was handed to the target while it hung (none queued behind another)...
    assert len(hook.wait_for(6)) == 6
    # ...and no upload waited for one: an upload that did would take the 5 s attempt timeout (10x the bound).
    assert max(took) < 0.5, took
    hook.release.set()


def test_the_long_poll_answers_within_100_ms_of_the_upload(server):
    after = last_id(server)
    answered = {}

    def poll():
        status, answer = control(server, f"/_mockcdn/events?after={after}&wait=30&app=demo")
        answered["at"], answered["answer"] = time.monotonic(), (status, answer)

    poller = threading.Thread(target=poll)
    poller.start()
    # The poll is waiting before the upload starts: the queue counts it.
    eventually(lambda: control(server, "/_mockcdn/events?after=0")[1]["waiting"] == 1, DEADLINE)
    s3(server).put_object(Bucket="demo", Key="poll.txt", Body=b"x")
    uploaded = time.monotonic()
    poller.join(DEADLINE)
    status, answer = answered["answer"]
    assert status == 200 and [e["record"]["s3"]["object"]["key"] for e in answer["events"]] == ["poll.txt"]
    assert answered["at"] - uploaded < 0.1


def test_a_poll_with_nothing_new_waits_then_answers_empty(server):
    after = last_id(server)
    started = time.monotonic()
    status, answer = control(server, f"/_mockcdn/events?after={after}&wait=0.2")
    # One-sided: it waited at least the wait.
    assert status == 200 and answer["events"] == [] and time.monotonic() - started >= 0.2


# --- every source of changes --------------------------------------------------------------------------------


def post_policy_upload(server: str, key: str, data: bytes) -> int:
    post = s3(server).generate_presigned_post("demo", key)
    boundary = "p" + uuid.uuid4().hex
    fields = [(name, None, None, value.encode()) for name, value in post["fields"].items()]
    body = multipart(fields + [("file", "f.txt", "text/plain", data)], boundary)
    status, answer, _ = request(post["url"], "POST", body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    return status


def test_every_source_of_change_emits_its_event(server):
    client = s3(server)
    after = last_id(server)
    expected: list[tuple[str, str, int | None]] = []  # (event, key, size)

    client.put_object(Bucket="demo", Key="src/put me.txt", Body=b"put")
    expected.append(("ObjectCreated:Put", "src/put me.txt", 3))

    url = client.generate_presigned_url("put_object", Params={"Bucket": "demo", "Key": "src/presigned.txt",
                                                               "ContentType": "text/plain"})
    assert request(url, "PUT", b"presigned", {"Content-Type": "text/plain"})[0] == 200
    expected.append(("ObjectCreated:Put", "src/presigned.txt", 9))

    assert post_policy_upload(server, "src/form.txt", b"form") == 204
    expected.append(("ObjectCreated:Post", "src/form.txt", 4))

    part = b"m" * (5 * 1024 * 1024)
    created = client.create_multipart_upload(Bucket="demo", Key="src/multi.bin")
    etag = client.upload_part(Bucket="demo", Key="src/multi.bin", UploadId=created["UploadId"], PartNumber=1,
                              Body=part)["ETag"]
    client.complete_multipart_upload(Bucket="demo", Key="src/multi.bin", UploadId=created["UploadId"],
                                     MultipartUpload={"Parts": [{"ETag": etag, "PartNumber": 1}]})
    expected.append(("ObjectCreated:CompleteMultipartUpload", "src/multi.bin", len(part)))

    client.copy_object(Bucket="demo", Key="src/copy.txt", CopySource={"Bucket": "demo", "Key": "src/put me.txt"})
    expected.append(("ObjectCreated:Copy", "src/copy.txt", 3))

    client.delete_object(Bucket="demo", Key="src/copy.txt")
    expected.append(("ObjectRemoved:Delete", "src/copy.txt", None))
    client.delete_objects(Bucket="demo", Delete={"Objects": [{"Key": "src/form.txt"}, {"Key": "src/none.txt"}]})
    expected.append(("ObjectRemoved:Delete", "src/form.txt", None))  # an absent key removes nothing, emits nothing

    document = b"stream file"
    stream_url = upload(server, "file", "stream doc.txt", "text/plain", document)
    stream_key = urllib.parse.unquote(urllib.parse.urlsplit(stream_url).path).split("/", 2)[2]
    expected.append(("ObjectCreated:Put", stream_key, len(document)))
    status, _, _ = request(
        f"{server}/channels/messaging/general/file?api_key={API_KEY}&url={urllib.parse.quote(stream_url, safe='')}",
        "DELETE", headers={"Authorization": jwt(), "stream-auth-type": "jwt"})
    assert status == 200
    expected.append(("ObjectRemoved:Delete", stream_key, None))

    boundary = "c" + uuid.uuid4().hex
    status, answer, _ = request(f"{server}/demo/media", "POST",
                                multipart([("file", "chat.txt", "text/plain", b"cometchat")], boundary),
                                {"fat": fat(server), "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 201, answer
    chat_key = urllib.parse.unquote(urllib.parse.urlsplit(json.loads(answer)["url"]).path).split("/", 2)[2]
    expected.append(("ObjectCreated:Put", chat_key, 9))

    status, answer, _ = request(f"{server}/v1/apps/demo/uploads", "POST", json.dumps(
        {"files": [{"name": "n.txt", "content_type": "text/plain", "size": 4}]}).encode(),
        {"fat": fat(server), "Content-Type": "application/json"})
    assert status == 200, answer
    upload_url = json.loads(answer)["uploads"][0]["url"]
    status, answer, _ = request(upload_url, "PUT", b"four", {"Content-Type": "text/plain"})
    assert status == 200, answer
    expected.append(("ObjectCreated:Put", json.loads(answer)["key"].split("/", 1)[1], 4))

    events = next_events(server, after, len(expected), app="demo")
    seen = [(e["record"]["eventName"], urllib.parse.unquote_plus(e["record"]["s3"]["object"]["key"]),
             e["record"]["s3"]["object"].get("size")) for e in events]
    assert seen == expected
    for event in events:
        obj = event["record"]["s3"]["object"]
        assert ("eTag" in obj) == event["record"]["eventName"].startswith("ObjectCreated:")
        assert " " not in obj["key"]
    # A creation's eTag is the stored object's ETag, without quotes.
    for name, key in (("ObjectCreated:Put", "src/put me.txt"), ("ObjectCreated:CompleteMultipartUpload", "src/multi.bin"),
                      ("ObjectCreated:Put", "src/presigned.txt")):
        record = next(e["record"] for e in events if e["record"]["eventName"] == name
                      and urllib.parse.unquote_plus(e["record"]["s3"]["object"]["key"]) == key)
        assert record["s3"]["object"]["eTag"] == bare(client.head_object(Bucket="demo", Key=key)["ETag"])
    multi = next(e for e in events if e["record"]["eventName"].endswith("CompleteMultipartUpload"))
    assert multi["record"]["s3"]["object"]["eTag"].endswith("-1")
    # MockCDN's own objects (the multipart part, the fixtures reloaded by the reset) emitted nothing.
    assert all(not e["record"]["s3"]["object"]["key"].startswith("_mockcdn") for e in events)


def test_a_video_poster_emits_nothing_of_its_own(server):
    after = last_id(server)
    boundary = "v" + uuid.uuid4().hex
    video = (REPO / "Fixtures" / "media" / "sample.mp4").read_bytes()
    status, answer, _ = request(f"{server}/api/v2/chat/channels/messaging/videos/file?api_key={API_KEY}", "POST",
                                multipart([("file", "clip.mp4", "video/mp4", video)], boundary),
                                {"Authorization": jwt(), "Content-Type": f"multipart/form-data; boundary={boundary}"})
    assert status == 201, answer
    file_url = json.loads(answer)["file"]
    assert "/thumbnails/" in json.loads(answer)["thumb_url"]  # the poster was stored before the answer
    status, _, _ = request(f"{server}/api/v2/chat/channels/messaging/videos/file?api_key={API_KEY}"
                           f"&url={urllib.parse.quote(file_url, safe='')}", "DELETE", headers={"Authorization": jwt()})
    assert status == 200
    events = next_events(server, after, 2, app="demo")
    names = [(e["record"]["eventName"], e["record"]["s3"]["object"]["key"].rsplit("/", 1)[-1]) for e in events]
    assert names == [("ObjectCreated:Put", "clip.mp4"), ("ObjectRemoved:Delete", "clip.mp4")]
    assert control(server, f"/_mockcdn/events?after={events[-1]['id']}&app=demo")[1]["events"] == []


def test_a_reset_emits_a_delete_per_removed_object_and_clears_the_rest(server, receiver):
    hook = receiver(statuses=[500])
    set_targets(server, {"webhooks": [{"url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    client = s3(server)
    client.put_object(Bucket="demo", Key="before reset.txt", Body=b"x")
    hook.wait_for(1)
    eventually(lambda: deliveries(server)["pending"], DEADLINE)  # the failed attempt waits for its retry
    reset(server)
    listing = control(server, "/_mockcdn/events?app=demo")[1]
    removed = {urllib.parse.unquote_plus(e["record"]["s3"]["object"]["key"]) for e in listing["events"]}
    assert {e["record"]["eventName"] for e in listing["events"]} == {"ObjectRemoved:Delete"}
    assert "before reset.txt" in removed and any(key.startswith("fixtures/") for key in removed)
    # The queue holds only the reset's records; pending deliveries, the journal and run-time targets are gone.
    assert listing["events"][0]["id"] > 1 and deliveries(server) == {"attempts": [], "pending": []}
    assert control(server, "/_mockcdn/apps/demo/notifications")[1] == {
        "webhooks": [], "queues": [], "topics": [], "lambdas": []}


@pytest.mark.parametrize(("notifications", "message"), [
    ("      webhooks:\n        - { url: 'ftp://x/', events: ['s3:ObjectCreated:*'] }\n",
     "app acme: notifications: webhooks: url must be an http:// or https:// URL with a host"),
    ("      hooks: []\n", "notifications.hooks"),
])
def test_a_config_file_with_bad_targets_stops_the_start(tmp_path, notifications, message):
    config = tmp_path / "mockcdn.yaml"
    config.write_text("apps:\n  - app_id: acme\n    api_key: acme-key\n"
                      "    api_secret: acme-secret-at-least-32-bytes-long!!\n    notifications:\n" + notifications)
    first, error = start_outcome(str(config))
    assert not first.startswith("mockcdn ready") and message in error, error


def test_config_file_targets_stay_across_resets(tmp_path, receiver):
    hook = receiver()
    config = tmp_path / "mockcdn.yaml"
    config.write_text(
        "apps:\n"
        "  - app_id: acme\n    api_key: acme-key\n    api_secret: acme-secret-at-least-32-bytes-long!!\n"
        "    s3_region: eu-west-1\n"
        "    notifications:\n"
        f"      webhooks:\n        - {{ id: file-hook, url: '{hook.url(HOOK)}', events: ['s3:ObjectCreated:*'] }}\n"
    )
    with launch("--config", str(config)) as running:
        base = running.url
        status, answer = control(base, "/_mockcdn/apps/acme/notifications")
        assert status == 200 and [t["id"] for t in answer["webhooks"]] == ["file-hook"]
        client = s3(base, secret="acme-secret-at-least-32-bytes-long!!", region_name="eu-west-1")
        client._request_signer._credentials.access_key = "acme-key"  # noqa: SLF001 (the app's key id)
        client.put_object(Bucket="acme", Key="k.txt", Body=b"x")
        headers, body = hook.wait_for(1)[0]
        record = json.loads(body)["Records"][0]
        assert record["awsRegion"] == "eu-west-1" and record["s3"]["bucket"]["name"] == "acme"
        assert headers["x-signature"] == signature(body, "acme-secret-at-least-32-bytes-long!!")
        set_targets(base, {}, app="acme")
        reset(base)
        assert [t["id"] for t in control(base, "/_mockcdn/apps/acme/notifications")[1]["webhooks"]] == ["file-hook"]


# --- S3's notification configuration -----------------------------------------------------------------------


def test_boto3_notification_configuration_round_trips_and_tags_the_queue(server, receiver):
    hook = receiver()
    set_targets(server, {"webhooks": [{"id": "kept", "url": hook.url(HOOK), "events": ["s3:ObjectCreated:*"]}]})
    client = s3(server)
    queue_arn = "arn:aws:sqs:us-east-1:000000000000:thumbnails"
    configuration = {
        "QueueConfigurations": [{
            "Id": "thumbs", "QueueArn": queue_arn, "Events": ["s3:ObjectCreated:*"],
            "Filter": {"Key": {"FilterRules": [{"Name": "Prefix", "Value": "pics/"},
                                               {"Name": "Suffix", "Value": ".png"}]}},
        }],
        "TopicConfigurations": [{"Id": "removed", "TopicArn": "arn:aws:sns:us-east-1:000000000000:removed",
                                 "Events": ["s3:ObjectRemoved:*"]}],
        "LambdaFunctionConfigurations": [{
            "Id": "index", "LambdaFunctionArn": "arn:aws:lambda:us-east-1:000000000000:function:index",
            "Events": ["s3:ObjectCreated:Put", "s3:ObjectCreated:Post"],
        }],
    }
    client.put_bucket_notification_configuration(Bucket="demo", NotificationConfiguration=configuration)
    got = client.get_bucket_notification_configuration(Bucket="demo")
    got.pop("ResponseMetadata")
    assert got == configuration
    # The webhook, which S3's document cannot name, stays.
    targets = control(server, "/_mockcdn/apps/demo/notifications")[1]
    assert [t["id"] for t in targets["webhooks"]] == ["kept"] and targets["queues"][0]["arn"] == queue_arn
    after = last_id(server)
    client.put_object(Bucket="demo", Key="pics/x.png", Body=b"x")
    client.put_object(Bucket="demo", Key="pics/x.jpg", Body=b"x")
    (tagged,) = next_events(server, after, target="thumbs")
    assert tagged["record"]["s3"]["object"]["key"] == "pics/x.png"
    assert tagged["record"]["s3"]["configurationId"] == "thumbs"
    assert sorted(tagged["targets"]) == ["index", "kept", "thumbs"] and queue_arn in tagged["arns"]
    (by_arn,) = next_events(server, after, target=queue_arn)
    assert by_arn["id"] == tagged["id"]
    # An empty configuration removes the ARN targets.
    client.put_bucket_notification_configuration(Bucket="demo", NotificationConfiguration={})
    got = client.get_bucket_notification_configuration(Bucket="demo")
    assert not any(name.endswith("Configurations") for name in got)


# --- refusals --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "method", "raw", "status", "message"), [
    ("/_mockcdn/apps/demo/notifications", "PUT", b"{not json", 400, "request body is not valid JSON of the expected shape"),
    ("/_mockcdn/apps/demo/notifications", "PUT", b'{"webhook":[]}', 400, "unknown member webhook"),
    ("/_mockcdn/apps/demo/notifications", "PUT", b'{"webhooks":[{"url":"http://h/","events":["s3:ObjectCreated:*"],'
     b'"filter":"x"}]}', 400, "unknown member webhooks[0].filter"),
    ("/_mockcdn/apps/demo/notifications", "PUT", b'{"webhooks":[{"url":"ftp://x/","events":["s3:ObjectCreated:*"]}]}',
     400, "webhooks: url must be an http:// or https:// URL with a host"),
    ("/_mockcdn/apps/demo/notifications", "PUT", b'{"webhooks":[{"url":"http://h/","events":["s3:Nope"]}]}',
     400, "webhooks: s3:Nope is not an S3 event name (such as s3:ObjectCreated:*)"),
    ("/_mockcdn/apps/demo/notifications", "PUT", b'{"webhooks":[{"url":"http://h/","events":[]}]}',
     400, "webhooks: events must name at least one event"),
    ("/_mockcdn/apps/demo/notifications", "PUT", b'{"queues":[{"arn":"sqs","events":["s3:ObjectCreated:*"]}]}',
     400, "queues: arn must be an ARN (arn:aws:...)"),
    ("/_mockcdn/apps/nosuch/notifications", "PUT", b"{}", 404, "no app nosuch"),
    ("/_mockcdn/apps/nosuch/notifications", "GET", None, 404, "no app nosuch"),
    ("/_mockcdn/events?wait=61", "GET", None, 400, "wait must be 0...60 seconds"),
    ("/_mockcdn/events?after=-1", "GET", None, 400, "after must be an event id (a whole number, 0 or more)"),
    ("/_mockcdn/events?app=nosuch", "GET", None, 404, "no app nosuch"),
    ("/_mockcdn/events?since=1", "GET", None, 400,
     "unknown parameter since; the parameters are after, wait, app and target"),
    ("/_mockcdn/deliveries?status=1", "GET", None, 400, "unknown filter status; the filters are app and target"),
    # A typo'd app is refused, not an empty journal that reads as "nothing was delivered".
    ("/_mockcdn/deliveries?app=nosuch", "GET", None, 404, "no app nosuch"),
    ("/_mockcdn/faults", "POST", b'{"match":{"scope":"both"},"action":{"status":500}}', 400,
     "match.scope must be requests or deliveries"),
    ("/_mockcdn/faults", "POST", b'{"action":{"drop":true}}', 400, "action.drop needs match.scope deliveries"),
    ("/_mockcdn/faults", "POST", b'{"match":{"scope":"deliveries"},"action":{"truncate_after_bytes":1}}', 400,
     "a deliveries rule acts with status, delay_ms or drop only"),
])
def test_control_refusals(server, path, method, raw, status, message):
    got, answer = control(server, path, method, raw=raw)
    assert got == status, answer
    assert set(answer) == {"error"} and set(answer["error"]) == {"message"}
    assert answer["error"]["message"] == message


def test_s3_notification_refusals(server):
    client = s3(server)
    bad_event = {"QueueConfigurations": [{"QueueArn": "arn:aws:sqs:us-east-1:1:q", "Events": ["s3:Nope"]}]}
    assert refused(lambda: client.put_bucket_notification_configuration(
        Bucket="demo", NotificationConfiguration=bad_event)) == (400, "InvalidArgument")
    bad_rule = {"QueueConfigurations": [{"QueueArn": "arn:aws:sqs:us-east-1:1:q", "Events": ["s3:ObjectCreated:*"],
                                         "Filter": {"Key": {"FilterRules": [{"Name": "infix", "Value": "x"}]}}}]}
    assert refused(lambda: client.put_bucket_notification_configuration(
        Bucket="demo", NotificationConfiguration=bad_rule)) == (400, "InvalidArgument")
    assert refused(lambda: client.put_bucket_notification_configuration(
        Bucket="nosuchapp", NotificationConfiguration={})) == (404, "NoSuchBucket")
    assert refused(lambda: s3(server, secret="wrong-secret").get_bucket_notification_configuration(
        Bucket="demo")) == (403, "SignatureDoesNotMatch")

    # A document that is none, sent signed as boto3 would.
    def malformed(request, **_):
        request.data = b"<NotificationConfiguration"
        if "Content-MD5" in request.headers:
            del request.headers["Content-MD5"]
    client.meta.events.register("before-sign.s3.PutBucketNotificationConfiguration", malformed)
    assert refused(lambda: client.put_bucket_notification_configuration(
        Bucket="demo", NotificationConfiguration={})) == (400, "MalformedXML")
    # A bucket sub-resource PUT that is no notification configuration (PutBucketCors) is an operation MockCDN
    # does not do.
    status, body, _ = request(f"{server}/demo?cors", "PUT", b"<CORSConfiguration/>")
    assert status == 501 and b"<Code>NotImplemented</Code>" in body
