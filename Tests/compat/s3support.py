"""What the S3 API tests share: boto3 made with its defaults (only the endpoint and the demo app's keys), the
journal, and an S3 refusal as (status, code)."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError

from support import API_KEY, API_SECRET, request


def s3(server: str, secret: str = API_SECRET, **options):
    """boto3 with its defaults: only the endpoint (an IP address, so path-style) and the keys."""
    return boto3.session.Session().client(
        "s3", endpoint_url=server, aws_access_key_id=API_KEY, aws_secret_access_key=secret, **options
    )


def journal(server: str) -> list[dict]:
    status, body, _ = request(f"{server}/_mockcdn/requests")
    assert status == 200, body
    return json.loads(body)["requests"]


def code_of(error: ClientError) -> tuple[int, str]:
    return error.response["ResponseMetadata"]["HTTPStatusCode"], error.response["Error"]["Code"]


def refused(call) -> tuple[int, str]:
    """The status and S3 code of a call that must fail."""
    with pytest.raises(ClientError) as refusal:
        call()
    return code_of(refusal.value)


def advance(server: str, seconds: int) -> None:
    """Moves MockCDN's clock on."""
    status, body, _ = request(f"{server}/_mockcdn/clock/advance", "POST", json.dumps({"seconds": seconds}).encode(),
                              {"Content-Type": "application/json"})
    assert status == 200, body


def reset(server: str) -> None:
    """Empties the store and sets the clock back."""
    status, body, _ = request(f"{server}/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
    assert status == 200, body
