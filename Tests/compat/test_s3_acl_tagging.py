"""Object ACLs and tags through boto3 at its defaults and the AWS CLI, on the memory store, `--data-dir` and the
S3 bucket store (moto_server): canned ACLs and grants on every write, GetObjectAcl's expansion, tagging on
writes, copies, multipart uploads and POST forms, S3's limits refused with S3's codes and nothing changed, and
`public-read` objects readable without a credential."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid

import pytest

from s3support import refused, s3
from support import API_KEY, API_SECRET, request
from test_s3_post_policy import post

pytestmark = pytest.mark.usefixtures("no_aws_configuration")

OWNER = "demo"
ALL_USERS = "http://acs.amazonaws.com/groups/global/AllUsers"
AUTHENTICATED = "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"


def fresh_key(name: str = "a.txt") -> str:
    return f"acl/{uuid.uuid4()}/{name}"


def grants(client, key: str) -> list[tuple[str, str]]:
    """The object's grants as (grantee, permission): `id:ID` or the group's last path segment."""
    answer = client.get_object_acl(Bucket="demo", Key=key)
    assert answer["Owner"]["ID"] == OWNER, answer
    listed = []
    for grant in answer["Grants"]:
        grantee = grant["Grantee"]
        name = "id:" + grantee["ID"] if grantee["Type"] == "CanonicalUser" else grantee["URI"].rsplit("/", 1)[-1]
        listed.append((name, grant["Permission"]))
    return listed


def tags(client, key: str) -> dict[str, str]:
    return {tag["Key"]: tag["Value"] for tag in client.get_object_tagging(Bucket="demo", Key=key)["TagSet"]}


def unsigned(server: str, key: str, method: str = "GET") -> tuple[int, bytes]:
    status, body, _ = request(f"{server}/demo/{key}", method)
    return status, body


def state(client, server: str, key: str) -> tuple:
    """What a refusal must leave as it was: bytes, ETag, Last-Modified, tags, grants, and whether anyone may
    read the object without a credential."""
    head = client.head_object(Bucket="demo", Key=key)
    body = client.get_object(Bucket="demo", Key=key)["Body"].read()
    return (body, head["ETag"], head["LastModified"], head.get("TagCount"), tags(client, key), grants(client, key),
            unsigned(server, key)[0])


@pytest.mark.parametrize("acl, expected", [
    ("private", [("id:demo", "FULL_CONTROL")]),
    ("public-read", [("id:demo", "FULL_CONTROL"), ("AllUsers", "READ")]),
    ("public-read-write", [("id:demo", "FULL_CONTROL"), ("AllUsers", "READ"), ("AllUsers", "WRITE")]),
    ("authenticated-read", [("id:demo", "FULL_CONTROL"), ("AuthenticatedUsers", "READ")]),
    ("bucket-owner-read", [("id:demo", "FULL_CONTROL")]),
    ("bucket-owner-full-control", [("id:demo", "FULL_CONTROL")]),
])
def test_canned_acls_on_put_read_back_as_s3_expands_them(each_store, acl, expected):
    client, key = s3(each_store), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"canned", ACL=acl)
    assert grants(client, key) == expected
    status, body = unsigned(each_store, key)
    if acl in ("public-read", "public-read-write"):
        assert (status, body) == (200, b"canned")
    else:
        assert status == 401 and b"<Code>AccessDenied</Code>" in body, body


def test_acl_and_tags_round_trip_and_public_read_opens_unsigned_reads(each_store):
    client, key = s3(each_store), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"hello", ACL="public-read", Tagging="project=blue&team=a%20b")
    head = client.head_object(Bucket="demo", Key=key)
    assert head["TagCount"] == 2 and client.get_object(Bucket="demo", Key=key)["TagCount"] == 2
    assert tags(client, key) == {"project": "blue", "team": "a b"}
    assert unsigned(each_store, key) == (200, b"hello")
    assert unsigned(each_store, key, "HEAD")[0] == 200

    # The get-modify-put flow of the SDK guides: the document read back is taken as it is.
    policy = client.get_object_acl(Bucket="demo", Key=key)
    policy.pop("ResponseMetadata")
    policy["Grants"] = [g for g in policy["Grants"] if g["Grantee"].get("URI") != ALL_USERS]
    policy["Grants"].append({"Grantee": {"Type": "Group", "URI": AUTHENTICATED}, "Permission": "READ"})
    client.put_object_acl(Bucket="demo", Key=key, AccessControlPolicy=policy)
    assert grants(client, key) == [("id:demo", "FULL_CONTROL"), ("AuthenticatedUsers", "READ")]
    status, body = unsigned(each_store, key)
    assert status == 401 and b"<Code>AccessDenied</Code>" in body

    client.put_object_acl(Bucket="demo", Key=key, GrantRead=f'uri="{ALL_USERS}"', GrantFullControl=f'id="{OWNER}"')
    assert grants(client, key) == [("id:demo", "FULL_CONTROL"), ("AllUsers", "READ")]
    assert unsigned(each_store, key) == (200, b"hello")

    # Neither an ACL nor a tag change is a write: same ETag and Last-Modified.
    client.put_object_tagging(Bucket="demo", Key=key, Tagging={"TagSet": [{"Key": "only", "Value": "one"}]})
    after = client.head_object(Bucket="demo", Key=key)
    assert (after["ETag"], after["LastModified"], after["TagCount"]) == (head["ETag"], head["LastModified"], 1)
    assert client.delete_object_tagging(Bucket="demo", Key=key)["ResponseMetadata"]["HTTPStatusCode"] == 204
    assert tags(client, key) == {} and "TagCount" not in client.head_object(Bucket="demo", Key=key)

    # An overwrite that names neither is private and untagged, as on S3.
    client.put_object_tagging(Bucket="demo", Key=key, Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    client.put_object(Bucket="demo", Key=key, Body=b"again")
    assert grants(client, key) == [("id:demo", "FULL_CONTROL")] and tags(client, key) == {}
    assert unsigned(each_store, key)[0] == 401


def test_copy_takes_the_requests_acl_and_the_tagging_directive(each_store):
    client, source = s3(each_store), fresh_key("source.txt")
    client.put_object(Bucket="demo", Key=source, Body=b"copied", ACL="public-read", Tagging="a=1&b=2")
    copy = fresh_key("copy.txt")
    # COPY, the default: the source's tags (an x-amz-tagging beside it is ignored, as S3 ignores it); the ACL
    # is never copied.
    client.copy_object(Bucket="demo", Key=copy, CopySource={"Bucket": "demo", "Key": source}, Tagging="x=9")
    assert tags(client, copy) == {"a": "1", "b": "2"} and grants(client, copy) == [("id:demo", "FULL_CONTROL")]
    client.copy_object(Bucket="demo", Key=copy, CopySource={"Bucket": "demo", "Key": source},
                       TaggingDirective="REPLACE", Tagging="x=9", ACL="public-read")
    assert tags(client, copy) == {"x": "9"} and unsigned(each_store, copy) == (200, b"copied")
    client.copy_object(Bucket="demo", Key=copy, CopySource={"Bucket": "demo", "Key": source},
                       TaggingDirective="REPLACE")
    assert tags(client, copy) == {}
    before = state(client, each_store, copy)
    assert refused(lambda: client.copy_object(Bucket="demo", Key=copy, CopySource={"Bucket": "demo", "Key": source},
                                              TaggingDirective="MERGE")) == (400, "InvalidArgument")
    assert state(client, each_store, copy) == before


def test_multipart_upload_keeps_the_acl_and_tags_it_was_created_with(each_store):
    client, key = s3(each_store), fresh_key("parts.bin")
    upload = client.create_multipart_upload(Bucket="demo", Key=key, ACL="public-read", Tagging="stage=raw")
    part = client.upload_part(Bucket="demo", Key=key, UploadId=upload["UploadId"], PartNumber=1, Body=b"one part")
    client.complete_multipart_upload(Bucket="demo", Key=key, UploadId=upload["UploadId"],
                                     MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]})
    assert tags(client, key) == {"stage": "raw"}
    assert unsigned(each_store, key) == (200, b"one part")
    assert refused(lambda: client.create_multipart_upload(Bucket="demo", Key=fresh_key(), Tagging="aws:x=1")) \
        == (400, "InvalidTag")


ELEVEN = [{"Key": f"k{n}", "Value": "v"} for n in range(11)]


@pytest.mark.parametrize("name, call, expected", [
    ("11 tags", lambda c, k: c.put_object_tagging(Bucket="demo", Key=k, Tagging={"TagSet": ELEVEN}),
     (400, "BadRequest")),
    ("key of 129", lambda c, k: c.put_object_tagging(
        Bucket="demo", Key=k, Tagging={"TagSet": [{"Key": "k" * 129, "Value": "v"}]}), (400, "InvalidTag")),
    ("value of 257", lambda c, k: c.put_object_tagging(
        Bucket="demo", Key=k, Tagging={"TagSet": [{"Key": "k", "Value": "v" * 257}]}), (400, "InvalidTag")),
    ("the same key twice", lambda c, k: c.put_object_tagging(
        Bucket="demo", Key=k, Tagging={"TagSet": [{"Key": "k", "Value": "1"}, {"Key": "k", "Value": "2"}]}),
     (400, "InvalidTag")),
    ("aws: prefix", lambda c, k: c.put_object_tagging(
        Bucket="demo", Key=k, Tagging={"TagSet": [{"Key": "aws:cloudformation", "Value": "v"}]}),
     (400, "InvalidTag")),
    ("overwrite with 11 tags", lambda c, k: c.put_object(
        Bucket="demo", Key=k, Body=b"x", Tagging="&".join(f"k{n}=v" for n in range(11))), (400, "BadRequest")),
    ("overwrite with a bad tag", lambda c, k: c.put_object(Bucket="demo", Key=k, Body=b"x", Tagging="a;b=1"),
     (400, "InvalidTag")),
    ("unknown canned ACL", lambda c, k: c.put_object_acl(Bucket="demo", Key=k, ACL="everyone"),
     (400, "InvalidArgument")),
    ("overwrite with an unknown canned ACL", lambda c, k: c.put_object(Bucket="demo", Key=k, Body=b"x",
                                                                       ACL="world-readable"),
     (400, "InvalidArgument")),
    ("canned ACL with grants", lambda c, k: c.put_object_acl(Bucket="demo", Key=k, ACL="private",
                                                             GrantRead='id="someone"'), (400, "InvalidRequest")),
    ("e-mail grantee", lambda c, k: c.put_object_acl(Bucket="demo", Key=k,
                                                     GrantRead='emailAddress="dev@example.com"'),
     (400, "UnresolvableGrantByEmailAddress")),
    ("unknown group", lambda c, k: c.put_object_acl(Bucket="demo", Key=k,
                                                    GrantRead='uri="http://acs.amazonaws.com/groups/global/Anyone"'),
     (400, "InvalidArgument")),
    ("no ACL at all", lambda c, k: c.put_object_acl(Bucket="demo", Key=k), (400, "MissingSecurityHeader")),
    ("another owner", lambda c, k: c.put_object_acl(Bucket="demo", Key=k, AccessControlPolicy={
        "Owner": {"ID": "someone-else"},
        "Grants": [{"Grantee": {"Type": "CanonicalUser", "ID": "someone-else"}, "Permission": "FULL_CONTROL"}]}),
     (403, "AccessDenied")),
    ("no owner", lambda c, k: c.put_object_acl(Bucket="demo", Key=k, AccessControlPolicy={
        "Grants": [{"Grantee": {"Type": "Group", "URI": ALL_USERS}, "Permission": "READ"}]}),
     (400, "MalformedACLError")),
])
def test_every_limit_is_refused_with_its_code_and_changes_nothing(each_store, name, call, expected):
    client, key = s3(each_store), fresh_key()
    client.put_object(Bucket="demo", Key=key, Body=b"kept", ACL="public-read", Tagging="keep=me")
    before = state(client, each_store, key)
    assert refused(lambda: call(client, key)) == expected, name
    assert state(client, each_store, key) == before, name


def test_a_missing_object_is_no_such_key(each_store):
    client, key = s3(each_store), fresh_key()
    for call in (lambda: client.get_object_acl(Bucket="demo", Key=key),
                 lambda: client.put_object_acl(Bucket="demo", Key=key, ACL="private"),
                 lambda: client.get_object_tagging(Bucket="demo", Key=key),
                 lambda: client.put_object_tagging(Bucket="demo", Key=key, Tagging={"TagSet": []}),
                 lambda: client.delete_object_tagging(Bucket="demo", Key=key)):
        assert refused(call) == (404, "NoSuchKey")
    assert refused(lambda: client.head_object(Bucket="demo", Key=key)) == (404, "404")


def test_a_post_form_takes_acl_and_tagging_fields(server):
    client, key = s3(server), fresh_key("form.txt")
    tagging = "<Tagging><TagSet><Tag><Key>from</Key><Value>form</Value></Tag></TagSet></Tagging>"
    form = client.generate_presigned_post("demo", key, Fields={"acl": "public-read", "tagging": tagging},
                                          Conditions=[{"acl": "public-read"}, {"tagging": tagging}])
    status, body, _ = post(form["url"], form["fields"], b"posted")
    assert status == 204, body
    assert tags(client, key) == {"from": "form"}
    assert unsigned(server, key) == (200, b"posted")

    bad = fresh_key("bad.txt")
    form = client.generate_presigned_post("demo", bad, Fields={"acl": "public-read-everything"},
                                          Conditions=[{"acl": "public-read-everything"}])
    status, body, _ = post(form["url"], form["fields"], b"refused")
    assert status == 400 and b"<Code>InvalidArgument</Code>" in body, body
    assert refused(lambda: client.head_object(Bucket="demo", Key=bad)) == (404, "404")


def test_tag_and_acl_changes_emit_s3s_events_and_no_object_created(server):
    client, key = s3(server), fresh_key()
    after = json.loads(request(f"{server}/_mockcdn/events")[1])["last_id"]
    client.put_object(Bucket="demo", Key=key, Body=b"evented")
    client.put_object_tagging(Bucket="demo", Key=key, Tagging={"TagSet": [{"Key": "k", "Value": "v"}]})
    client.put_object_acl(Bucket="demo", Key=key, ACL="public-read")
    client.delete_object_tagging(Bucket="demo", Key=key)
    events = json.loads(request(f"{server}/_mockcdn/events?after={after}")[1])["events"]
    names = [e["record"]["eventName"] for e in events if e["record"]["s3"]["object"]["key"] == key]
    assert names == ["ObjectCreated:Put", "ObjectTagging:Put", "ObjectAcl:Put", "ObjectTagging:Delete"]


def aws(server: str, *args: str) -> subprocess.CompletedProcess:
    executable = shutil.which("aws")
    assert executable, "awscli is required (make py-deps installs it)"
    env = dict(os.environ, AWS_ACCESS_KEY_ID=API_KEY, AWS_SECRET_ACCESS_KEY=API_SECRET)
    run = subprocess.run([executable, "--endpoint-url", server, *args], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    return run


def test_aws_cli_cp_acl_put_object_acl_and_tagging(each_store, tmp_path):
    key = fresh_key("cli.txt")
    (tmp_path / "cli.txt").write_bytes(b"from the cli")
    aws(each_store, "s3", "cp", str(tmp_path / "cli.txt"), f"s3://demo/{key}", "--acl", "public-read")
    assert unsigned(each_store, key) == (200, b"from the cli")
    aws(each_store, "s3api", "put-object-acl", "--bucket", "demo", "--key", key, "--acl", "private")
    assert unsigned(each_store, key)[0] == 401
    listed = json.loads(aws(each_store, "s3api", "get-object-acl", "--bucket", "demo", "--key", key).stdout)
    assert listed["Owner"]["ID"] == OWNER and [g["Permission"] for g in listed["Grants"]] == ["FULL_CONTROL"]
    aws(each_store, "s3api", "put-object-tagging", "--bucket", "demo", "--key", key, "--tagging",
        "TagSet=[{Key=env,Value=test},{Key=owner,Value=cli}]")
    answer = json.loads(aws(each_store, "s3api", "get-object-tagging", "--bucket", "demo", "--key", key).stdout)
    assert answer["TagSet"] == [{"Key": "env", "Value": "test"}, {"Key": "owner", "Value": "cli"}]
    aws(each_store, "s3api", "delete-object-tagging", "--bucket", "demo", "--key", key)
    answer = json.loads(aws(each_store, "s3api", "get-object-tagging", "--bucket", "demo", "--key", key).stdout)
    assert answer["TagSet"] == []
