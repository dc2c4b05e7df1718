"""CloudFront ECDSA P-256 keys against the real binary, signed by independent signers: the `openssl` command
line exactly as AWS's documentation pipes it (`openssl dgst -sha1 -sign`, `-sha256` with
`Hash-Algorithm=SHA256`), and botocore's CloudFrontSigner given an ECDSA signer from `cryptography`. URLs,
custom policies and cookies read; tampered ones, a retired key and signatures in another encoding are 403
with S3's `AccessDenied` XML; an app whose active key is ECDSA issues ECDSA links, and `mockcdn sign` and
`mockcdn keys` use its key. (The AWS CLI v1 on PyPI signs with RSA only, so it is not used here.)

Run from the repository root: ``python3 -m pytest -q Tests/compat/test_cloudfront_ecdsa.py``.
"""

from __future__ import annotations

import base64
import datetime
import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from botocore.signers import CloudFrontSigner
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from conftest import launch
from support import BINARY, request, upload

ACCEPTED_ID = "KECOPENSSL0001"
ACTIVE_ID = "KECACTIVE00001"
RETIRED_ID = "KECRETIRED0001"
API_KEY = "ecapp-key"
API_SECRET = "ecapp-secret-for-compat-tests-only!"
PAYLOAD = b"MockCDN ECDSA compat \x00\xff payload\n"


def cloudfront_b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode().replace("+", "-").replace("=", "_").replace("/", "~")


def openssl(*arguments: str, cwd: Path, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["openssl", *arguments], cwd=cwd, input=stdin, capture_output=True, check=True).stdout


def documented_signature(folder: Path, policy: str, key: str, sha256: bool = False) -> str:
    """AWS's pipeline, word for word: white space stripped from the policy file, signed by `openssl`, base64 on
    one line, CloudFront's alphabet."""
    (folder / "policy").write_text(policy)
    digest = "sha256" if sha256 else "sha1"
    command = (f'cat policy | tr -d "\\n" | tr -d " \\t\\n\\r" | openssl {digest} -sign {key} | openssl base64 -A '
               "| tr -- '+=/' '-_~'")
    return subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True,
                          check=True).stdout.strip()


def documented_policy(folder: Path, policy: str) -> str:
    """The `Policy` value as AWS's docs make it: white space stripped, base64, CloudFront's alphabet."""
    (folder / "policy").write_text(policy)
    command = "cat policy | tr -d \"\\n\" | tr -d \" \\t\\n\\r\" | openssl base64 -A | tr -- '+=/' '-_~'"
    return subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True,
                          check=True).stdout.strip()


def ecdsa_signer(key_file: Path, sha256: bool = False):
    key = serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp256r1"

    def sign(message: bytes) -> bytes:
        return key.sign(message, ec.ECDSA(hashes.SHA256() if sha256 else hashes.SHA1()))

    return sign


def error(body: bytes) -> tuple[str | None, str | None]:
    root = ET.fromstring(body)
    return root.findtext("Code"), root.findtext("Message")


def assert_denied(answer, message: str) -> None:
    status, body, headers = answer
    assert status == 403, body[:300]
    assert headers["Content-Type"] == "application/xml"
    assert error(body) == ("AccessDenied", message), body
    assert b"Signature=" not in body, "an error never echoes the credential"


def tampered(signature: str) -> str:
    middle = len(signature) // 2
    return signature[:middle] + ("B" if signature[middle] != "B" else "C") + signature[middle + 1:]


def with_cookies(cookies: dict) -> dict:
    return {"Cookie": "; ".join(f"{name}={value}" for name, value in cookies.items())}


def server_now(base: str) -> int:
    return json.loads(request(base + "/_mockcdn/clock")[1])["now"]


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> Path:
    """P-256 keys made as AWS's docs make them (`openssl ecparam -name prime256v1 -genkey`), a config whose
    `ecapp` has an active ECDSA key, an accepted verify-only one and a retired one."""
    folder = tmp_path_factory.mktemp("ecdsa")
    for name in ("ec", "active", "retired"):
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", f"{name}.pem", cwd=folder)
        openssl("ec", "-in", f"{name}.pem", "-pubout", "-out", f"{name}.pub.pem", cwd=folder)
    (folder / "mockcdn.yaml").write_text(f"""apps:
  - app_id: ecapp
    api_key: {API_KEY}
    api_secret: {API_SECRET}
    keys:
      - {{ id: {ACTIVE_ID}, status: active, private_key: active.pem }}
      - {{ id: {ACCEPTED_ID}, status: accepted, public_key: ec.pub.pem }}
      - {{ id: {RETIRED_ID}, status: retired, public_key: retired.pub.pem }}
""")
    return folder


