"""What a real browser can do to MockCDN, in headless Chromium driven by Selenium: a page on another origin
cannot read or change the test-control state, and an uploaded HTML or SVG file cannot run script on
MockCDN's origin. An app that opts in to inline active content shows that the same file would (so the
tests can fail).

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import http.server
import json
import shutil
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import launch
from support import browser, request, upload

INLINE_SECRET = "inline-secret-at-least-32-bytes-long!!"




@pytest.fixture(scope="module")
def chrome():
    driver = browser()
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def served():
    """MockCDN with a second app, `inline`, that opts in to serving active content inline."""
    folder = Path(tempfile.mkdtemp())
    (folder / "apps.yaml").write_text(
        "apps:\n"
        "  - app_id: inline\n"
        "    api_key: inline-key\n"
        f"    api_secret: {INLINE_SECRET}\n"
        "    inline_active_content: true\n"
    )
    with launch("--config", str(folder / "apps.yaml")) as server:
        yield server.url
    shutil.rmtree(folder)


@pytest.fixture(scope="module")
def foreign():
    """A page origin of its own: a static server on another port, serving pages the tests write."""
    folder = Path(tempfile.mkdtemp())
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=str(folder))  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield folder, f"http://localhost:{httpd.server_address[1]}"
    httpd.shutdown()
    shutil.rmtree(folder)


def clock(base: str) -> int:
    return json.loads(request(base + "/_mockcdn/clock")[1])["now"]


ATTACK = """
const base = %s;
const results = {};
async function attempt(name, run) {
  try { results[name] = await run(); } catch (error) { results[name] = 'blocked: ' + error.name; }
}
(async () => {
  await attempt('read journal', async () => (await fetch(base + '/_mockcdn/requests')).status);
  await attempt('json advance', async () => (await fetch(base + '/_mockcdn/clock/advance', {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"seconds": 86400}'})).status);
  await attempt('no-cors text advance', async () => (await fetch(base + '/_mockcdn/clock/advance', {
    method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"seconds": 86400}'})).type);
  await attempt('no-cors reset', async () => (await fetch(base + '/_mockcdn/reset', {
    method: 'POST', mode: 'no-cors', body: '{}'})).type);
  document.title = 'done';
  document.body.textContent = JSON.stringify(results);
})();
"""


def test_foreign_origin_cannot_read_or_change_control_state(chrome, served, foreign):
    folder, origin = foreign
    (folder / "attack.html").write_text(f"<!doctype html><body><script>{ATTACK % json.dumps(served)}</script>")
    before = clock(served)
    chrome.get(origin + "/attack.html")
    deadline = time.monotonic() + 15
    while chrome.title != "done" and time.monotonic() < deadline:
        time.sleep(0.2)
    results = json.loads(chrome.find_element("tag name", "body").text)
    assert results["read journal"] == "blocked: TypeError", results
    assert results["json advance"] == "blocked: TypeError", results
    # no-cors requests are sent but their answers are opaque; the server refused them (415).
    assert clock(served) - before < 60, "a foreign page moved the clock"
    status, journal, _ = request(served + "/_mockcdn/requests")
    assert status == 200


SCRIPTED = {
    "page.html": ("text/html", "<!doctype html><script>{}</script>"),
    "pic.svg": ("image/svg+xml", '<svg xmlns="http://www.w3.org/2000/svg"><script>{}</script></svg>'),
}
PAYLOAD = (
    "fetch('/_mockcdn/clock/advance', {method: 'POST', headers: {'Content-Type': 'application/json'},"
    " body: '{\"seconds\": 864000}'})"
)


def embed(chrome, base: str, link: str) -> None:
    """Opens MockCDN's own origin, then frames the uploaded file, and lets it run."""
    chrome.get(base + "/_mockcdn/health")
    chrome.execute_script(
        "const frame = document.createElement('iframe'); frame.src = arguments[0]; document.body.appendChild(frame);",
        link,
    )
    time.sleep(2)
    chrome.get(link)
    time.sleep(1)


@pytest.mark.parametrize("filename", sorted(SCRIPTED))
def test_uploaded_active_content_cannot_script_the_origin(chrome, served, filename):
    content_type, template = SCRIPTED[filename]
    data = template.format(PAYLOAD).encode()
    guarded = upload(served, "file", filename, content_type, data)
    before = clock(served)
    embed(chrome, served, guarded)
    assert clock(served) - before < 3600, f"{filename} ran script on MockCDN's origin"
    # The control: the app that opts in serves the same file inline, and its script does run.
    inline = upload(served, "file", filename, content_type, data, api_key="inline-key", secret=INLINE_SECRET)
    embed(chrome, served, inline)
    assert clock(served) - before >= 864000, f"the inline {filename} did not run: the test cannot fail"
    request(served + "/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
