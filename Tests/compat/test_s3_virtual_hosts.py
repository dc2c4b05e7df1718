"""Virtual-hosted addressing: the bucket (app) in the Host's first label, as boto3 sends it with
`addressing_style="virtual"` (`demo.localhost:PORT/key`, `demo.s3.localhost:PORT/key`). The signatures cover the
path as the client sent it, without the app. `*.localhost` does not resolve on every machine (it does with
systemd-resolved, and in browsers), so the tests resolve it to 127.0.0.1 themselves.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_virtual_hosts.py``.
"""

from __future__ import annotations

import socket
import urllib.parse
import uuid

import boto3
import pytest
from botocore.config import Config

from s3support import fat, refused
from support import API_KEY, API_SECRET, request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")

_resolve = socket.getaddrinfo


@pytest.fixture(autouse=True)
def localhost_names(monkeypatch):
    def getaddrinfo(host, *args, **kwargs):
        if isinstance(host, str) and host.endswith(".localhost"):
            host = "127.0.0.1"
        return _resolve(host, *args, **kwargs)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def virtual(server: str, host: str = "localhost", **config):
    port = urllib.parse.urlsplit(server).port
    return boto3.session.Session().client(
        "s3", endpoint_url=f"http://{host}:{port}", aws_access_key_id=API_KEY, aws_secret_access_key=API_SECRET,
        config=Config(s3={"addressing_style": "virtual"}, **config))


@pytest.mark.parametrize("host", ["localhost", "s3.localhost"])
def test_boto3_virtual_hosted_calls(server, host):
    client, key = virtual(server, host), f"vhost/{uuid.uuid4()}.txt"
    sent = []
    client.meta.events.register("before-send.s3.PutObject", lambda request, **_: sent.append(request.url))
    client.put_object(Bucket="demo", Key=key, Body=b"virtual")
    assert urllib.parse.urlsplit(sent[0]).netloc.startswith(f"demo.{host}:")
    assert client.get_object(Bucket="demo", Key=key)["Body"].read() == b"virtual"
    assert client.head_bucket(Bucket="demo")["ResponseMetadata"]["HTTPStatusCode"] == 200
    listed = client.list_objects_v2(Bucket="demo", Prefix="vhost/")
    assert key in [item["Key"] for item in listed["Contents"]]
    client.delete_object(Bucket="demo", Key=key)
    assert refused(lambda: client.head_object(Bucket="demo", Key=key))[0] == 404


@pytest.mark.parametrize("signature_version", ["s3v4", "s3"])
def test_presigned_virtual_hosted_urls(server, signature_version):
    client = virtual(server, signature_version=signature_version)
    url = client.generate_presigned_url("get_object", Params={"Bucket": "demo", "Key": "fixtures/sample.pdf"},
                                        ExpiresIn=300)
    assert urllib.parse.urlsplit(url).netloc.startswith("demo.localhost:")
    status, body, _ = request(url)
    assert status == 200 and body.startswith(b"%PDF")
    tampered = url.replace("sample.pdf", "sample.png")
    assert request(tampered)[0] == 403


def test_a_fat_read_on_the_app_host(server):
    port = urllib.parse.urlsplit(server).port
    status, body, _ = request(f"http://demo.localhost:{port}/fixtures/sample.pdf", headers={"fat": fat(server)})
    assert status == 200 and body.startswith(b"%PDF")


def test_a_host_that_names_no_app_is_path_style(server):
    port = urllib.parse.urlsplit(server).port
    status, body, _ = request(f"http://other.localhost:{port}/demo/fixtures/sample.pdf",
                              headers={"fat": fat(server)})
    assert status == 200 and body.startswith(b"%PDF")


def test_a_path_that_names_the_app_stays_path_style(server):
    """The links MockCDN hands out keep the app in their path, on whatever host the client used: on an app's
    host they stay path-style (so a key that starts with the app's own name cannot be reached virtual-hosted)."""
    port = urllib.parse.urlsplit(server).port
    status, body, _ = request(f"http://demo.localhost:{port}/demo/fixtures/sample.pdf", headers={"fat": fat(server)})
    assert status == 200 and body.startswith(b"%PDF")
