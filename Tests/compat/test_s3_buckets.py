"""Buckets as backends' own test suites make them, with boto3's, the AWS CLI's and minio-py's defaults (only the
endpoint and the demo app's keys): a fresh bucket per test created in set-up and emptied and deleted in
teardown, `create_bucket` of the app's own bucket, ListBuckets paginated, `aws s3 mb`/`ls`/`rb --force`, and
minio's `make_bucket`/`bucket_exists`/`remove_bucket`; on the memory, disk and S3 (moto_server) stores. Then
S3's refusals, each with nothing changed, and a created bucket's reads by a link, a FAT and a presigned URL, as
the app's own bucket's."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import uuid

import boto3
import pytest
from botocore.signers import CloudFrontSigner

from conftest import launch
from s3support import fat, journal, refused, s3
from support import API_KEY, API_SECRET, KEY_PAIR_ID, REPO, request
from test_cloudfront_compat import _rsa_signer
from test_scale_out import Moto, bucket, s3_env

pytestmark = pytest.mark.usefixtures("no_aws_configuration")


def fresh() -> str:
    return "test-" + uuid.uuid4().hex[:20]


def emptied_and_deleted(client, name: str) -> None:
    """A teardown as pytest fixtures write it: every object deleted, then the bucket."""
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=name):
        keys = [{"Key": item["Key"]} for item in page.get("Contents", [])]
        if keys:
            client.delete_objects(Bucket=name, Delete={"Objects": keys})
    client.delete_bucket(Bucket=name)


@pytest.mark.parametrize("round", range(50))
def test_a_fresh_bucket_per_test_is_created_used_emptied_and_deleted(each_store, round):
    client = s3(each_store)
    name = fresh()
    assert client.create_bucket(Bucket=name)["Location"] == "/" + name
    client.head_bucket(Bucket=name)
    client.put_object(Bucket=name, Key=f"uploads/{round}.txt", Body=b"round %d" % round)
    client.put_object(Bucket=name, Key="uploads/other.txt", Body=b"other")
    assert client.get_object(Bucket=name, Key=f"uploads/{round}.txt")["Body"].read() == b"round %d" % round
    assert [item["Key"] for item in client.list_objects_v2(Bucket=name)["Contents"]] == sorted(
        [f"uploads/{round}.txt", "uploads/other.txt"])
    # The app's own bucket does not see the new bucket's objects.
    assert "Contents" not in client.list_objects_v2(Bucket="demo", Prefix="uploads/")
    emptied_and_deleted(client, name)
    assert refused(lambda: client.head_bucket(Bucket=name)) == (404, "404")
    assert refused(lambda: client.list_objects_v2(Bucket=name)) == (404, "NoSuchBucket")


def test_create_bucket_of_the_apps_own_bucket_is_s3s_legacy_200_and_it_is_never_deleted(each_store):
    client = s3(each_store)
    assert client.create_bucket(Bucket="demo")["ResponseMetadata"]["HTTPStatusCode"] == 200
    assert refused(lambda: client.delete_bucket(Bucket="demo")) == (403, "AccessDenied")
    assert client.get_object(Bucket="demo", Key="fixtures/sample.pdf")["ContentLength"] > 0
    # A bucket the key created, created again: the same legacy 200 in us-east-1.
    name = fresh()
    client.create_bucket(Bucket=name)
    assert client.create_bucket(Bucket=name)["ResponseMetadata"]["HTTPStatusCode"] == 200
    client.delete_bucket(Bucket=name)


def test_list_buckets_is_s3s_listing_paginated(each_store):
    client = s3(each_store)
    names = sorted(fresh() for _ in range(5))
    for name in names:
        client.create_bucket(Bucket=name)
    listed = client.list_buckets()
    assert [item["Name"] for item in listed["Buckets"]] == sorted(["demo", *names])
    assert listed["Owner"] == {"DisplayName": "demo", "ID": "demo"}
    assert all(item["BucketRegion"] == "us-east-1" for item in listed["Buckets"])
    paged = [item["Name"] for page in client.get_paginator("list_buckets").paginate(
        PaginationConfig={"PageSize": 2}) for item in page["Buckets"]]
    assert paged == sorted(["demo", *names])
    assert [item["Name"] for item in client.list_buckets(Prefix="test-")["Buckets"]] == names
    for name in names:
        client.delete_bucket(Bucket=name)
    assert [item["Name"] for item in client.list_buckets()["Buckets"]] == ["demo"]
    # `/` without S3's credentials is still MockCDN's own index.
    status, body, _ = request(each_store + "/")
    assert status == 200 and json.loads(body)["name"] == "MockCDN"


def aws(server: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    executable = shutil.which("aws")
    assert executable, "awscli is required (make py-deps installs it)"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET)
    run = subprocess.run([executable, "--endpoint-url", server, *args], env=env, capture_output=True, text=True,
                         timeout=120)
    assert not check or run.returncode == 0, run.stderr
    return run


def test_aws_cli_mb_ls_and_rb_force(each_store, tmp_path):
    name = fresh()
    assert f"make_bucket: {name}" in aws(each_store, "s3", "mb", f"s3://{name}").stdout
    (tmp_path / "a.txt").write_bytes(b"alpha")
    aws(each_store, "s3", "cp", str(tmp_path / "a.txt"), f"s3://{name}/nested/a.txt")
    assert name in aws(each_store, "s3", "ls").stdout
    assert "a.txt" in aws(each_store, "s3", "ls", "--recursive", f"s3://{name}").stdout
    removed = aws(each_store, "s3", "rb", "--force", f"s3://{name}").stdout
    assert f"remove_bucket: {name}" in removed, removed
    assert name not in aws(each_store, "s3", "ls").stdout


def test_minio_make_bucket_bucket_exists_remove_bucket(each_store):
    clients = REPO / ".venv" / "s3clients"
    if not (clients / "minio").is_dir():
        pytest.fail(f"minio is missing from {clients}: `make py-deps` installs it")
    name = fresh()
    run = subprocess.run([sys.executable, str(REPO / "Tests" / "compat" / "s3_other_clients.py"), "buckets", each_store,
                          API_KEY, API_SECRET, name], env={**os.environ, "PYTHONPATH": str(clients)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == {
        "exists_before": False, "exists_after_make": True, "read": "from minio", "listed": ["set-up/note.txt"],
        "exists_after_remove": False}


def test_refusals_change_nothing(each_store):
    client = s3(each_store)
    name = fresh()
    client.create_bucket(Bucket=name)
    client.put_object(Bucket=name, Key="kept.txt", Body=b"kept")
    assert refused(lambda: client.delete_bucket(Bucket=name)) == (409, "BucketNotEmpty")
    assert client.get_object(Bucket=name, Key="kept.txt")["Body"].read() == b"kept"
    for bad in ("UPPER-case", "ab", "a" * 64, "bad_underscore", "-leading", "192.168.1.1", "two..dots",
                "xn--punycode", "name-s3alias"):
        assert refused(lambda: client.create_bucket(Bucket=bad)) == (400, "InvalidBucketName"), bad
    assert refused(lambda: client.create_bucket(
        Bucket=fresh(), CreateBucketConfiguration={"LocationConstraint": "eu-west-1"})) == (
        400, "IllegalLocationConstraintException")
    names = [item["Name"] for item in client.list_buckets()["Buckets"]]
    assert names == sorted(["demo", name])
    client.delete_object(Bucket=name, Key="kept.txt")
    client.delete_bucket(Bucket=name)


def test_another_apps_bucket_is_taken_and_unreachable(tmp_path):
    config = tmp_path / "apps.yaml"
    config.write_text("apps:\n"
                      "  - app_id: demo\n    api_key: demo-key\n    api_secret: demo-secret-for-local-testing-only\n"
                      "  - app_id: other\n    api_key: other-key\n    api_secret: other-secret-for-local-tests\n")
    with launch("--config", str(config)) as running:
        demo = s3(running.url)
        other = boto3.session.Session().client("s3", endpoint_url=running.url, aws_access_key_id="other-key",
                                               aws_secret_access_key="other-secret-for-local-tests")
        name = fresh()
        demo.create_bucket(Bucket=name)
        assert refused(lambda: other.create_bucket(Bucket=name)) == (409, "BucketAlreadyExists")
        assert refused(lambda: other.create_bucket(Bucket="demo")) == (409, "BucketAlreadyExists")
        assert refused(lambda: other.list_objects_v2(Bucket=name))[0] == 403
        assert [item["Name"] for item in other.list_buckets()["Buckets"]] == ["other"]
        assert [item["Name"] for item in demo.list_buckets()["Buckets"]] == sorted(["demo", name])


def test_a_created_bucket_is_read_by_link_fat_and_presigned_url_and_a_reset_removes_it(each_store):
    client = s3(each_store)
    name = fresh()
    client.create_bucket(Bucket=name)
    client.put_object(Bucket=name, Key="media/photo.txt", Body=b"in a created bucket", ContentType="text/plain")
    presigned = client.generate_presigned_url("get_object", Params={"Bucket": name, "Key": "media/photo.txt"})
    assert request(presigned)[:2] == (200, b"in a created bucket")
    status, body, _ = request(f"{each_store}/{name}/media/photo.txt", headers={"fat": fat(each_store)})
    assert (status, body) == (200, b"in a created bucket")
    # A CloudFront link signed with the app's key pair, as botocore signs one.
    link = CloudFrontSigner(KEY_PAIR_ID, _rsa_signer()).generate_presigned_url(f"{each_store}/{name}/media/photo.txt",
                                           date_less_than=datetime.datetime(2100, 1, 1))
    assert request(link)[:2] == (200, b"in a created bucket")
    entries = [entry for entry in journal(each_store) if entry["path"] == f"/{name}/media/photo.txt"]
    # boto3 presigns with SigV2 unless told a region; either is the app's S3 key.
    credentials = {entry["credential"] for entry in entries}
    assert {"fat-header", "cloudfront"} <= credentials and credentials & {"presigned", "presigned-v2"}, entries
    status, _, _ = request(f"{each_store}/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
    assert status == 200
    assert refused(lambda: client.head_bucket(Bucket=name)) == (404, "404")
    assert [item["Name"] for item in client.list_buckets()["Buckets"]] == ["demo"]


def test_two_instances_on_one_s3_store_agree_on_buckets():
    endpoint = Moto()
    try:
        flags = ("--store", f"s3://{bucket(endpoint)}/shared")
        with launch(*flags, env=s3_env(endpoint)) as a, launch(*flags, env=s3_env(endpoint)) as b:
            first, second = s3(a.url), s3(b.url)
            name = fresh()
            first.create_bucket(Bucket=name)
            second.put_object(Bucket=name, Key="x.txt", Body=b"from b")
            assert first.get_object(Bucket=name, Key="x.txt")["Body"].read() == b"from b"
            assert name in [item["Name"] for item in second.list_buckets()["Buckets"]]
            # Already the key's, in us-east-1: S3's legacy 200, on the other instance too.
            assert second.create_bucket(Bucket=name)["ResponseMetadata"]["HTTPStatusCode"] == 200
            second.delete_object(Bucket=name, Key="x.txt")
            second.delete_bucket(Bucket=name)
            assert name not in [item["Name"] for item in first.list_buckets()["Buckets"]]
    finally:
        endpoint.stop()