@pytest.fixture(scope="module")
def served(keys):
    with launch("--config", str(keys / "mockcdn.yaml")) as server:
        issued = upload(server.url, "file", "ecdsa.bin", "application/octet-stream", PAYLOAD, api_key=API_KEY,
                        secret=API_SECRET)
        yield server.url, issued


@pytest.fixture
def media(served) -> str:
    return served[1].split("?", 1)[0]


@pytest.fixture
def expires(served) -> int:
    return server_now(served[0]) + 3600


def canned_policy(url: str, expires: int) -> str:
    return '{"Statement":[{"Resource":"%s","Condition":{"DateLessThan":{"AWS:EpochTime":%d}}}]}' % (url, expires)


def pretty_custom_policy(resource: str, expires: int) -> str:
    """A policy file as a person writes it, with the line breaks and indents AWS's pipeline strips."""
    return json.dumps({"Statement": [{"Resource": resource, "Condition": {"DateLessThan": {"AWS:EpochTime": expires}}}]},
                      indent=4)


# --------------------------------------------------------------------------- openssl, as AWS documents


@pytest.mark.parametrize("sha256", [False, True], ids=["sha1", "sha256"])
def test_openssl_canned_url_reads_and_refuses_tampering(keys, media, expires, sha256):
    signature = documented_signature(keys, canned_policy(media, expires), "ec.pem", sha256)
    tail = "&Hash-Algorithm=SHA256" if sha256 else ""
    url = f"{media}?Expires={expires}&Signature={signature}&Key-Pair-Id={ACCEPTED_ID}{tail}"
    status, body, _ = request(url)
    assert status == 200 and body == PAYLOAD, body[:300]
    assert_denied(request(url.replace(signature, tampered(signature))), "Signature does not match")
    assert_denied(request(url.replace(f"Expires={expires}", f"Expires={expires + 1}")), "Signature does not match")
    # The signature is over the hash it names: without the parameter (or with it added) it fails.
    other = url.removesuffix(tail) if sha256 else url + "&Hash-Algorithm=SHA256"
    assert_denied(request(other), "Signature does not match")


@pytest.mark.parametrize("sha256", [False, True], ids=["sha1", "sha256"])
def test_openssl_custom_policy_url_reads_and_refuses_tampering(keys, media, expires, sha256):
    folder_pattern = media.rsplit("/", 1)[0] + "/*"
    policy_text = pretty_custom_policy(folder_pattern, expires)
    assert "\n" in policy_text
    policy = documented_policy(keys, policy_text)
    signature = documented_signature(keys, policy_text, "ec.pem", sha256)
    tail = "&Hash-Algorithm=SHA256" if sha256 else ""
    url = f"{media}?Policy={policy}&Signature={signature}&Key-Pair-Id={ACCEPTED_ID}{tail}"
    status, body, _ = request(url)
    assert status == 200 and body == PAYLOAD, body[:300]
    assert_denied(request(url.replace(signature, tampered(signature))), "Signature does not match")
    # The same policy with a later expiry, or another resource, and the old signature.
    later = documented_policy(keys, pretty_custom_policy(folder_pattern, expires + 60))
    assert_denied(request(url.replace(policy, later)), "Signature does not match")
    wider = documented_policy(keys, pretty_custom_policy("*", expires))
    assert_denied(request(url.replace(policy, wider)), "Signature does not match")


@pytest.mark.parametrize("sha256", [False, True], ids=["sha1", "sha256"])
def test_openssl_signed_cookies_read_and_refuse_tampering(keys, media, expires, sha256):
    policy_text = pretty_custom_policy(media.rsplit("/", 1)[0] + "/*", expires)
    custom = {"CloudFront-Policy": documented_policy(keys, policy_text),
              "CloudFront-Signature": documented_signature(keys, policy_text, "ec.pem", sha256),
              "CloudFront-Key-Pair-Id": ACCEPTED_ID}
    canned = {"CloudFront-Expires": str(expires),
              "CloudFront-Signature": documented_signature(keys, canned_policy(media, expires), "ec.pem", sha256),
              "CloudFront-Key-Pair-Id": ACCEPTED_ID}
    for cookies in (custom, canned):
        if sha256:
            cookies["CloudFront-Hash-Algorithm"] = "SHA256"
        status, body, _ = request(media, headers=with_cookies(cookies))
        assert status == 200 and body == PAYLOAD, body[:300]
        broken = {**cookies, "CloudFront-Signature": tampered(cookies["CloudFront-Signature"])}
        assert_denied(request(media, headers=with_cookies(broken)), "Signature does not match")
    assert_denied(request(media, headers=with_cookies({**canned, "CloudFront-Expires": str(expires + 1)})),
                  "Signature does not match")


