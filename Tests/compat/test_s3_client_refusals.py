"""Every S3 client the S3 API is tested with, refused as S3 refuses it, with its defaults (only the endpoint and
the demo app's keys): boto3, the AWS CLI, curl `--aws-sigv4`, s3fs, minio-py and aiobotocore. For each, a
wrong secret, a clock skewed past 15 minutes (MockCDN's clock moved on, the client's left as it is), a body
changed in transit after the client signed and checksummed it (a `TamperingProxy` changes one byte), and a
checksum claim the body does not match. Each answer is the exact S3 error code, and each refused PUT leaves
the object it aimed at as it was.

s3fs, minio-py and aiobotocore pin a botocore of their own, so they run from `.venv/s3clients` in a process of
their own (`s3_other_clients.py refusals`).

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_client_refusals.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import uuid
import xml.etree.ElementTree as ET

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from conftest import launch
from s3support import HeaderSigner, TamperingProxy, advance, crc32, journal, s3
from support import API_KEY, API_SECRET, REPO, request

pytestmark = pytest.mark.usefixtures("no_aws_configuration")

SAMPLE = "fixtures/sample.pdf"
BODY = "Z" * 100_000
BEFORE = b"the object before the refused write"
CASES = ["wrong secret put", "wrong secret get", "skewed put", "skewed get", "tampered put", "wrong checksum put"]
WRONG_CRC32 = crc32(b"other bytes")
ONE_ATTEMPT = Config(retries={"total_max_attempts": 1})


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """A server, the same behind a tampering proxy (plain, and ending TLS for botocore's aws-chunked bodies),
    and a second server whose clock is an hour ahead of every client's."""
    folder = tmp_path_factory.mktemp("tls")
    certificate, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(certificate)],
                   check=True, capture_output=True, timeout=60)
    with launch() as server, launch() as skewed, TamperingProxy(server.url) as proxy, \
            TamperingProxy(server.url, str(certificate), str(key)) as tls_proxy:
        yield {"server": server.url, "skewed": skewed.url, "proxy": proxy.url, "tls_proxy": tls_proxy.url,
               "certificate": str(certificate), "proxies": (proxy, tls_proxy)}


def refusal_spec(servers: dict, client: str) -> dict:
    """What a client's refusal run needs: the servers, keys and, per PUT case, a key of its own that already
    holds `BEFORE` (on the skewed server for the skewed case)."""
    keys = {case: f"refusals/{client}/{uuid.uuid4()}/{case.replace(' ', '-')}.txt" for case in CASES if "put" in case}
    for case, key in keys.items():
        if case.startswith("skewed"):
            skewed = servers["skewed"]
            status, answer, _ = HeaderSigner(at=server_time(skewed)).send("PUT", f"{skewed}/demo/{key}", BEFORE)
            assert status == 200, answer
        else:
            s3(servers["server"]).put_object(Bucket="demo", Key=key, Body=BEFORE)
    return {"server": servers["server"], "skewed": servers["skewed"], "proxy": servers["proxy"], "key": API_KEY,
            "secret": API_SECRET, "body": BODY, "sample": SAMPLE, "keys": keys}


def server_time(server: str) -> int:
    return int(json.loads(request(server + "/_mockcdn/clock")[1])["now"])


