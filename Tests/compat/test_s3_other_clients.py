"""s3fs (`ls`, `open`, `put`), minio-py (`fput_object`, `fget_object`, with its default region handling, which
asks for the bucket's location first) and aiobotocore (`get_object`), each with its defaults: only the endpoint
and the demo app's keys. They pin a botocore of their own, so they live in `.venv/s3clients` (make py-deps) and
run in a process of their own (`s3_other_clients.py`), away from the boto3 the other tests use.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_other_clients.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from s3support import journal
from support import API_KEY, API_SECRET, REPO

pytestmark = pytest.mark.usefixtures("no_aws_configuration")


def test_s3fs_minio_and_aiobotocore(server):
    clients = REPO / ".venv" / "s3clients"
    if not (clients / "s3fs").is_dir():
        pytest.fail(f"s3fs, minio and aiobotocore are missing from {clients}: `make py-deps` installs them")
    prefix = f"clients/{uuid.uuid4()}"
    run = subprocess.run([sys.executable, str(REPO / "Tests" / "compat" / "s3_other_clients.py"), "round-trip", server,
                          API_KEY, API_SECRET, prefix], env={**os.environ, "PYTHONPATH": str(clients)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["s3fs_ls"] == [f"demo/{prefix}/s3fs/note.txt"]
    assert seen["s3fs_open"] == "from s3fs" and seen["aiobotocore_get"] == "from s3fs"
    assert seen["minio_round_trip"] is True
    calls = [entry for entry in journal(server) if entry["path"].startswith(f"/demo/{prefix}/")]
    assert {entry["credential"] for entry in calls if entry["status"] < 300} == {"s3-header-sigv4"}, calls
