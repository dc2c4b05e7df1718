"""Run by test_s3_other_clients.py in a process of its own, with `.venv/s3clients` first on its path: s3fs,
minio-py and aiobotocore with their defaults (only the endpoint and the keys), against MockCDN at argv[1].
Prints one JSON object of what each client saw."""

import asyncio
import json
import sys
import tempfile
from pathlib import Path

server, key, secret, prefix = sys.argv[1:5]
host = server.split("://", 1)[1]
seen: dict = {}

import s3fs  # noqa: E402

fs = s3fs.S3FileSystem(key=key, secret=secret, client_kwargs={"endpoint_url": server})
with tempfile.TemporaryDirectory() as folder:
    local = Path(folder) / "note.txt"
    local.write_bytes(b"from s3fs")
    fs.put(str(local), f"demo/{prefix}/s3fs/note.txt")
seen["s3fs_ls"] = sorted(fs.ls(f"demo/{prefix}/s3fs"))
with fs.open(f"demo/{prefix}/s3fs/note.txt", "rb") as handle:
    seen["s3fs_open"] = handle.read().decode()
wrong = s3fs.S3FileSystem(key=key, secret="not-the-secret", client_kwargs={"endpoint_url": server},
                          skip_instance_cache=True)
try:
    wrong.cat(f"demo/{prefix}/s3fs/note.txt")
    seen["s3fs_wrong_secret"] = "read"
except PermissionError as error:
    seen["s3fs_wrong_secret"] = type(error).__name__

from minio import Minio  # noqa: E402
from minio.error import S3Error  # noqa: E402

client = Minio(host, access_key=key, secret_key=secret, secure=False)
with tempfile.TemporaryDirectory() as folder:
    source, target = Path(folder) / "up.bin", Path(folder) / "down.bin"
    source.write_bytes(bytes(range(256)) * 100)
    client.fput_object("demo", f"{prefix}/minio/up.bin", str(source))
    client.fget_object("demo", f"{prefix}/minio/up.bin", str(target))
    seen["minio_round_trip"] = target.read_bytes() == source.read_bytes()
try:
    Minio(host, access_key=key, secret_key="not-the-secret", secure=False).stat_object("demo", f"{prefix}/minio/up.bin")
    seen["minio_wrong_secret"] = "read"
except S3Error as error:
    seen["minio_wrong_secret"] = error.code

from aiobotocore.session import get_session  # noqa: E402


async def aiobotocore_get() -> str:
    async with get_session().create_client("s3", endpoint_url=server, aws_access_key_id=key,
                                           aws_secret_access_key=secret) as s3:
        answer = await s3.get_object(Bucket="demo", Key=f"{prefix}/s3fs/note.txt")
        async with answer["Body"] as body:
            return (await body.read()).decode()

seen["aiobotocore_get"] = asyncio.run(aiobotocore_get())
print(json.dumps(seen))
