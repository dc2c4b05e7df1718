// The MockCDN console: plain JavaScript over the JSON control routes. Every text from the server goes into the
// page as text (textContent, never innerHTML), links open from memory (never an href holding a signature), and
// the journal shows what the server redacted.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { apps: [], app: null, now: 0, offset: 0, objects: [], selected: null, view: "objects", lastJournal: "", lastReport: "" };

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

async function call(method, path, body) {
  const options = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error((data && (data.message || data.error)) || `${method} ${path}: ${response.status}`);
  return data;
}

function say(message, failed = false) {
  const status = $("status");
  status.textContent = message;
  status.classList.toggle("failed", failed);
  status.hidden = false;
  clearTimeout(say.timer);
  say.timer = setTimeout(() => { status.hidden = true; }, 4000);
}

const size = (bytes) => bytes < 1024 ? `${bytes} B` : bytes < 1 << 20 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1048576).toFixed(1)} MiB`;
const isoTime = (seconds) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
function span(seconds) {
  const abs = Math.abs(seconds);
  if (abs < 90) return `${abs} s`;
  if (abs < 5400) return `${Math.round(abs / 60)} min`;
  if (abs < 129600) return `${(abs / 3600).toFixed(1)} h`;
  return `${(abs / 86400).toFixed(1)} days`;
}

// A URL for display: each credential parameter's value hidden, as the journal hides it.
function masked(url) {
  return url.replace(/([?&](?:fat|Signature|Policy|X-Amz-Signature|X-Amz-Credential|X-Amz-Security-Token|AWSAccessKeyId)=)[^&]*/gi, "$1\u2026");
}

// Clock
async function refreshClock() {
  const clock = await call("GET", "/_mockcdn/clock");
  state.now = clock.now;
  state.offset = clock.now - Math.floor(Date.now() / 1000);
  $("clock-now").textContent = isoTime(clock.now);
  $("clock-now").dateTime = isoTime(clock.now);
  $("clock-offset").textContent = Math.abs(state.offset) < 2 ? "real time" : `${state.offset > 0 ? "+" : "\u2212"}${span(state.offset)}`;
  markExpiry();
}

// Each link's state against the clock, changed in place: the panel is not redrawn, so focus stays put.
function markExpiry() {
  for (const chip of document.querySelectorAll("#details .chip[data-expires]")) {
    const left = Number(chip.dataset.expires) - state.now;
    const expired = left <= 0;
    chip.className = `chip ${expired ? "bad" : "good"}`;
    chip.dataset.state = expired ? "expired" : "valid";
    chip.textContent = expired ? `expired ${span(-left)} ago` : `expires in ${span(left)}`;
    chip.closest("li").classList.toggle("expired", expired);
  }
}

async function clockChange(method, path, body) {
  try {
    await call(method, path, body);
    await refreshClock();
    say(`Clock set to ${isoTime(state.now)}`);
  } catch (error) {
    say(error.message, true);
  }
}

// Objects
async function refreshObjects() {
  const query = new URLSearchParams({ app: state.app.app_id });
  if ($("prefix").value) query.set("prefix", $("prefix").value);
  if ($("kind").value) query.set("kind", $("kind").value);
  const listing = await call("GET", `/_mockcdn/objects?${query}`);
  state.now = listing.now;
  state.thumbnailFAT = listing.thumbnail_fat;
  state.consoleToken = listing.console_token;
  state.objects = listing.objects;
  if (state.selected) state.selected = listing.objects.find((object) => object.key === state.selected.key) || null;
  renderGrid();
  renderDetails();
}

// Thumbnails are fetched by script and shown from blob: URLs, so no signed link sits in the page; one per
// object version (key and ETag).
const thumbnails = new Map();
function picture(object, attributes) {
  const image = element("img", attributes);
  const id = `${object.key}\n${object.etag}`;
  if (!thumbnails.has(id)) {
    thumbnails.set(id, fetch(object.thumbnail, { headers: { fat: state.thumbnailFAT, "x-mockcdn-console": state.consoleToken } }).then((response) => {
      if (!response.ok) throw new Error(`thumbnail ${response.status}`);
      return response.blob();
    }).then((blob) => URL.createObjectURL(blob)).catch(() => { thumbnails.delete(id); return null; }));
  }
  thumbnails.get(id).then((url) => { if (url) image.src = url; else image.replaceWith(icon(object, "no preview")); });
  return image;
}

const typeIcons = { video: "\u25B6", other: "\u25A4" };
const icon = (object, note) => element("span", { class: "icon", "aria-hidden": "true" }, typeIcons[object.kind] || typeIcons.other,
  element("small", {}, note || object.content_type.split("/")[1] || "file"));
function renderGrid() {
  const grid = $("grid");
  grid.replaceChildren(...state.objects.map((object) => {
    const preview = object.thumbnail
      ? picture(object, { alt: "", width: 120, height: 120 })
      : icon(object);
    return element("li", {},
      element("button", {
        type: "button", class: "tile", "data-key": object.key, "aria-pressed": state.selected?.key === object.key ? "true" : "false",
        onclick: () => { state.selected = object; renderGrid(); renderDetails(); },
      }, preview, element("span", { class: "name" }, object.name), element("span", { class: "muted" }, size(object.size))));
  }));
  if (!state.objects.length) grid.append(element("li", { class: "empty" }, "No objects yet: drop a file here, or upload one."));
}

function renderDetails() {
  const panel = $("details");
  const object = state.selected;
  panel.hidden = !object;
  if (!object) return panel.replaceChildren();
  const field = (name, value) => value === null || value === undefined ? [] : [element("dt", {}, name), element("dd", {}, String(value))];
  const links = object.links.map((link) => {
    return element("li", { class: "link", "data-kind": link.kind },
      element("div", { class: "link-head" },
        element("strong", {}, { cloudfront: "CloudFront", presigned: "SigV4 presigned", fat: "FAT" }[link.kind] || link.kind),
        element("span", { class: "chip", "data-expires": link.expires_at })),
      element("code", { class: "url" }, masked(link.url)),
      element("div", { class: "buttons" },
        element("button", { type: "button", onclick: () => copy(link.url) }, "Copy"),
        element("button", { type: "button", class: "open", onclick: () => window.open(link.url, "_blank", "noopener,noreferrer") }, "Open")));
  });
  panel.replaceChildren(
    element("h3", {}, object.name),
    object.thumbnail ? picture(object, { alt: `Preview of ${object.name}`, class: "preview" }) : null,
    element("dl", {}, ...field("Key", object.key), ...field("Size", `${size(object.size)} (${object.size} bytes)`),
      ...field("Type", object.content_type), ...field("ETag", object.etag), ...field("Owner", object.owner),
      ...field("Channel", object.channel), ...field("Dimensions", object.width ? `${object.width} \u00D7 ${object.height}` : null),
      ...field("Created", isoTime(object.created))),
    element("h4", {}, "Fresh links, signed at the server clock"),
    element("ul", { class: "links" }, links),
    element("button", { type: "button", class: "danger", onclick: () => remove(object) }, "Delete"));
  markExpiry();
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    say("Link copied");
  } catch {
    say("The browser refused the clipboard", true);
  }
}

async function token(kind) {
  return (await call("POST", "/_mockcdn/tokens", { kind, user_id: "console", app_id: state.app.app_id })).token;
}

async function remove(object) {
  if (!confirm(`Delete ${object.key}?`)) return;
  try {
    const kind = object.key.includes("/images/") ? "image" : "file";
    const link = object.links.find((item) => item.kind === "cloudfront").url;
    const response = await fetch(`/api/v2/uploads/${kind}?api_key=${encodeURIComponent(state.app.api_key)}&url=${encodeURIComponent(link)}`, {
      method: "DELETE", headers: { Authorization: await token("server"), "stream-auth-type": "jwt" },
    });
    if (!response.ok) throw new Error(`Delete answered ${response.status}: ${(await response.json()).message || ""}`);
    state.selected = null;
    say(`Deleted ${object.name}`);
    await refreshObjects();
  } catch (error) {
    say(error.message, true);
  }
}

// Upload through the real Stream route, with the progress XMLHttpRequest reports.
async function upload(files) {
  const progress = $("progress");
  for (const file of files) {
    const kind = file.type.startsWith("image/") ? "image" : "file";
    const form = new FormData();
    form.append("file", file, file.name);
    const authorization = await token("user");
    await new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open("POST", `/channels/messaging/console/${kind}?api_key=${encodeURIComponent(state.app.api_key)}`);
      request.setRequestHeader("Authorization", authorization);
      request.setRequestHeader("stream-auth-type", "jwt");
      progress.hidden = false;
      progress.value = 0;
      request.upload.onprogress = (event) => { if (event.lengthComputable) progress.value = (100 * event.loaded) / event.total; };
      request.onloadend = () => {
        progress.hidden = true;
        if (request.status === 201) say(`Uploaded ${file.name}`);
        else say(`Upload of ${file.name} answered ${request.status}: ${(safeJSON(request.responseText) || {}).message || ""}`, true);
        resolve();
      };
      request.send(form);
    });
  }
  await refreshObjects();
}

const safeJSON = (text) => { try { return JSON.parse(text); } catch { return null; } };

// Requests: polled once a second. Polling rather than server-sent events: one short request a second keeps
// no connection open against the server's idle timeout and connection cap, and works through any proxy.
async function refreshJournal() {
  const query = new URLSearchParams();
  const status = $("f-status").value.trim();
  if (/^\d{3}$/.test(status)) query.set("status", status);
  if ($("f-path").value) query.set("path", $("f-path").value);
  const listing = await call("GET", `/_mockcdn/requests?${query}`);
  const credential = $("f-credential").value;
  const entries = listing.requests.filter((entry) => !credential || entry.credential === credential).reverse();
  const signature = JSON.stringify(entries.map((entry) => [entry.id, entry.status, entry.bytes_out]));
  if (signature === state.lastJournal) return;
  state.lastJournal = signature;
  $("journal").replaceChildren(...entries.flatMap((entry) => {
    const kind = entry.status >= 500 ? "bad" : entry.status >= 400 ? "warn" : "good";
    const row = element("tr", { "data-id": entry.id, "data-status": entry.status },
      element("td", {}, new Date(entry.received_at * 1000).toLocaleTimeString()),
      element("td", {}, entry.method),
      element("td", { class: "path" }, entry.path + (entry.query ? `?${entry.query}` : "")),
      element("td", {}, element("span", { class: `chip ${kind}` }, entry.status)),
      element("td", {}, entry.credential),
      element("td", {}, size(entry.bytes_out)),
      element("td", {}, entry.duration_ms.toFixed(1)),
      element("td", {}, entry.fault || ""));
    if (!entry.reason) return [row];
    return [row, element("tr", { class: "reason" }, element("td", { colspan: 8 }, "\u21B3 ", entry.reason))];
  }));
}

// Faults
async function refreshFaults() {
  const listing = await call("GET", "/_mockcdn/faults");
  $("faults").replaceChildren(...listing.faults.map((rule) => element("tr", { "data-id": rule.id },
    element("td", {}, rule.id),
    element("td", {}, [rule.match.method || "any", rule.match.path || "*", rule.match.query ? `?${rule.match.query}` : ""].join(" ")),
    element("td", {}, Object.entries(rule.action).map(([name, value]) => `${name} ${value}`).join(", ")),
    element("td", {}, rule.hits),
    element("td", {}, rule.remaining ?? "\u221E"),
    element("td", {}, element("button", { type: "button", onclick: () => faultCall("DELETE", `/_mockcdn/faults/${rule.id}`) }, "Remove")))));
  if (!listing.faults.length) $("faults").append(element("tr", {}, element("td", { colspan: 6, class: "empty" }, "No fault rules.")));
}

async function faultCall(method, path, body) {
  try {
    await call(method, path, body);
    await refreshFaults();
  } catch (error) {
    say(error.message, true);
  }
}

// Coverage: the report of the journal (GET /_mockcdn/report), one table per surface, redrawn when it changes.
async function refreshReport() {
  const report = await call("GET", "/_mockcdn/report?format=json");
  const signature = JSON.stringify([report.entries, report.surfaces.map((surface) => surface.rows.map((row) => row.count))]);
  if (signature === state.lastReport) return;
  state.lastReport = signature;
  $("report-summary").textContent = `${report.rows_covered} of ${report.rows_total} behaviours covered (${report.percent}%), from ${report.entries} requests`;
  $("report").replaceChildren(...report.surfaces.map((surface) => element("table", { class: "journal report", "data-surface": surface.id },
    element("caption", {}, `${surface.title}: ${surface.rows_covered} of ${surface.rows_total} (${surface.percent}%)`),
    element("thead", {}, element("tr", {}, ["", "Row", "Behaviour", "Requests", "First"].map((name) => element("th", { scope: "col" }, name)))),
    element("tbody", {}, surface.rows.map((row) => element("tr", { "data-id": row.id, class: row.covered ? "covered" : "uncovered" },
      element("td", {}, element("span", { class: `chip ${row.covered ? "good" : "bad"}` }, row.covered ? "covered" : "never")),
      element("td", {}, element("code", {}, row.id)),
      element("td", {}, row.title),
      element("td", {}, row.count),
      element("td", {}, row.example || "")))))));
}

function show(view) {
  state.view = view;
  for (const tab of document.querySelectorAll(".tab")) tab.setAttribute("aria-pressed", String(tab.dataset.view === view));
  for (const section of document.querySelectorAll(".view")) section.hidden = section.id !== `view-${view}`;
  tick();
}

async function tick() {
  try {
    await refreshClock();
    if (state.view === "requests") await refreshJournal();
    if (state.view === "faults") await refreshFaults();
    if (state.view === "report") await refreshReport();
  } catch (error) {
    say(error.message, true);
  }
}

async function start() {
  const index = await call("GET", "/_mockcdn");
  state.apps = index.apps;
  state.app = state.apps[0];
  $("app").replaceChildren(...state.apps.map((app) => element("option", { value: app.app_id }, app.app_id)));
  $("app").addEventListener("change", () => { state.app = state.apps.find((app) => app.app_id === $("app").value); state.selected = null; refreshObjects(); });
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));
  for (const button of document.querySelectorAll("[data-advance]")) {
    button.addEventListener("click", () => clockChange("POST", "/_mockcdn/clock/advance", { seconds: Number(button.dataset.advance) }));
  }
  $("clock-apply").addEventListener("click", () => {
    const value = $("clock-set").value;
    if (value) clockChange("PUT", "/_mockcdn/clock", { now: `${value.length === 16 ? `${value}:00` : value}Z` });
  });
  $("clock-real").addEventListener("click", () => clockChange("PUT", "/_mockcdn/clock", { now: Math.floor(Date.now() / 1000) }));
  $("reset").addEventListener("click", async () => {
    if (!confirm("Reset the server: objects, journal, faults and clock?")) return;
    try { await call("POST", "/_mockcdn/reset", {}); state.selected = null; await refreshObjects(); await tick(); say("Server reset"); } catch (error) { say(error.message, true); }
  });
  $("prefix").addEventListener("input", () => refreshObjects().catch((error) => say(error.message, true)));
  $("kind").addEventListener("change", () => refreshObjects().catch((error) => say(error.message, true)));
  $("file").addEventListener("change", () => upload([...$("file").files]));
  const drop = $("drop");
  for (const target of [drop, $("grid")]) {
    target.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
    target.addEventListener("dragleave", () => drop.classList.remove("over"));
    target.addEventListener("drop", (event) => { event.preventDefault(); drop.classList.remove("over"); upload([...event.dataTransfer.files]); });
  }
  for (const id of ["f-status", "f-path", "f-credential"]) $(id).addEventListener("input", () => { state.lastJournal = ""; refreshJournal(); });
  $("journal-clear").addEventListener("click", async () => { await call("DELETE", "/_mockcdn/requests"); state.lastJournal = ""; refreshJournal(); });
  $("fault-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const number = (id) => ($(id).value.trim() ? Number($(id).value) : undefined);
    const action = {};
    if (number("fault-status")) action.status = number("fault-status");
    if (number("fault-delay")) action.delay_ms = number("fault-delay");
    const rule = { match: { path: $("fault-path").value }, action };
    if ($("fault-method").value) rule.match.method = $("fault-method").value;
    if (number("fault-times")) rule.times = number("fault-times");
    faultCall("POST", "/_mockcdn/faults", rule);
  });
  $("faults-clear").addEventListener("click", () => faultCall("DELETE", "/_mockcdn/faults"));
  await refreshObjects();
  await tick();
  setInterval(tick, 1000);
}

document.addEventListener("DOMContentLoaded", () => start().catch((error) => say(error.message, true)));