# --------------------------------------------------------------------------- botocore with an ECDSA signer


def test_botocore_canned_and_custom_urls_with_an_ecdsa_signer(keys, served, media, expires):
    base, _ = served
    signer = CloudFrontSigner(ACCEPTED_ID, ecdsa_signer(keys / "ec.pem"))
    when = datetime.datetime.fromtimestamp(expires, datetime.timezone.utc)
    canned = signer.generate_presigned_url(media, date_less_than=when)
    policy = signer.build_policy(media.rsplit("/", 1)[0] + "/*", when)
    custom = signer.generate_presigned_url(media, policy=policy)
    for url in (canned, custom):
        status, body, _ = request(url)
        assert status == 200 and body == PAYLOAD, f"{url} -> {status} {body[:300]!r}"
        signature = url.split("Signature=", 1)[1].split("&", 1)[0]
        assert_denied(request(url.replace(signature, tampered(signature))), "Signature does not match")
    # botocore has no Hash-Algorithm of its own: a SHA-256 signer and the parameter added, as CloudFront reads it.
    sha256 = CloudFrontSigner(ACCEPTED_ID, ecdsa_signer(keys / "ec.pem", sha256=True))
    url = sha256.generate_presigned_url(media, policy=policy) + "&Hash-Algorithm=SHA256"
    assert request(url)[0] == 200
    assert_denied(request(url.removesuffix("&Hash-Algorithm=SHA256")), "Signature does not match")
    # Past the policy's end by the server's clock.
    try:
        request(base + "/_mockcdn/clock", "PUT", json.dumps({"now": expires}).encode(),
                {"Content-Type": "application/json"})
        assert_denied(request(custom), "Request has expired")
    finally:
        request(base + "/_mockcdn/clock", "PUT", json.dumps({"now": expires - 3600}).encode(),
                {"Content-Type": "application/json"})


def test_botocore_policy_in_ecdsa_signed_cookies(keys, media, expires):
    signer = CloudFrontSigner(ACCEPTED_ID, ecdsa_signer(keys / "ec.pem"))
    policy = signer.build_policy(media.rsplit("/", 1)[0] + "/*",
                                 datetime.datetime.fromtimestamp(expires, datetime.timezone.utc)).encode()
    for sha256 in (False, True):
        cookies = {"CloudFront-Policy": cloudfront_b64(policy),
                   "CloudFront-Signature": cloudfront_b64(ecdsa_signer(keys / "ec.pem", sha256)(policy)),
                   "CloudFront-Key-Pair-Id": ACCEPTED_ID}
        if sha256:
            cookies["CloudFront-Hash-Algorithm"] = "SHA256"
        status, body, _ = request(media, headers=with_cookies(cookies))
        assert status == 200 and body == PAYLOAD, body[:300]
        broken = {**cookies, "CloudFront-Signature": tampered(cookies["CloudFront-Signature"])}
        assert_denied(request(media, headers=with_cookies(broken)), "Signature does not match")


def test_a_raw_r_s_signature_and_a_retired_key_are_refused(keys, media, expires):
    """CloudFront reads DER, as openssl and the SDKs write it: the same numbers as IEEE P1363's raw r || s are
    refused, as any other bytes would be."""
    policy = canned_policy(media, expires).encode()
    r, s = decode_dss_signature(ecdsa_signer(keys / "ec.pem")(policy))
    raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    url = f"{media}?Expires={expires}&Signature={cloudfront_b64(raw)}&Key-Pair-Id={ACCEPTED_ID}"
    assert_denied(request(url), "Signature does not match")
    retired = cloudfront_b64(ecdsa_signer(keys / "retired.pem")(policy))
    assert_denied(request(f"{media}?Expires={expires}&Signature={retired}&Key-Pair-Id={RETIRED_ID}"),
                  "Key-Pair-Id is retired")
    # A good signature by another key under this key's id.
    other = cloudfront_b64(ecdsa_signer(keys / "active.pem")(policy))
    assert_denied(request(f"{media}?Expires={expires}&Signature={other}&Key-Pair-Id={ACCEPTED_ID}"),
                  "Signature does not match")


