"""Stream's mobile SDKs resize only the image links they recognise. Their rules, restated here from the SDK
sources as facts (our code, their behaviour), are checked against the vectors of the SDKs' own unit tests;
then the links MockCDN issues must qualify once each SDK is pointed at MockCDN's host, and the resized
reads they produce must answer 200 with the size each SDK asked for.

- iOS `StreamCDNRequester` (stream-chat-swift v5): resizes when the URL's host contains `cdnHost`
  (default `stream-io-cdn.com`); sets `w` and `h` (points x screen scale, `%.0f`, `*` for 0), `resize`,
  `ro=0` and `crop` (crop mode only), replacing same-named parameters in place and appending the others.
- Android `StreamCdnMaxPixelsImageResizer` (stream-chat-android): resizes a link of a Stream host, or of
  the configured `cdnHost`, that carries positive `oh` and `ow`, when `ow * oh` exceeds the budget (default
  2,000,000 pixels): `w = int(ow * s)`, `h = int(oh * s)` with `s = sqrt(budget / (ow * oh))`, appended as
  `w`, `h` (then `resize` and `crop` when configured); never upscales.
- React Native `getResizedImageUrl` (stream-chat-react-native): resizes when the URL contains one of
  `resizableCDNHosts` (default `.stream-io-cdn.com`) and carries both `oh` and `ow`; sets `h`, then `w`
  (dp x pixel ratio, rounded), then `resize` (default `clip`), re-serialising the whole query as
  `application/x-www-form-urlencoded` (so `~` becomes `%7E`).

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import math
import urllib.parse

import pytest

from conftest import launch
from support import REPO, image_size, request, upload

# MARK: - The rules


def ios_resize(url: str, width: float, height: float, mode: str = "clip", crop: str | None = None,
               scale: float = 3, cdn_host: str = "stream-io-cdn.com") -> str:
    parts = urllib.parse.urlsplit(url)
    if not parts.hostname or cdn_host not in parts.hostname:
        return url
    wanted = {
        "w": "*" if width == 0 else f"{width * scale:.0f}",
        "h": "*" if height == 0 else f"{height * scale:.0f}",
        "resize": mode,
        "ro": "0",
    }
    if crop is not None:
        wanted["crop"] = crop
    items = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    for name, value in wanted.items():
        indices = [index for index, (key, _) in enumerate(items) if key == name]
        if indices:
            items[indices[0]] = (name, value)
        else:
            items.append((name, value))
    # URLComponents percent-encodes only what must be; `*` and `~` stay as they are.
    query = "&".join(f"{name}={urllib.parse.quote(value, safe='*~-._')}" for name, value in items)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))


STREAM_HOSTS = ("stream-io-cdn.com",)


def android_resize(url: str, max_pixels: int = 2_000_000, mode: str | None = None, crop: str | None = None,
                   cdn_host: str | None = None) -> str:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    hosts = STREAM_HOSTS + ((cdn_host.strip(),) if cdn_host and cdn_host.strip() else ())
    if not any(host == allowed or host.endswith("." + allowed) for allowed in hosts):
        return url
    query = dict(urllib.parse.parse_qsl(parts.query))
    if any(name in query for name in ("w", "h", "resize", "crop")) or max_pixels <= 0:
        return url
    try:
        original_width, original_height = int(query["ow"]), int(query["oh"])
    except (KeyError, ValueError):
        return url
    if original_width <= 0 or original_height <= 0 or original_width * original_height <= max_pixels:
        return url
    factor = math.sqrt(max_pixels / (original_width * original_height))
    added = [("w", int(original_width * factor)), ("h", int(original_height * factor))]
    added += [(name, value) for name, value in (("resize", mode), ("crop", crop)) if value is not None]
    return url + "".join(f"&{name}={value}" for name, value in added)


def rn_resize(url: str, width: float | None, height: float | None, resize: str = "clip", ratio: float = 2,
              hosts: tuple[str, ...] = (".stream-io-cdn.com",)) -> str:
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    values = dict(query)
    if not (any(host in url for host in hosts) and values.get("oh") and values.get("ow")) or not (height or width):
        return url

    def put(name: str, value: str) -> None:
        for index, (key, _) in enumerate(query):
            if key == name:
                query[index] = (name, value)
                return
        query.append((name, value))

    if height:
        put("h", str(round(height * ratio)))
    if width:
        put("w", str(round(width * ratio)))
    put("resize", resize)
    serialised = "&".join(f"{form_encode(name)}={form_encode(value)}" for name, value in query)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, serialised, parts.fragment))


def form_encode(text: str) -> str:
    """WHATWG's application/x-www-form-urlencoded serialiser: `*-._` and alphanumerics stay, a space is `+`."""
    return "".join(
        character if character.isascii() and (character.isalnum() or character in "*-._")
        else "+" if character == " "
        else "".join(f"%{byte:02X}" for byte in character.encode())
        for character in text
    )


