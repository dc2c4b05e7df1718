"""The AWS CLI (v1) with its defaults (only the endpoint and the demo app's keys): `aws s3 cp` up and down,
`aws s3 sync` both ways, and `aws s3 rm --recursive`. A second sync moves nothing, so listing sizes and times are
what the CLI compares.

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_s3_awscli.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid

import pytest

from conftest import launch
from s3support import s3
from support import API_KEY, API_SECRET

pytestmark = pytest.mark.usefixtures("no_aws_configuration")


def aws(server: str, *args: str) -> str:
    executable = shutil.which("aws")
    assert executable, "awscli is required (make py-deps installs it)"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET)
    run = subprocess.run([executable, "--endpoint-url", server, *args], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.fixture(scope="module")
def own_server():
    """A server of its own: its clock is the real time, which `aws s3 sync` compares file times with."""
    with launch() as server:
        yield server.url


def test_cp_sync_and_rm_recursive(own_server, tmp_path):
    server = own_server
    prefix = f"cli/{uuid.uuid4()}"
    local = tmp_path / "up"
    (local / "nested").mkdir(parents=True)
    files = {"a.txt": b"alpha", "b.bin": bytes(range(256)) * 40, "nested/c.txt": b"gamma", "empty": b""}
    hour_ago = time.time() - 3600
    for name, data in files.items():
        (local / name).write_bytes(data)
        # `aws s3 sync` uploads a file newer than the object by any fraction of a second, and LastModified has
        # whole seconds: files written an hour before make the second sync's "nothing changed" certain.
        os.utime(local / name, (hour_ago, hour_ago))
    aws(server, "s3", "cp", str(local / "a.txt"), f"s3://demo/{prefix}/single/a.txt")
    assert s3(server).get_object(Bucket="demo", Key=f"{prefix}/single/a.txt")["Body"].read() == b"alpha"

    uploaded = aws(server, "s3", "sync", str(local), f"s3://demo/{prefix}/tree")
    assert uploaded.count("upload:") == len(files), uploaded
    assert aws(server, "s3", "sync", str(local), f"s3://demo/{prefix}/tree").strip() == "", "nothing changed"
    listed = aws(server, "s3", "ls", "--recursive", f"s3://demo/{prefix}/tree/")
    assert sorted(line.split()[-1] for line in listed.splitlines()) == sorted(
        f"{prefix}/tree/{name}" for name in files)

    down = tmp_path / "down"
    aws(server, "s3", "sync", f"s3://demo/{prefix}/tree", str(down))
    for name, data in files.items():
        assert (down / name).read_bytes() == data, name
    aws(server, "s3", "cp", f"s3://demo/{prefix}/tree/b.bin", str(tmp_path / "b.bin"))
    assert (tmp_path / "b.bin").read_bytes() == files["b.bin"]

    removed = aws(server, "s3", "rm", "--recursive", f"s3://demo/{prefix}/")
    assert removed.count("delete:") == len(files) + 1, removed
    assert "Contents" not in s3(server).list_objects_v2(Bucket="demo", Prefix=prefix + "/")
