"""Run by test_s3_other_clients.py and test_s3_client_refusals.py in a process of their own, with
`.venv/s3clients` first on the path: s3fs, minio-py and aiobotocore with their defaults (only the endpoint and
the keys). Prints one JSON object of what the clients saw.

- `round-trip SERVER KEY SECRET PREFIX`: each client's everyday calls against MockCDN at SERVER.
- `refusals CLIENT SPEC`: what refused each of CLIENT's calls (the S3 error code), SPEC being the JSON of
  `test_s3_client_refusals.refusal_spec`.
- `buckets SERVER KEY SECRET NAME`: minio-py's `make_bucket`, `bucket_exists`, an object in and out, and
  `remove_bucket`, as a test's set-up and teardown use them.
"""

import asyncio
import base64
import io
import json
import sys
import tempfile
import zlib
from pathlib import Path


def round_trip(server: str, key: str, secret: str, prefix: str) -> dict:
    import s3fs
    from aiobotocore.session import get_session
    from minio import Minio

    seen: dict = {}
    fs = s3fs.S3FileSystem(key=key, secret=secret, client_kwargs={"endpoint_url": server})
    with tempfile.TemporaryDirectory() as folder:
        local = Path(folder) / "note.txt"
        local.write_bytes(b"from s3fs")
        fs.put(str(local), f"demo/{prefix}/s3fs/note.txt")
    seen["s3fs_ls"] = sorted(fs.ls(f"demo/{prefix}/s3fs"))
    with fs.open(f"demo/{prefix}/s3fs/note.txt", "rb") as handle:
        seen["s3fs_open"] = handle.read().decode()

    client = Minio(server.split("://", 1)[1], access_key=key, secret_key=secret, secure=False)
    with tempfile.TemporaryDirectory() as folder:
        source, target = Path(folder) / "up.bin", Path(folder) / "down.bin"
        source.write_bytes(bytes(range(256)) * 100)
        client.fput_object("demo", f"{prefix}/minio/up.bin", str(source))
        client.fget_object("demo", f"{prefix}/minio/up.bin", str(target))
        seen["minio_round_trip"] = target.read_bytes() == source.read_bytes()

    async def aiobotocore_get() -> str:
        async with get_session().create_client("s3", endpoint_url=server, aws_access_key_id=key,
                                               aws_secret_access_key=secret) as s3:
            answer = await s3.get_object(Bucket="demo", Key=f"{prefix}/s3fs/note.txt")
            async with answer["Body"] as body:
                return (await body.read()).decode()

    seen["aiobotocore_get"] = asyncio.run(aiobotocore_get())
    return seen


def buckets(server: str, key: str, secret: str, name: str) -> dict:
    from minio import Minio

    client = Minio(server.split("://", 1)[1], access_key=key, secret_key=secret, secure=False)
    seen = {"exists_before": client.bucket_exists(name)}
    client.make_bucket(name)
    seen["exists_after_make"] = client.bucket_exists(name)
    client.put_object(name, "set-up/note.txt", io.BytesIO(b"from minio"), 10)
    seen["read"] = client.get_object(name, "set-up/note.txt").read().decode()
    seen["listed"] = [item.object_name for item in client.list_objects(name, recursive=True)]
    client.remove_object(name, "set-up/note.txt")
    client.remove_bucket(name)
    seen["exists_after_remove"] = client.bucket_exists(name)
    return seen