# MARK: - The rules against the SDKs' own test vectors


def test_ios_rule_matches_the_sdk_tests():
    untouched = "https://www.google.com/image.jpg?someStuff=20"
    assert ios_resize(untouched, 40, 40) == untouched
    resized = urllib.parse.parse_qs(urllib.parse.urlsplit(
        ios_resize("https://www.stream-io-cdn.com/image.jpg", 40, 60, "crop", "center", scale=1)).query)
    assert resized == {"w": ["40"], "h": ["60"], "resize": ["crop"], "ro": ["0"], "crop": ["center"]}
    filled = urllib.parse.parse_qs(urllib.parse.urlsplit(
        ios_resize("https://www.stream-io-cdn.com/image.jpg", 40, 60, "fill", scale=1)).query)
    assert filled["resize"] == ["fill"] and "crop" not in filled
    assert "w=*" in ios_resize("https://us-east.stream-io-cdn.com/a.jpg", 0, 10)


def test_android_rule_matches_the_sdk_tests():
    base = "https://us-east.stream-io-cdn.com/1/images/IMAGE_NAME.jpg?Key-Pair-Id=K&Policy=P&Signature=S"
    resized = android_resize(base + "&oh=2000&ow=4000")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(resized).query))
    width, height = int(query["w"]), int(query["h"])
    assert abs(width * height - 2_000_000) / 2_000_000 < 0.01 and abs(width / height - 2.0) < 0.05
    assert android_resize(base + "&oh=500&ow=1000") == base + "&oh=500&ow=1000"
    assert android_resize("https://example.com/image.jpg?oh=2000&ow=4000") == "https://example.com/image.jpg?oh=2000&ow=4000"
    assert android_resize("https://images.example.com/a.jpg?oh=2000&ow=4000", cdn_host="images.example.com") != (
        "https://images.example.com/a.jpg?oh=2000&ow=4000")
    assert android_resize("https://example.com/a.jpg?oh=2000&ow=4000", cdn_host="   ") == "https://example.com/a.jpg?oh=2000&ow=4000"
    for bad in ("oh=0&ow=4000", "oh=-1&ow=4000", "ow=4000", "oh=2000"):
        assert android_resize(f"{base}&{bad}") == f"{base}&{bad}"