# --------------------------------------------------------------------------- MockCDN's own signing with ECDSA


def test_issued_links_are_ecdsa_signed_by_the_active_key(keys, served):
    _, issued = served
    assert f"Key-Pair-Id={ACTIVE_ID}" in issued
    status, body, _ = request(issued)
    assert status == 200 and body == PAYLOAD
    query = dict(item.split("=", 1) for item in issued.split("?", 1)[1].split("&"))

    def decoded(value: str) -> bytes:
        return base64.b64decode(value.replace("-", "+").replace("_", "=").replace("~", "/"))

    public = serialization.load_pem_public_key((keys / "active.pub.pem").read_bytes())
    # Raises when the signature is not a DER ECDSA-SHA1 signature of the policy by the active key.
    public.verify(decoded(query["Signature"]), decoded(query["Policy"]), ec.ECDSA(hashes.SHA1()))
    assert_denied(request(issued.replace(query["Signature"], tampered(query["Signature"]))), "Signature does not match")


def test_mockcdn_sign_and_keys_use_the_ecdsa_key(keys, served, media):
    base, _ = served
    config = ["--config", str(keys / "mockcdn.yaml"), "--app", "ecapp", "--now", str(server_now(base))]

    def mockcdn(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(BINARY), *arguments, *config], capture_output=True, text=True)

    for extra in ([], ["--sha256"], ["--resource", media.rsplit("/", 1)[0] + "/*"]):
        link = mockcdn("sign", "cloudfront", media, *extra)
        assert link.returncode == 0, link.stderr
        assert request(link.stdout.strip())[:2] == (200, PAYLOAD), link.stdout
    lines = mockcdn("sign", "cookies", media.rsplit("/", 1)[0] + "/*", "--sha256")
    assert lines.returncode == 0, lines.stderr
    cookies = dict(line.removeprefix("Set-Cookie: ").split(";", 1)[0].split("=", 1)
                   for line in lines.stdout.splitlines())
    assert cookies["CloudFront-Key-Pair-Id"] == ACTIVE_ID and cookies["CloudFront-Hash-Algorithm"] == "SHA256"
    assert request(media, headers=with_cookies(cookies))[:2] == (200, PAYLOAD)
    # A verify-only pair cannot sign; an unknown one is named.
    refused = mockcdn("sign", "cloudfront", media, "--key-pair-id", ACCEPTED_ID)
    assert refused.returncode != 0 and "has only a public key" in refused.stderr, refused.stderr
    unknown = mockcdn("sign", "cloudfront", media, "--key-pair-id", "KNOPE000000000")
    assert unknown.returncode != 0 and "has no key pair KNOPE000000000" in unknown.stderr, unknown.stderr
    listed = mockcdn("keys")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0] == f"{ACTIVE_ID} active ECDSA-P256"
    assert f"{ACCEPTED_ID} accepted ECDSA-P256" in listed.stdout
    assert (keys / "active.pub.pem").read_text().strip() in listed.stdout
    status, body, _ = request(f"{base}/v1/apps/ecapp/keys")
    assert status == 200
    assert [(key["id"], key["algorithm"]) for key in json.loads(body)["keys"]] == [
        (ACTIVE_ID, "ECDSA-P256"), (ACCEPTED_ID, "ECDSA-P256"), (RETIRED_ID, "ECDSA-P256")]


def test_a_key_on_another_curve_stops_the_server_at_start(tmp_path):
    openssl("ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "p384.pem", cwd=tmp_path)
    (tmp_path / "mockcdn.yaml").write_text("""apps:
  - app_id: p384
    api_key: p384-key
    api_secret: p384-secret-for-compat-tests-only!
    keys:
      - { id: KP384000000001, status: active, private_key: p384.pem }
""")
    result = subprocess.run([str(BINARY), "serve", "--port", "0", "--config", str(tmp_path / "mockcdn.yaml")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "mockcdn ready" not in result.stdout
    assert "app p384: key KP384000000001" in result.stderr and "ECDSA P-256" in result.stderr, result.stderr
    assert "BEGIN" not in result.stderr
