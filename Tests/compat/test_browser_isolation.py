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
import subprocess
import tempfile
import threading
from pathlib import Path

import pytest

from conftest import launch
from support import browser, downloaded, eventually, request, upload

INLINE_SECRET = "inline-secret-at-least-32-bytes-long!!"




@pytest.fixture(scope="module")
def chrome():
    """Chromium with its downloads in a folder of their own: `chrome.downloads`."""
    downloads = Path(tempfile.mkdtemp())
    driver = browser(downloads=downloads)
    driver.downloads = downloads
    driver.set_page_load_timeout(20)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(downloads)


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
// A form POST into a frame, the oldest write a page can send anywhere; resolves when its answer has loaded.
function formPost(frame, path, name, value) {
  return new Promise(resolve => {
    const form = document.createElement('form');
    form.method = 'POST'; form.action = base + path; form.target = frame.name; form.enctype = 'text/plain';
    const input = document.createElement('input');
    input.name = name; input.value = value;
    form.appendChild(input);
    document.body.appendChild(form);
    frame.onload = () => resolve('sent');
    form.submit();
  });
}
(async () => {
  await attempt('read journal', async () => (await fetch(base + '/_mockcdn/requests')).status);
  await attempt('json advance', async () => (await fetch(base + '/_mockcdn/clock/advance', {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"seconds": 86400}'})).status);
  await attempt('no-cors text advance', async () => (await fetch(base + '/_mockcdn/clock/advance', {
    method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body: '{"seconds": 86400}'})).type);
  await attempt('no-cors reset', async () => (await fetch(base + '/_mockcdn/reset', {
    method: 'POST', mode: 'no-cors', body: '{}'})).type);
  await attempt('no-cors bodiless reset', async () => (await fetch(base + '/_mockcdn/reset', {
    method: 'POST', mode: 'no-cors'})).type);
  await attempt('no-cors fault', async () => (await fetch(base + '/_mockcdn/faults', {
    method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'},
    body: '{"action": {"status": 503}}'})).type);
  // The probe shows that the browser does send such requests: an upload route journals it (401, no token).
  await attempt('no-cors probe', async () => (await fetch(base + '/channels/messaging/probe/file?api_key=demo-key', {
    method: 'POST', mode: 'no-cors', body: 'x'})).type);
  const frame = document.createElement('iframe');
  frame.name = 'sink';
  document.body.appendChild(frame);
  await attempt('form advance', () => formPost(frame, '/_mockcdn/clock/advance', '{"seconds": 86400, "x": "', '"}'));
  await attempt('form fault', () => formPost(frame, '/_mockcdn/faults', '{"action": {"status": 503}, "x": "', '"}'));
  await attempt('form reset', () => formPost(frame, '/_mockcdn/reset', 'a', 'b'));
  document.title = 'done';
  document.body.textContent = JSON.stringify(results);
})();
"""


def test_foreign_origin_cannot_read_or_change_control_state(chrome, served, foreign):
    folder, origin = foreign
    (folder / "attack.html").write_text(f"<!doctype html><body><script>{ATTACK % json.dumps(served)}</script>")
    marker = upload(served, "file", "marker.txt", "text/plain", b"a reset would delete me")
    before = clock(served)
    chrome.get(origin + "/attack.html")
    # The page sets its title once every attempt has been answered (each is awaited in turn).
    eventually(lambda: chrome.title == "done", message="the attack page never finished")
    results = json.loads(chrome.find_element("tag name", "body").text)
    assert results["read journal"] == "blocked: TypeError", results
    assert results["json advance"] == "blocked: TypeError", results
    assert all(results[name] in ("opaque", "sent") for name in results if name.startswith(("no-cors", "form"))), results
    # The browser sent them: the probe is in the journal. The control routes refused the rest (403: their
    # Origin and Sec-Fetch-Site name another site), so nothing changed: the clock (it runs with real time:
    # 3600 s is >= 10x what the page takes, and 24 times less than one of the attack's advances), the fault
    # rules, and the objects a reset would have removed.
    journal = json.loads(request(served + "/_mockcdn/requests?path=/channels/messaging/probe/file")[1])["requests"]
    assert journal and journal[-1]["status"] == 401, journal
    assert clock(served) - before < 3600, "a foreign page moved the clock"
    assert json.loads(request(served + "/_mockcdn/faults")[1])["faults"] == [], "a foreign page added a fault"
    assert request(marker)[0] == 200, "a foreign page reset the server"


def test_curl_resets_with_a_bodiless_post(served):
    """What keeps pages out is the browser's own signal, so a client that is not a browser needs no header."""
    marker = upload(served, "file", "gone.txt", "text/plain", b"reset me")
    result = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                             served + "/_mockcdn/reset"], capture_output=True, text=True, timeout=60)
    assert result.stdout in ("200", "204"), result
    assert request(marker)[0] == 404


SCRIPTED = {
    "page.html": ("text/html", "<!doctype html><script>{}</script>"),
    "pic.svg": ("image/svg+xml", '<svg xmlns="http://www.w3.org/2000/svg"><script>{}</script></svg>'),
}
# A synchronous request: where the script runs, the clock has moved before its document's load event, so a
# test that waits for that event (or for the browser to take the file as a download instead) never has to
# wait in case a script is still on its way.
PAYLOAD = (
    "var request = new XMLHttpRequest(); request.open('POST', '/_mockcdn/clock/advance', false);"
    " request.setRequestHeader('Content-Type', 'application/json'); request.send('{\"seconds\": 864000}');"
)


def embed(chrome, base: str, link: str) -> list[str]:
    """Opens MockCDN's own origin and frames the uploaded file, then opens the file itself; returns how the
    browser ended with it each time, `document` (its load event: any script of it has run by then) or
    `download` (a download began: it is never rendered)."""
    ends = []
    chrome.get(base + "/_mockcdn/health")
    count = downloaded(chrome.downloads)
    chrome.execute_script(
        "window.framed = false; const frame = document.createElement('iframe');"
        " frame.onload = () => { window.framed = true; }; frame.src = arguments[0]; document.body.appendChild(frame);",
        link,
    )
    ends.append(eventually(
        lambda: ("document" if chrome.execute_script("return window.framed") else None)
        or ("download" if downloaded(chrome.downloads) > count else None),
        message=f"the frame of {link} neither loaded nor downloaded"))
    count = downloaded(chrome.downloads)
    # Returns after the document's load event, or once the navigation became a download.
    chrome.get(link)
    ends.append(eventually(
        lambda: ("document" if chrome.current_url.split("?")[0] == link.split("?")[0]
                 and chrome.execute_script("return document.readyState") == "complete" else None)
        or ("download" if downloaded(chrome.downloads) > count else None),
        message=f"{link} neither loaded nor downloaded"))
    return ends


@pytest.mark.parametrize("filename", sorted(SCRIPTED))
def test_uploaded_active_content_cannot_script_the_origin(chrome, served, filename):
    content_type, template = SCRIPTED[filename]
    data = template.format(PAYLOAD).encode()
    guarded = upload(served, "file", filename, content_type, data)
    before = clock(served)
    ends = embed(chrome, served, guarded)
    # The clock runs with real time: 3600 s is >= 10x what the test takes, and 240 times less than one run.
    assert clock(served) - before < 3600, f"{filename} ran script on MockCDN's origin ({ends})"
    # The control: the app that opts in serves the same file inline, and its script does run, framed and opened,
    # by the time `embed` sees each load event (so the check above did not look too early).
    inline = upload(served, "file", filename, content_type, data, api_key="inline-key", secret=INLINE_SECRET)
    assert embed(chrome, served, inline) == ["document", "document"]
    assert clock(served) - before >= 2 * 864000, f"the inline {filename} did not run: the test cannot fail"
    request(served + "/_mockcdn/reset", "POST", b"{}", {"Content-Type": "application/json"})