def test_react_native_rule_matches_the_sdk_tests():
    assert rn_resize("http://my-company-cdn.com/cat-photo?sig=34k23n4k23nk423&oh=300&ow=200", 100, 100,
                     hosts=("my-company-cdn.com",)) == (
        "http://my-company-cdn.com/cat-photo?sig=34k23n4k23nk423&oh=300&ow=200&h=200&w=200&resize=clip")
    for url in ("http://foo.com/blah_(wikipedia)#cite-1", "http://us-east.stream-io-cdn.com/blah?oh=300",
                "http://us-east.stream-io-cdn.com/blah?ow=300"):
        assert rn_resize(url, 100, 100) == url
    assert rn_resize("http://us-east.stream-io-cdn.com/blah?oh=300&ow=200", None, None) == (
        "http://us-east.stream-io-cdn.com/blah?oh=300&ow=200")
    assert rn_resize("http://us-east.stream-io-cdn.com/blah?sig=34k23n4k23nk423&oh=300&ow=200&h=*&w=*&resize=*",
                     100, 100, resize="scale") == (
        "http://us-east.stream-io-cdn.com/blah?sig=34k23n4k23nk423&oh=300&ow=200&h=200&w=200&resize=scale")
    assert "Policy=eyJ%7E_-&Signature=a%7Eb_c-d" in rn_resize(
        "https://us-east.stream-io-cdn.com/1/images/a.jpg?Key-Pair-Id=K&Policy=eyJ~_-&Signature=a~b_c-d&oh=1080&ow=1920",
        200, 150)


# MARK: - MockCDN's links qualify and the resized reads answer


def fetch(url: str, host: str, port: int) -> tuple[int, bytes]:
    """Reads `url`, whose host is MockCDN's public name, from the server on 127.0.0.1."""
    parts = urllib.parse.urlsplit(url)
    status, body, _ = request(f"http://127.0.0.1:{port}{parts.path}?{parts.query}", headers={"Host": host})
    return status, body


LARGE = (REPO / "Fixtures" / "media" / "large-4000x4000.jpg").read_bytes()
PUBLIC = "media.stream-io-cdn.com"


@pytest.fixture(scope="module")
def public_server():
    """MockCDN behind a public name that every SDK's default host check accepts (as a test would set it
    up with a hosts entry or a proxy)."""
    with launch("--public-url", f"http://{PUBLIC}:18080") as server:
        yield server


def test_issued_image_links_carry_the_original_size(public_server):
    link = upload(public_server.url, "image", "large.jpg", "image/jpeg", LARGE)
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    assert list(query)[:3] == ["Key-Pair-Id", "Policy", "Signature"]
    assert (query["ow"], query["oh"]) == ("4000", "4000")


@pytest.mark.parametrize(
    "sdk,resize,expected",
    [
        ("iOS", lambda url: ios_resize(url, 100, 80, "clip"), (300, 240)),
        ("iOS crop", lambda url: ios_resize(url, 100, 80, "crop", "top"), (300, 240)),
        ("Android", lambda url: android_resize(url), (1414, 1414)),
        ("React Native", lambda url: rn_resize(url, 150, 150), (300, 300)),
    ],
)
def test_each_sdk_resizes_mockcdn_links_with_its_default_hosts(public_server, sdk, resize, expected):
    link = upload(public_server.url, "image", "large.jpg", "image/jpeg", LARGE)
    resized = resize(link)
    assert resized != link, f"{sdk} does not recognise {link}"
    port = urllib.parse.urlsplit(public_server.url).port
    status, body = fetch(resized, f"{PUBLIC}:18080", port)
    assert status == 200, (sdk, body[:300])
    width, height = image_size(body)
    # clip fits inside the box, so a square source answers the smaller side for both.
    assert (width, height) == ((min(expected), min(expected)) if "crop" not in sdk else expected), sdk


def test_configured_hosts_resize_links_without_a_public_url(server):
    """Each SDK's host setting pointed at MockCDN's own address (iOS and Android `cdnHost`, React Native's
    `resizableCDNHosts`)."""
    link = upload(server, "image", "large.jpg", "image/jpeg", LARGE)
    host = urllib.parse.urlsplit(server).hostname
    for resized in (ios_resize(link, 50, 50, cdn_host=host), android_resize(link, cdn_host=host),
                    rn_resize(link, 50, 50, hosts=(f"{host}:",))):
        assert resized != link
        status, body, _ = request(resized)
        assert status == 200 and max(image_size(body)) <= 1414
