"""The examples under `Examples/`, run against the real binary as a user runs them.

`Examples/thumbnail-worker/worker.py` hears upload events through the long poll, reads a thumbnail through
MockCDN's resize and stores it with boto3. Each wait is on an event (the worker's poll being in, the
thumbnail's own upload event), never a sleep.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_examples.py``.
"""

from __future__ import annotations

import importlib.util
import json
import struct
import threading
import uuid

import pytest

from s3support import s3
from support import REPO, eventually, request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")


def load_worker():
    path = REPO / "Examples" / "thumbnail-worker" / "worker.py"
    spec = importlib.util.spec_from_file_location("thumbnail_worker", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def events(server: str, query: str) -> dict:
    status, body, _ = request(f"{server}/_mockcdn/events?{query}")
    assert status == 200, body
    return json.loads(body)


def test_the_thumbnail_worker_makes_a_thumbnail_of_each_uploaded_image(server):
    worker_module = load_worker()
    worker = worker_module.Worker(server)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        # The worker's long poll is in before anything is uploaded.
        eventually(lambda: events(server, "app=demo")["waiting"] >= 1)
        after = events(server, "app=demo")["last_id"]
        client = s3(server)
        key = f"images/{uuid.uuid4()}/photo.png"
        client.put_object(Bucket="demo", Key=key, Body=(REPO / "Fixtures" / "media" / "sample.png").read_bytes(),
                          ContentType="image/png")
        client.put_object(Bucket="demo", Key=f"docs/{uuid.uuid4()}.txt", Body=b"no image", ContentType="text/plain")
        thumbnail = worker_module.thumbnail_key(key)
        # The thumbnail's own upload event: the worker read the resize and stored it.
        seen = []
        while thumbnail not in seen:
            answer = events(server, f"app=demo&after={after}&wait=30")
            assert answer["events"], "no event within 30 s"
            after = answer["last_id"]
            seen += [event["record"]["s3"]["object"]["key"] for event in answer["events"]]
        stored = client.get_object(Bucket="demo", Key=thumbnail)
        body = stored["Body"].read()
        assert stored["ContentType"] == "image/png" and body[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", body[16:24])
        assert max(width, height) == worker_module.SIDE, (width, height)
        assert worker.made == [thumbnail]
    finally:
        worker.stop.set()
        thread.join(30)
