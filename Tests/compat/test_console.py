"""The web console at /_mockcdn/ui in headless Chromium, driven by Selenium: upload through the file input, see
the thumbnail, follow a CloudFront link, see it expire when the clock moves 14 days, watch a 503 fault in the
live journal, and the page refused off loopback without the admin token. Screenshots of each view go to
Tests/ui/screenshots/ (not committed).

Run from the repository root: ``python3 -m pytest -q Tests/compat``.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from selenium.common.exceptions import NoSuchWindowException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from conftest import launch
from support import API_SECRET, browser, downloaded, eventually, png, request

SCREENSHOTS = Path(__file__).resolve().parents[1] / "ui" / "screenshots"
# A credential's value in a URL: what must never be in the page or its console.
# (`Policy` is not one: it says what a link allows, and the journal shows it, as it shows `Key-Pair-Id`.)
CREDENTIAL_VALUE = re.compile(r"(?:Signature|X-Amz-Signature|fat)=(?!REDACTED)[A-Za-z0-9~_%.\-]{8,}", re.IGNORECASE)


@pytest.fixture(scope="module")
def console():
    """The server and Chromium on its console, with the browser's downloads in a folder of their own
    (`driver.downloads`)."""
    downloads = Path(tempfile.mkdtemp())
    with launch() as server:
        driver = browser(downloads=downloads)
        driver.downloads = downloads
        driver.set_page_load_timeout(20)
        try:
            driver.get(server.url + "/_mockcdn/ui")
            yield server.url, driver
        finally:
            driver.quit()
    shutil.rmtree(downloads)


def wait(driver, condition, seconds=30):
    # A poll that returns as soon as the condition holds; 30 s is >= 10x what any step of the page takes.
    # The page redraws its details and journal as the clock ticks: an element may go stale between looks.
    return WebDriverWait(driver, seconds, ignored_exceptions=[StaleElementReferenceException]).until(condition)


def shot(driver, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def journal(base: str) -> list[dict]:
    status, body, _ = request(base + "/_mockcdn/requests")
    assert status == 200
    return json.loads(body)["requests"]


def assert_no_credentials(driver) -> None:
    source = driver.page_source
    assert API_SECRET not in source
    assert not CREDENTIAL_VALUE.search(source), CREDENTIAL_VALUE.search(source).group(0)[:40]
    for entry in driver.get_log("browser"):
        assert not CREDENTIAL_VALUE.search(entry["message"]), entry["message"][:80]


def open_link(driver, kind: str, download: bool = False) -> None:
    """Clicks Open on the selected object's link of `kind`, which opens it in a new tab, waits for its page (or,
    for a `download`, until the browser has begun downloading it), and closes that tab."""
    console_window = driver.current_window_handle
    before = set(driver.window_handles)
    count = downloaded(driver.downloads)
    driver.find_element(By.CSS_SELECTOR, f'#details li[data-kind="{kind}"] button.open').click()
    if download:
        # Once a download has begun, the browser will never render the answer: no script of it can run.
        eventually(lambda: downloaded(driver.downloads) > count, message=f"the {kind} link was not downloaded")
        # Chromium may close a tab that only downloaded, at any moment.
        for handle in set(driver.window_handles) - before:
            try:
                driver.switch_to.window(handle)
                driver.close()
            except NoSuchWindowException:
                pass
    else:
        wait(driver, lambda d: len(set(d.window_handles) - before) == 1)
        driver.switch_to.window((set(driver.window_handles) - before).pop())
        # A new tab is about:blank until its navigation commits.
        wait(driver, lambda d: d.current_url.startswith("http")
             and d.execute_script("return document.readyState") == "complete")
        driver.close()
    driver.switch_to.window(console_window)


def test_upload_follow_expire_and_fault(console, tmp_path):
    base, driver = console
    wait(driver, expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#grid .tile")))
    # Upload through the file input (the drop zone calls the same code), and the thumbnail appears, made by
    # MockCDN's resize path and shown from a blob: URL.
    picture = tmp_path / "console-upload.png"
    picture.write_bytes(png(64, 40))
    driver.find_element(By.ID, "file").send_keys(str(picture))
    tile = wait(driver, expected_conditions.presence_of_element_located(
        (By.XPATH, '//button[contains(@class,"tile")][.//span[@class="name" and text()="console-upload.png"]]')))
    wait(driver, lambda d: (tile.find_element(By.TAG_NAME, "img").get_attribute("src") or "").startswith("blob:"))
    shot(driver, "objects")
    uploads = [entry for entry in journal(base) if entry["method"] == "POST" and "/console/image" in entry["path"]]
    assert uploads and uploads[-1]["status"] == 201

    # Details: the fields and a fresh link of each kind; CloudFront followed in the browser answers 200.
    key = tile.get_attribute("data-key")
    tile.click()
    details = wait(driver, expected_conditions.visibility_of_element_located((By.ID, "details")))
    assert "64 \u00d7 40" in details.text and "image/png" in details.text
    kinds = [item.get_attribute("data-kind") for item in details.find_elements(By.CSS_SELECTOR, "li.link")]
    assert kinds == ["cloudfront", "presigned", "fat"]
    # Each link, exactly as the page holds it, reads the uploaded bytes with a plain HTTP client.
    for link in driver.execute_script("return state.selected.links.map((link) => link.url)"):
        status, body, _ = request(link)
        assert status == 200 and body == picture.read_bytes(), link.split("?")[1][:40]
    shot(driver, "details")
    open_link(driver, "cloudfront")
    reads = [entry for entry in journal(base) if entry["path"] == "/" + key and entry["method"] == "GET"]
    assert reads and reads[-1]["status"] == 200 and reads[-1]["credential"] == "cloudfront"
    assert_no_credentials(driver)

    # +14 days: the link is marked expired, and following it again is journaled as 403 with its reason.
    chip = 'li[data-kind="cloudfront"] .chip'
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, chip).get_attribute("data-state") == "valid")
    driver.find_element(By.CSS_SELECTOR, '[data-advance="1209600"]').click()
    wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, chip).get_attribute("data-state") == "expired")
    # The same link read again (from here: the browser would answer from its cache, as a CDN's client does).
    link = driver.execute_script("return state.selected.links.find((link) => link.kind === 'cloudfront').url")
    assert request(link)[0] == 403
    driver.find_element(By.CSS_SELECTOR, '.tab[data-view="requests"]').click()
    denied = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, '#journal tr[data-status="403"]').text + "\n"
                  + d.find_element(By.CSS_SELECTOR, '#journal tr[data-status="403"] + tr.reason').text)
    assert key in denied and "AccessDenied: Request has expired" in denied, denied
    shot(driver, "requests")
    assert_no_credentials(driver)

    # A 503 fault from the form: the next read fails in the live journal; then clear all.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-view="faults"]').click()
    path = driver.find_element(By.ID, "fault-path")
    path.clear()
    path.send_keys("/" + key)
    driver.find_element(By.CSS_SELECTOR, '#fault-form button[type="submit"]').click()
    rule_id = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#faults tr[data-id]").get_attribute("data-id"))
    shot(driver, "faults")
    driver.find_element(By.CSS_SELECTOR, '.tab[data-view="requests"]').click()
    status, _, _ = request(f"{base}/{key}")
    assert status == 503
    faulted = wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, '#journal tr[data-status="503"]').text)
    assert rule_id in faulted
    driver.find_element(By.CSS_SELECTOR, '.tab[data-view="faults"]').click()
    driver.find_element(By.ID, "faults-clear").click()
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#faults tr[data-id]"))
    status, body, _ = request(base + "/_mockcdn/faults")
    assert json.loads(body)["faults"] == []

    # Delete from the details, through Stream's delete route: the object is gone, and so is its tile.
    driver.find_element(By.CSS_SELECTOR, '.tab[data-view="objects"]').click()
    driver.find_element(By.CSS_SELECTOR, f'button.tile[data-key="{key}"]').click()
    wait(driver, expected_conditions.visibility_of_element_located((By.ID, "details")))
    driver.find_element(By.CSS_SELECTOR, "#details button.danger").click()
    driver.switch_to.alert.accept()
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, f'button.tile[data-key="{key}"]'))
    deletes = [entry for entry in journal(base) if entry["method"] == "DELETE"]
    assert deletes and deletes[-1]["status"] == 200
    status, body, _ = request(base + "/_mockcdn/tokens", "POST", b'{"kind":"fat","user_id":"ana"}',
                              {"Content-Type": "application/json"})
    assert request(f"{base}/{key}", headers={"fat": json.loads(body)["token"]})[0] == 404
    status, body, _ = request(f"{base}/_mockcdn/objects?prefix=images/")
    assert key not in body.decode()


def test_the_page_loads_nothing_from_elsewhere(console):
    base, _ = console
    for path in ("/_mockcdn/ui", "/_mockcdn/ui/console.js", "/_mockcdn/ui/console.css", "/_mockcdn/ui/favicon.svg"):
        status, body, _ = request(base + path)
        assert status == 200
        assert not re.search(rb"(?:src|href)\s*=\s*[\"']?(?:https?:)?//|@import|url\(\s*[\"']?(?:https?:)?//", body), path


def test_uploaded_svg_and_html_cannot_script_the_console(console, tmp_path):
    base, driver = console
    driver.get(base + "/_mockcdn/ui")
    wait(driver, expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#grid .tile")))
    status, body, _ = request(base + "/_mockcdn/clock")
    before = json.loads(body)["now"]
    attack = ("fetch('/_mockcdn/clock/advance',{method:'POST',headers:{'Content-Type':'application/json'},"
              "body:'{\"seconds\":777}'})")
    (tmp_path / "evil.svg").write_text(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>{attack}</script></svg>')
    (tmp_path / "evil.html").write_text(f"<html><body><script>{attack}</script></body></html>")
    for name in ("evil.svg", "evil.html"):
        driver.find_element(By.ID, "file").send_keys(str(tmp_path / name))
        tile = wait(driver, expected_conditions.presence_of_element_located(
            (By.XPATH, f'//button[contains(@class,"tile")][.//span[@class="name" and text()="{name}"]]')))
        # Shown by its type, never rendered.
        assert not tile.find_elements(By.TAG_NAME, "img")
        tile.click()
        wait(driver, expected_conditions.visibility_of_element_located((By.ID, "details")))
        # Served as a sandboxed attachment: a download, never a document of this origin (`open_link` waits
        # until the browser has begun downloading it, so no script of it can still be on its way).
        open_link(driver, "cloudfront", download=True)
    status, body, _ = request(base + "/_mockcdn/clock")
    # The clock runs with real time: 777 s is >= 10x what this test takes.
    assert json.loads(body)["now"] - before < 777
    # The page's scripts run only by nonce: no inline script, no other script from this origin.
    status, _, headers = request(base + "/_mockcdn/ui")
    policy = headers["Content-Security-Policy"]
    assert re.search(r"script-src 'nonce-[0-9a-f]{32}'(;|$)", policy) and "unsafe-inline" not in policy


def test_off_loopback_the_console_needs_the_admin_token():
    token = "console-admin-token-0123456789"
    with launch("--host", "0.0.0.0", "--admin-token", token) as server:
        driver = browser()
        try:
            driver.get(server.url + "/_mockcdn/ui")
            assert "MockCDN console" not in driver.title
            assert "Server clock" not in driver.page_source
        finally:
            driver.quit()
        assert request(server.url + "/_mockcdn/ui")[0] == 401
        status, body, _ = request(server.url + "/_mockcdn/ui", headers={"Authorization": f"Bearer {token}"})
        assert status == 200 and b"MockCDN console" in body


def test_opening_the_console_changes_nothing_a_test_sees():
    """The console's own requests are invisible to the contract: once its page has drawn every thumbnail, the
    journal is empty, verify's `4xx count 0` holds, the report covers nothing and /metrics counted nothing, on a
    server of its own. Its thumbnail reads carry the process's token; a read with another token is the app's."""
    with launch() as server:
        base = server.url
        status, body, _ = request(base + "/_mockcdn/objects?app=demo")
        listing = json.loads(body)
        assert status == 200 and re.fullmatch(r"[0-9a-f]{32}", listing["console_token"])
        previews = [o for o in listing["objects"] if o.get("thumbnail")]
        # Among the fixtures' thumbnails, the one over the pixel limit is a 422: refused as the console's own.
        assert len(previews) >= 5
        driver = browser()
        try:
            driver.set_page_load_timeout(20)
            driver.get(base + "/_mockcdn/ui")
            # Every thumbnail answered: shown from a blob, or (the refused one) replaced by its "no preview" icon.
            wait(driver, lambda d: len([i for i in d.find_elements(By.CSS_SELECTOR, "#grid img")
                                        if (i.get_attribute("src") or "").startswith("blob:")])
                 + len([n for n in d.find_elements(By.CSS_SELECTOR, "#grid .icon small") if n.get_attribute("textContent") == "no preview"])
                 == len(previews))
            # The page's own icon loads under its policy (no request for /favicon.ico, no violation).
            assert [e["message"] for e in driver.get_log("browser") if e["source"] == "security"] == []
        finally:
            driver.quit()
        assert journal(base) == []
        document = {"expectations": [{"status": "4xx", "count": 0}, {"count": 0}]}
        status, body, _ = request(base + "/_mockcdn/verify", "POST", json.dumps(document).encode(),
                                  {"Content-Type": "application/json"})
        assert status == 200, body
        status, body, _ = request(base + "/_mockcdn/report?format=json")
        assert status == 200
        assert [row["id"] for surface in json.loads(body)["surfaces"] for row in surface["rows"] if row["covered"]] == []
        status, body, _ = request(base + "/metrics")
        assert status == 200 and b'path="/:app/**"' not in body and b"/favicon.ico" not in body

        # A read that names another token is an ordinary read: journaled, with its status.
        thumbnail = previews[0]["thumbnail"]
        status, _, _ = request(thumbnail, headers={"fat": listing["thumbnail_fat"], "x-mockcdn-console": "0" * 32})
        assert status == 200
        assert [(entry["method"], entry["status"]) for entry in journal(base)] == [("GET", 200)]