def boto3_refusals(servers: dict, spec: dict) -> dict:
    keys, body = spec["keys"], BODY.encode()

    def code(call) -> str:
        try:
            answer = call()
            if "Body" in answer:
                answer["Body"].read()
            return "done"
        except ClientError as error:
            return error.response["Error"]["Code"]

    # Over HTTPS botocore sends put_object aws-chunked, unsigned, with a CRC32 trailer: the chunk changes. One
    # attempt: botocore retries a BadDigest with backoff, which changes nothing but the time taken.
    chunked = s3(servers["tls_proxy"], verify=servers["certificate"], config=ONE_ATTEMPT)
    return {
        "wrong secret put": code(lambda: s3(spec["server"], "not-the-secret").put_object(
            Bucket="demo", Key=keys["wrong secret put"], Body=body)),
        "wrong secret get": code(lambda: s3(spec["server"], "not-the-secret").get_object(Bucket="demo", Key=SAMPLE)),
        "skewed put": code(lambda: s3(spec["skewed"]).put_object(Bucket="demo", Key=keys["skewed put"], Body=body)),
        "skewed get": code(lambda: s3(spec["skewed"]).get_object(Bucket="demo", Key=SAMPLE)),
        "tampered put": code(lambda: s3(spec["proxy"]).put_object(Bucket="demo", Key=keys["tampered put"], Body=body)),
        "tampered chunk put": code(lambda: chunked.put_object(Bucket="demo", Key=keys["tampered put"], Body=body)),
        # One attempt: botocore retries a BadDigest with backoff, which changes nothing but the time taken.
        "wrong checksum put": code(lambda: s3(spec["server"], config=ONE_ATTEMPT).put_object(
            Bucket="demo", Key=keys["wrong checksum put"], Body=body, ChecksumCRC32=WRONG_CRC32)),
    }


def awscli_refusals(servers: dict, spec: dict, tmp_path) -> dict:
    aws = shutil.which("aws")
    assert aws, "awscli is required (make py-deps installs it)"
    local = tmp_path / "body.txt"
    local.write_text(BODY)
    keys = spec["keys"]

    def code(endpoint: str, *arguments: str, secret: str = API_SECRET, **env) -> str:
        run = subprocess.run([aws, "--endpoint-url", endpoint, *arguments], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "AWS_ACCESS_KEY_ID": API_KEY, "AWS_SECRET_ACCESS_KEY": secret, **env})
        if run.returncode == 0:
            return "done"
        found = re.search(r"An error occurred \((\w+)\)", run.stderr)
        assert found, run.stderr
        return found.group(1)

    def cp(endpoint: str, case: str, **options) -> str:
        return code(endpoint, "s3", "cp", str(local), f"s3://demo/{keys[case]}", **options)

    return {
        "wrong secret put": cp(spec["server"], "wrong secret put", secret="not-the-secret"),
        "wrong secret get": code(spec["server"], "s3", "ls", "s3://demo/fixtures/", secret="not-the-secret"),
        "skewed put": cp(spec["skewed"], "skewed put"),
        "skewed get": code(spec["skewed"], "s3", "ls", "s3://demo/fixtures/"),
        "tampered put": cp(spec["proxy"], "tampered put"),
        # One attempt: botocore retries a BadDigest with backoff, which changes nothing but the time taken.
        "wrong checksum put": code(spec["server"], "s3api", "put-object", "--bucket", "demo", "--key",
                                   keys["wrong checksum put"], "--body", str(local), "--checksum-crc32", WRONG_CRC32,
                                   AWS_MAX_ATTEMPTS="1"),
    }


