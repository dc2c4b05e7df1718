// MockCDN test helper: start `mockcdn serve` (Node) or attach to a running server (Node, browsers), then
// drive its test-control API (/_mockcdn: clock, tokens, journal, verify, faults, reset, upload events and their
// notification targets, webhook deliveries, vendor webhooks, coverage reports).
//
// One ES module, no dependencies: the built-in `fetch` (Node 18+, browsers). Node's child_process is
// imported dynamically, by startMockCDN only, so the module loads in a browser too.

const READY = /^mockcdn ready on (https?):\/\/(\[[^\]]+\]|[^:/\s]+):(\d+)/;
const CONTROL = '/_mockcdn';
/** What GET and POST /_mockcdn/report answer for each `format`. */
const REPORT_TYPES = { json: 'application/json', markdown: 'text/markdown', junit: 'application/xml' };

/** Every failure of this module: an HTTP answer that is not 2xx (`status`, `body`), or `status` 0 when
 * there was no answer at all (the server could not be started, reached or stopped). */
export class MockCDNError extends Error {
  constructor(message, { status = 0, body = null, method, url, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'MockCDNError';
    this.status = status;
    this.body = body;
    this.method = method;
    this.url = url;
  }
}

/** An expectation verify() found unmet (POST /_mockcdn/verify answered 409). The message is the server's
 * near-miss report: each unmet expectation, what fell short, and the journal entries that came closest with
 * what differed; `result` is the whole answer. A MockCDNError with `status` 409, so one catch takes both. */
export class VerificationError extends MockCDNError {
  constructor(report, { result, method, url } = {}) {
    super(report, { status: 409, body: result, method, url });
    this.name = 'VerificationError';
    this.report = report;
    this.result = result;
  }
}

function env() {
  return globalThis.process?.env ?? {};
}

function trimURL(url) {
  const text = String(url instanceof URL ? url.href : url);
  if (!/^https?:\/\//i.test(text)) throw new MockCDNError(`not an http(s) URL: ${text}`);
  return text.replace(/\/+$/, '');
}

function parseBody(text, response) {
  if (text === '') return null;
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function unixSeconds(value) {
  if (value instanceof Date) return Math.floor(value.getTime() / 1000);
  return value; // a number of Unix seconds, or an ISO 8601 string the server parses
}

/** A client of one MockCDN server. Made by startMockCDN() or connect(). */
export class MockCDNClient {
  #process;
  #exited;

  constructor(url, { adminToken, process, exited } = {}) {
    /** The server's base URL, without a trailing slash, e.g. `http://127.0.0.1:41725`. */
    this.url = trimURL(url);
    /** The bearer token sent on /_mockcdn routes (needed when the server binds a non-loopback address). */
    this.adminToken = adminToken || undefined;
    this.#process = process;
    this.#exited = exited;
  }

  /** The spawned ChildProcess (startMockCDN only), else undefined. */
  get process() {
    return this.#process;
  }

  /** A plain fetch of a path on the server (or an absolute URL); never throws on an HTTP status and never
   * adds the admin token, so media routes see exactly the credentials given. */
  fetch(path, init) {
    const target = /^https?:\/\//i.test(path) ? path : this.url + (path.startsWith('/') ? '' : '/') + path;
    return fetch(target, init);
  }

  /** One control request; resolves to the parsed answer, or its text with `text`. */
  async #control(method, path, { body, query, text: asText = false, accept = 'application/json' } = {}) {
    let url = this.url + CONTROL + path;
    if (query) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (value !== undefined && value !== null) params.set(name, String(value));
      }
      const text = params.toString();
      if (text) url += '?' + text;
    }
    const headers = { accept };
    if (method === 'POST' || method === 'PUT') headers['content-type'] = 'application/json';
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    let response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new MockCDNError(`MockCDN ${method} ${CONTROL}${path}: no answer from ${this.url} (${error?.cause?.code ?? error?.message ?? error})`, {
        method,
        url,
        cause: error,
      });
    }
    const text = await response.text();
    const parsed = parseBody(text, response);
    if (!response.ok) {
      const reason = parsed?.error?.message ?? (typeof parsed === 'string' ? parsed : JSON.stringify(parsed));
      throw new MockCDNError(`MockCDN ${method} ${CONTROL}${path} answered ${response.status}${reason ? `: ${reason}` : ''}`, {
        status: response.status,
        body: parsed,
        method,
        url,
      });
    }
    return asText ? text : parsed;
  }

  /** GET /_mockcdn/health: `{status, instance, store}`. */
  health() {
    return this.#control('GET', '/health');
  }

  /** POST /_mockcdn/tokens: a FAT (default) or Stream JWT minted at the server's clock; the token string. */
  async token({ kind = 'fat', userId, appId = 'demo', ttl } = {}) {
    const body = { kind, app_id: appId };
    if (userId !== undefined) body.user_id = userId;
    if (ttl !== undefined) body.ttl = ttl;
    const minted = await this.#control('POST', '/tokens', { body });
    return minted.token;
  }

  /** GET /_mockcdn/clock: the server clock, Unix seconds. */
  async now() {
    return (await this.#control('GET', '/clock')).now;
  }

  /** PUT /_mockcdn/clock: set the clock (Unix seconds, a Date or an ISO 8601 string); the new now. */
  async setClock(unix) {
    return (await this.#control('PUT', '/clock', { body: { now: unixSeconds(unix) } })).now;
  }

  /** POST /_mockcdn/clock/advance: move the clock by `seconds` (negative: back); the new now. */
  async advance(seconds) {
    return (await this.#control('POST', '/clock/advance', { body: { seconds } })).now;
  }

  /** POST /_mockcdn/faults: install a rule `{match?, times?, probability?, action}`; its id (`f1`, ...). */
  async addFault(rule) {
    return (await this.#control('POST', '/faults', { body: rule })).id;
  }

  /** GET /_mockcdn/faults: every rule, in creation order, with `remaining` and `hits`. */
  async faults() {
    return (await this.#control('GET', '/faults')).faults;
  }

  /** DELETE /_mockcdn/faults/{id}. */
  async removeFault(id) {
    await this.#control('DELETE', `/faults/${encodeURIComponent(id)}`);
  }

  /** DELETE /_mockcdn/faults: every rule. */
  async clearFaults() {
    await this.#control('DELETE', '/faults');
  }

  /** GET /_mockcdn/requests: the journal, oldest first, filtered by method, path prefix and status. */
  async requests({ method, path, status } = {}) {
    return (await this.#control('GET', '/requests', { query: { method, path, status } })).requests;
  }

  /** POST /_mockcdn/verify: check the journal against expectations (each with any of `method`, `path` glob,
   * `query`, `credential`, `status` and `count`); resolves to the ids each matched. An unmet one rejects
   * with a VerificationError whose message is the near-miss report. */
  async verify(expectations, { ordered, since } = {}) {
    const body = { expectations };
    if (ordered) body.ordered = true;
    if (since !== undefined) body.since = since;
    try {
      return (await this.#control('POST', '/verify', { body })).expectations.map((outcome) => outcome.matched);
    } catch (error) {
      if (!(error instanceof MockCDNError) || error.status !== 409 || typeof error.body?.report !== 'string') throw error;
      throw new VerificationError(error.body.report, { result: error.body, method: error.method, url: error.url });
    }
  }

  /** DELETE /_mockcdn/requests: empty the journal. */
  async clearRequests() {
    await this.#control('DELETE', '/requests');
  }

  /** POST /_mockcdn/reset: objects, journal, faults, clock, ... back to the startup state. */
  async reset() {
    await this.#control('POST', '/reset');
  }

  /** GET /_mockcdn/events: the upload event queue, `{events, last_id, waiting}` (docs/events.md). Only the
   * options given are sent: `after` (only events with a greater id), `wait` (seconds, 0-60, fractions
   * allowed: a long poll that answers as soon as one event passes the filters, or an empty list when the
   * wait runs out), `app`, `target` (a notification target's id or ARN). `last_id` is the next poll's `after`. */
  events({ after, wait, app, target } = {}) {
    return this.#control('GET', '/events', { query: { after, wait, app, target } });
  }

  /** GET /_mockcdn/apps/{app}/notifications: the app's targets, `{webhooks, queues, topics, lambdas}`. */
  notificationTargets(app) {
    return this.#control('GET', `/apps/${encodeURIComponent(app)}/notifications`);
  }

  /** PUT /_mockcdn/apps/{app}/notifications: replace every target of the app (until the next reset) with the
   * document `{webhooks?, queues?, topics?, lambdas?}`, each target `{id?, url | arn, events, prefix?, suffix?}`;
   * resolves to the targets as kept (a target without an `id` is given one). */
  setNotificationTargets(app, targets) {
    return this.#control('PUT', `/apps/${encodeURIComponent(app)}/notifications`, { body: targets });
  }

  /** GET /_mockcdn/deliveries: every webhook delivery attempt and the pending ones, `{attempts, pending}`,
   * filtered by `app` (an unknown one rejects, 404) and `target` (a target's id). */
  deliveries({ app, target } = {}) {
    return this.#control('GET', '/deliveries', { query: { app, target } });
  }

  /** POST /_mockcdn/webhooks: send a vendor-shaped webhook (`{app?, vendor, event, message, keys?}`,
   * docs/webhooks.md) to the URLs the app configured; resolves to the 202 answer `{deliveries, payloads}`. */
  sendWebhook(body) {
    return this.#control('POST', '/webhooks', { body });
  }

  /** GET /_mockcdn/report: the contract coverage report of the journal (docs/report.md), the parsed object for
   * `format` `json` (default), the text for `markdown` and `junit`; `since` (`r12`) reads from that entry on. */
  async report({ format = 'json', since } = {}) {
    return this.#report('GET', format, { query: { format, since: since || undefined } });
  }

  /** POST /_mockcdn/report: several JSON reports (fetched before resets) added up row by row and rendered by the
   * server; the parsed object for `format` `json` (default), the text for `markdown` and `junit`. */
  async mergeReports(reports, { format = 'json' } = {}) {
    return this.#report('POST', format, { query: { format }, body: { reports: Array.from(reports) } });
  }

  async #report(method, format, options) {
    const json = format === 'json';
    const accept = Object.hasOwn(REPORT_TYPES, format) ? REPORT_TYPES[format] : '*/*';
    const text = await this.#control(method, '/report', { ...options, text: true, accept });
    if (!json) return text;
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new MockCDNError(`MockCDN ${method} ${CONTROL}/report: the answer is not JSON`, { status: 200, body: text, method, cause: error });
    }
  }

  /** Stop a server startMockCDN() spawned: SIGTERM, then wait for it to exit (SIGKILL after
   * `timeoutMs`, and reject). Resolves to the exit code (0 for a clean stop). Safe to call twice. */
  async stop({ timeoutMs = 20000 } = {}) {
    const child = this.#process;
    if (!child) throw new MockCDNError('stop(): this client did not start its server (use startMockCDN in Node)');
    const exited = this.#exited;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    let timer;
    const timeout = new Promise((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const result = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') {
      child.kill('SIGKILL');
      await exited;
      throw new MockCDNError(`mockcdn (pid ${child.pid}) did not exit within ${timeoutMs} ms of SIGTERM; killed`);
    }
    return result.code ?? result.signal;
  }
}

/** Attach to a running MockCDN (a server started elsewhere, a container): waits until
 * /_mockcdn/health answers (up to `timeoutMs`), then resolves to a client. `adminToken` defaults to
 * the `MOCKCDN_ADMIN_TOKEN` environment variable in Node. */
export async function connect(url, { adminToken, timeoutMs = 10000 } = {}) {
  const client = new MockCDNClient(url, { adminToken: adminToken ?? env().MOCKCDN_ADMIN_TOKEN });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client.health();
      return client;
    } catch (error) {
      if (error.status !== 0 || Date.now() >= deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function hostForClient(host) {
  // A wildcard bind is reached on loopback.
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '[::]') return '[::1]';
  return host;
}

function flagValue(args, name) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name) return args[i + 1];
    if (args[i].startsWith(name + '=')) return args[i].slice(name.length + 1);
  }
  return undefined;
}

/** The binary `startMockCDN` runs: `binary`, else `MOCKCDN_BINARY`, else `$MOCKCDN_HOME/bin/mockcdn` (an
 * unpacked release tarball's folder), else `mockcdn` on PATH; as the Python and Java helpers look it up. */
function binaryCommand(binary, environment) {
  if (binary) return binary;
  if (environment.MOCKCDN_BINARY) return environment.MOCKCDN_BINARY;
  if (environment.MOCKCDN_HOME) return `${environment.MOCKCDN_HOME.replace(/\/+$/, '')}/bin/mockcdn`;
  return 'mockcdn';
}

/** Spawn `mockcdn serve --port 0 ...args` (Node only) and resolve to a client once its ready line is
 * read. The binary is `binary`, else `MOCKCDN_BINARY`, else `$MOCKCDN_HOME/bin/mockcdn`, else `mockcdn` on
 * PATH; `env` is added to the environment (and counts for that look-up). A generated admin token
 * (non-loopback binds) is read from the output. */
export async function startMockCDN({ binary, args = [], env: extraEnv = {}, adminToken, timeoutMs = 30000 } = {}) {
  let spawn;
  try {
    ({ spawn } = await import('node:child_process'));
  } catch (error) {
    throw new MockCDNError('startMockCDN needs Node (node:child_process); in a browser use connect(url)', { cause: error });
  }
  const command = binaryCommand(binary, { ...env(), ...extraEnv });
  const flags = ['serve', ...(args.some((a) => a === '--port' || a.startsWith('--port=')) ? [] : ['--port', '0']), ...args];
  const child = spawn(command, flags, {
    env: { ...env(), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  // Kill the server with this process if nobody stopped it (a crashed test run leaves no orphan).
  const onExit = () => child.kill('SIGTERM');
  globalThis.process.once('exit', onExit);
  exited.then(() => globalThis.process.removeListener('exit', onExit));

  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-8192); // keep the tail for error messages, drain the rest
  });

  const banner = await new Promise((resolve, reject) => {
    let buffered = '';
    const lines = [];
    let readyAt = -1;
    let grace;
    const finish = (error) => {
      clearTimeout(timer);
      clearTimeout(grace);
      child.stdout.removeListener('data', onData);
      child.removeListener('error', onError);
      child.removeListener('close', onClose);
      child.stdout.resume(); // keep draining stdout so the server never blocks on it
      if (error) reject(error);
      else resolve(lines);
    };
    const fail = (message, cause) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      const tail = stderr.trim() ? `\n${stderr.trim()}` : '';
      finish(new MockCDNError(`${message}${tail}`, { body: stderr || null, cause }));
    };
    const onData = (chunk) => {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        if (readyAt < 0 && READY.test(line)) {
          readyAt = lines.length - 1;
          // The banner ends with `apps=...`; wait for it briefly (it names a generated admin token).
          grace = setTimeout(() => finish(), 1000);
        }
        if (readyAt >= 0 && line.startsWith('apps=')) return finish();
      }
    };
    const onError = (error) =>
      fail(error.code === 'ENOENT' ? `MockCDN binary not found: ${command} (pass binary, or set MOCKCDN_BINARY or MOCKCDN_HOME)` : `could not start ${command}: ${error.message}`, error);
    const onClose = (code, signal) =>
      readyAt >= 0 ? finish() : fail(`${command} exited (${code ?? signal}) before its ready line`);
    const timer = setTimeout(() => fail(`${command} printed no ready line within ${timeoutMs} ms`), timeoutMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('error', onError);
    child.once('close', onClose);
  });

  const ready = banner.find((line) => READY.test(line));
  const [, scheme, host, port] = READY.exec(ready);
  const generated = banner.find((line) => line.startsWith('admin_token='))?.slice('admin_token='.length);
  const token = adminToken ?? generated ?? flagValue(args, '--admin-token') ?? extraEnv.MOCKCDN_ADMIN_TOKEN ?? env().MOCKCDN_ADMIN_TOKEN;
  return new MockCDNClient(`${scheme}://${hostForClient(host)}:${port}`, { adminToken: token, process: child, exited });
}