def refusals(client: str, spec: dict) -> dict:
    """CLIENT's calls that must be refused, each case's S3 error code (or "stored"/"read" when it was not)."""
    body, keys, sample = spec["body"].encode(), spec["keys"], spec["sample"]
    wrong_crc32 = base64.b64encode(zlib.crc32(b"other bytes").to_bytes(4, "big")).decode()
    one_attempt = {"total_max_attempts": 1}
    if client == "s3fs":
        import s3fs

        def fs(endpoint: str, secret: str = spec["secret"], **options):
            return s3fs.S3FileSystem(key=spec["key"], secret=secret, client_kwargs={"endpoint_url": endpoint},
                                     skip_instance_cache=True, **options)

        def code(call) -> str:
            try:
                call()
                return "done"
            except OSError as error:  # s3fs raises OSError and keeps botocore's error as the cause
                return error.__cause__.response["Error"]["Code"]

        return {
            "wrong secret put": code(lambda: fs(spec["server"], "not-the-secret").pipe(
                f"demo/{keys['wrong secret put']}", body)),
            "wrong secret get": code(lambda: fs(spec["server"], "not-the-secret").cat_file(f"demo/{sample}")),
            "skewed put": code(lambda: fs(spec["skewed"]).pipe(f"demo/{keys['skewed put']}", body)),
            "skewed get": code(lambda: fs(spec["skewed"]).cat_file(f"demo/{sample}")),
            "tampered put": code(lambda: fs(spec["proxy"]).pipe(f"demo/{keys['tampered put']}", body)),
            # One attempt: botocore retries a BadDigest with backoff, which changes nothing but the time taken.
            "wrong checksum put": code(lambda: fs(spec["server"], config_kwargs={"retries": one_attempt}).pipe(
                f"demo/{keys['wrong checksum put']}", body, ChecksumCRC32=wrong_crc32)),
        }
    if client == "minio":
        from minio import Minio
        from minio.error import S3Error

        def minio(endpoint: str, secret: str = spec["secret"]):
            return Minio(endpoint.split("://", 1)[1], access_key=spec["key"], secret_key=secret, secure=False)

        def code(call) -> str:
            try:
                call()
                return "done"
            except S3Error as error:
                return error.code

        def put(client, case: str, **options):
            return client.put_object("demo", keys[case], io.BytesIO(body), len(body), **options)

        return {
            "wrong secret put": code(lambda: put(minio(spec["server"], "not-the-secret"), "wrong secret put")),
            "wrong secret get": code(lambda: minio(spec["server"], "not-the-secret").get_object("demo", sample).read()),
            "skewed put": code(lambda: put(minio(spec["skewed"]), "skewed put")),
            "skewed get": code(lambda: minio(spec["skewed"]).get_object("demo", sample).read()),
            "tampered put": code(lambda: put(minio(spec["proxy"]), "tampered put")),
            "wrong checksum put": code(lambda: put(minio(spec["server"]), "wrong checksum put",
                                                   metadata={"x-amz-checksum-crc32": wrong_crc32})),
        }
    assert client == "aiobotocore", client
    from aiobotocore.config import AioConfig
    from aiobotocore.session import get_session
    from botocore.exceptions import ClientError

    async def code(endpoint: str, operation: str, secret: str = spec["secret"], config=None, **params) -> str:
        async with get_session().create_client("s3", endpoint_url=endpoint, aws_access_key_id=spec["key"],
                                               aws_secret_access_key=secret, config=config) as s3:
            try:
                answer = await getattr(s3, operation)(Bucket="demo", **params)
                if "Body" in answer:
                    async with answer["Body"] as stream:
                        await stream.read()
                return "done"
            except ClientError as error:
                return error.response["Error"]["Code"]

    async def run() -> dict:
        return {
            "wrong secret put": await code(spec["server"], "put_object", "not-the-secret",
                                           Key=keys["wrong secret put"], Body=body),
            "wrong secret get": await code(spec["server"], "get_object", "not-the-secret", Key=sample),
            "skewed put": await code(spec["skewed"], "put_object", Key=keys["skewed put"], Body=body),
            "skewed get": await code(spec["skewed"], "get_object", Key=sample),
            "tampered put": await code(spec["proxy"], "put_object", Key=keys["tampered put"], Body=body),
            # One attempt: botocore retries a BadDigest with backoff, which changes nothing but the time taken.
            "wrong checksum put": await code(spec["server"], "put_object", config=AioConfig(retries=one_attempt),
                                             Key=keys["wrong checksum put"], Body=body, ChecksumCRC32=wrong_crc32),
        }

    return asyncio.run(run())


if __name__ == "__main__":
    if sys.argv[1] == "round-trip":
        print(json.dumps(round_trip(*sys.argv[2:6])))
    elif sys.argv[1] == "buckets":
        print(json.dumps(buckets(*sys.argv[2:6])))
    else:
        print(json.dumps(refusals(sys.argv[2], json.loads(sys.argv[3]))))