def curl_refusals(servers: dict, spec: dict, tmp_path) -> dict:
    local, answer = tmp_path / "body.txt", tmp_path / "answer.xml"
    local.write_text(BODY)
    keys, digest = spec["keys"], hashlib.sha256(BODY.encode()).hexdigest()

    def code(url: str, *arguments: str, secret: str = API_SECRET) -> str:
        # S3 asks for x-amz-content-sha256, which Debian 12's curl does not send by itself.
        run = subprocess.run(["curl", "-sS", "--aws-sigv4", "aws:amz:us-east-1:s3", "--user", f"{API_KEY}:{secret}",
                              "-o", str(answer), "-w", "%{http_code}", *arguments, url],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stderr
        return "done" if run.stdout.startswith("2") else ET.fromstring(answer.read_bytes()).findtext("Code")

    def put(endpoint: str, case: str, *extra: str, secret: str = API_SECRET) -> str:
        return code(f"{endpoint}/demo/{keys[case]}", "-T", str(local), "-H", f"x-amz-content-sha256: {digest}", *extra,
                    secret=secret)

    def get(endpoint: str, secret: str = API_SECRET) -> str:
        return code(f"{endpoint}/demo/{SAMPLE}", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", secret=secret)

    return {
        "wrong secret put": put(spec["server"], "wrong secret put", secret="not-the-secret"),
        "wrong secret get": get(spec["server"], "not-the-secret"),
        "skewed put": put(spec["skewed"], "skewed put"),
        "skewed get": get(spec["skewed"]),
        "tampered put": put(spec["proxy"], "tampered put"),
        "wrong checksum put": put(spec["server"], "wrong checksum put", "-H", f"x-amz-checksum-crc32: {WRONG_CRC32}"),
    }


def other_client_refusals(client: str, spec: dict) -> dict:
    clients = REPO / ".venv" / "s3clients"
    if not (clients / "s3fs").is_dir():
        pytest.fail(f"s3fs, minio and aiobotocore are missing from {clients}: `make py-deps` installs them")
    run = subprocess.run([sys.executable, str(REPO / "Tests" / "compat" / "s3_other_clients.py"), "refusals", client,
                          json.dumps(spec)], env={**os.environ, "PYTHONPATH": str(clients)},
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


# The codes S3 gives. A body that is not the one signed is XAmzContentSHA256Mismatch where the payload's hash
# was signed (botocore, minio-py and curl over plain HTTP); an aws-chunked body with an unsigned payload and a
# CRC32 trailer (botocore over HTTPS) is caught by the trailer: BadDigest.
EXPECTED = {
    "wrong secret put": "SignatureDoesNotMatch",
    "wrong secret get": "SignatureDoesNotMatch",
    "skewed put": "RequestTimeTooSkewed",
    "skewed get": "RequestTimeTooSkewed",
    "tampered put": "XAmzContentSHA256Mismatch",
    "wrong checksum put": "BadDigest",
}


def last_entry(server: str) -> int:
    return max((int(entry["id"][1:]) for entry in journal(server)), default=0)


@pytest.mark.parametrize("client", ["boto3", "awscli", "curl", "s3fs", "minio", "aiobotocore"])
def test_each_client_is_refused_with_s3_codes_and_nothing_is_stored(servers, client, tmp_path):
    spec = refusal_spec(servers, client)
    advance(servers["skewed"], 3600)
    since = {name: last_entry(servers[name]) for name in ("server", "skewed")}
    if client == "boto3":
        seen = boto3_refusals(servers, spec)
    elif client == "awscli":
        seen = awscli_refusals(servers, spec, tmp_path)
    elif client == "curl":
        seen = curl_refusals(servers, spec, tmp_path)
    else:
        seen = other_client_refusals(client, spec)
    expected = EXPECTED | ({"tampered chunk put": "BadDigest"} if client == "boto3" else {})
    if client == "s3fs":
        # s3fs reads a file's size with HeadObject first, and an answer to HEAD has no body to name its code.
        expected |= {"wrong secret get": "403", "skewed get": "403"}
    assert seen == expected
    # The journal names each refusal's code, HEAD's too.
    refusals = [entry for name in ("server", "skewed") for entry in journal(servers[name])
                if int(entry["id"][1:]) > since[name] and entry["status"] >= 400]
    codes = {entry["reason"].split(":")[0] for entry in refusals}
    assert refusals and codes <= set(expected.values()) - {"403"}, refusals
    for case, key in spec["keys"].items():
        if case.startswith("skewed"):
            status, body, _ = HeaderSigner(at=server_time(servers["skewed"])).send(
                "GET", f"{servers['skewed']}/demo/{key}", b"")
            assert (status, body) == (200, BEFORE), (case, status, body)
        else:
            assert s3(servers["server"]).get_object(Bucket="demo", Key=key)["Body"].read() == BEFORE, case
