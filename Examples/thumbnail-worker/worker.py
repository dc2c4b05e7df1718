"""A backend worker that reacts to uploads, against MockCDN as it would against S3 and a CDN: it long-polls
MockCDN's upload events (in production it would hear S3 event notifications), and for each image stored under
`images/` it reads a thumbnail through MockCDN's resize and stores it with boto3 under `thumbs/`, the key of
the image with `.thumb` added. Its own writes are events too; it leaves them alone.

    python3 Examples/thumbnail-worker/worker.py http://127.0.0.1:8080

Only the standard library and boto3; the demo app's keys, or MOCKCDN_APP, MOCKCDN_KEY, MOCKCDN_SECRET.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import urllib.parse
import urllib.request

import boto3

APP = os.environ.get("MOCKCDN_APP", "demo")
KEY = os.environ.get("MOCKCDN_KEY", "demo-key")
SECRET = os.environ.get("MOCKCDN_SECRET", "demo-secret-for-local-testing-only")
SIDE = 200


def thumbnail_key(key: str) -> str:
    return "thumbs/" + key.removeprefix("images/") + ".thumb"


class Worker:
    """Makes a thumbnail of every image uploaded under `images/` until `stop` is set."""

    def __init__(self, base: str):
        self.base = base.rstrip("/")
        self.s3 = boto3.session.Session().client("s3", endpoint_url=self.base, aws_access_key_id=KEY,
                                                 aws_secret_access_key=SECRET, region_name="us-east-1")
        self.stop = threading.Event()
        self.made: list[str] = []

    def get(self, path: str, headers: dict | None = None) -> tuple[bytes, str]:
        """The body and type of a GET; 60 s is a deadline, not a wait: the slowest answer is a 5 s poll."""
        with urllib.request.urlopen(urllib.request.Request(self.base + path, headers=headers or {}),
                                    timeout=60) as answer:
            return answer.read(), answer.headers.get("Content-Type", "application/octet-stream")

    def run(self) -> None:
        after = json.loads(self.get(f"/_mockcdn/events?app={APP}")[0])["last_id"]
        while not self.stop.is_set():
            # Waits up to 5 s for the next events; answers as soon as one lands.
            answer = json.loads(self.get(f"/_mockcdn/events?app={APP}&after={after}&wait=5")[0])
            after = answer["last_id"]
            for event in answer["events"]:
                record = event["record"]
                key = urllib.parse.unquote_plus(record["s3"]["object"]["key"])
                if record["eventName"].startswith("ObjectCreated:") and key.startswith("images/"):
                    self.thumbnail(key)

    def thumbnail(self, key: str) -> None:
        # A File Access Token reads the resized image, as the app's users read theirs.
        token = json.loads(urllib.request.urlopen(urllib.request.Request(
            self.base + "/_mockcdn/tokens", data=json.dumps({"kind": "fat", "user_id": "thumbnail-worker"}).encode(),
            headers={"Content-Type": "application/json"}), timeout=60).read())["token"]
        quoted = urllib.parse.quote(key)
        image, content_type = self.get(f"/{APP}/{quoted}?w={SIDE}&h={SIDE}&resize=clip", {"fat": token})
        self.s3.put_object(Bucket=APP, Key=thumbnail_key(key), Body=image, ContentType=content_type)
        self.made.append(thumbnail_key(key))


if __name__ == "__main__":
    worker = Worker(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080")
    try:
        worker.run()
    except KeyboardInterrupt:
        pass
