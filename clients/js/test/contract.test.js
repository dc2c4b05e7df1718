// The rest of the test-control contract against a real `mockcdn serve` (MOCKCDN_BINARY, else `mockcdn` on
// PATH): upload events (long poll), notification targets, webhook deliveries to a local receiver, vendor
// webhooks, and coverage reports. One server and one receiver for the file, the server reset before each test.
//
// Nothing here sleeps on real time: a poll is awaited, a webhook is awaited at the receiver, and the two
// things the server only shows a moment later (a long poll registered as waiting, a delivery attempt noted
// after its answer was read) are awaited by asking again until they show (each ask is a round trip; the
// deadline only bounds a failing run).

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

import { MockCDNError, startMockCDN } from '../index.js';

const FIXTURES = fileURLToPath(new URL('../../../Fixtures/media/', import.meta.url));
const PDF = readFileSync(FIXTURES + 'sample.pdf');
// The default app's credentials (`mockcdn serve` without a config file prints them).
const API_KEY = 'demo-key';
const API_SECRET = 'demo-secret-for-local-testing-only';
const QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:index';

/** Asks `probe` again until it returns something truthy; fails after `timeoutMs` (a failing run only). */
async function until(probe, what, timeoutMs = 10000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) assert.fail(`gave up waiting for ${what}`);
  }
}

/** A local HTTP server standing in for a backend's webhook endpoint: answers 200 and queues each request. */
async function startReceiver() {
  const queued = [];
  const waiting = [];
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      const hit = { method: request.method, path: request.url, headers: request.headers, body: Buffer.concat(chunks) };
      const waiter = waiting.shift();
      if (waiter) waiter(hit);
      else queued.push(hit);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    /** The next request not yet taken. */
    next() {
      return queued.length ? Promise.resolve(queued.shift()) : new Promise((resolve) => waiting.push(resolve));
    },
    /** Forget requests nobody took (a test's leftovers). */
    drop() {
      queued.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('MockCDN events, targets, deliveries, webhooks and reports', () => {
  let server;
  let receiver;

  before(async () => {
    server = await startMockCDN({ args: ['--log-level', 'warning', '--fixtures', FIXTURES] });
    receiver = await startReceiver();
  });

  after(async () => {
    await receiver?.close();
    if (server) assert.equal(await server.stop(), 0, 'mockcdn exits cleanly on SIGTERM');
  });

  beforeEach(async () => {
    await server.reset();
    receiver.drop();
  });

  /** A Stream file upload by alice (plain fetch); resolves to the key it stored within the app. */
  async function upload(name = 'doc.pdf') {
    const jwt = await server.token({ kind: 'user', userId: 'alice' });
    const form = new FormData();
    form.append('file', new Blob([PDF], { type: 'application/pdf' }), name);
    const response = await server.fetch(`/channels/messaging/general/file?api_key=${API_KEY}`, {
      method: 'POST',
      headers: { authorization: jwt, 'stream-auth-type': 'jwt' },
      body: form,
    });
    const text = await response.text();
    assert.equal(response.status, 201, text);
    const path = decodeURIComponent(new URL(JSON.parse(text).file).pathname);
    assert.match(path, /^\/demo\/attachments\/[0-9a-f-]{36}\//);
    return path.slice('/demo/'.length);
  }

  test('setNotificationTargets() replaces the targets, notificationTargets() reads them, a reset drops them', async () => {
    assert.deepEqual(await server.notificationTargets('demo'), { webhooks: [], queues: [], topics: [], lambdas: [] });
    const kept = await server.setNotificationTargets('demo', {
      webhooks: [{ url: `${receiver.url}/hooks/s3`, events: ['s3:ObjectCreated:*'], prefix: 'attachments/' }],
      queues: [{ id: 'index', arn: QUEUE_ARN, events: ['s3:ObjectCreated:*'], suffix: '.pdf' }],
    });
    assert.equal(kept.webhooks.length, 1);
    assert.equal(kept.webhooks[0].id, 'notification-1', 'a target without an id is given one');
    assert.equal(kept.webhooks[0].url, `${receiver.url}/hooks/s3`);
    assert.equal(kept.webhooks[0].prefix, 'attachments/');
    assert.deepEqual(kept.queues, [{ id: 'index', arn: QUEUE_ARN, events: ['s3:ObjectCreated:*'], suffix: '.pdf' }]);
    assert.deepEqual(kept.topics, []);
    assert.deepEqual(await server.notificationTargets('demo'), kept, 'GET answers what PUT kept');

    await server.reset();
    assert.deepEqual(await server.notificationTargets('demo'), { webhooks: [], queues: [], topics: [], lambdas: [] });
  });

  test('events({ wait }) is a long poll that answers with the upload, filtered by app and target', async () => {
    await server.setNotificationTargets('demo', {
      queues: [{ id: 'index', arn: QUEUE_ARN, events: ['s3:ObjectCreated:*'], suffix: '.pdf' }],
    });
    const start = await server.events();
    assert.deepEqual(Object.keys(start).sort(), ['events', 'last_id', 'waiting']);
    const last = start.last_id;

    const poll = server.events({ after: last, wait: 30, app: 'demo' });
    // The poll is in (the server counts it) before anything is uploaded: it can only answer by waking up.
    await until(async () => (await server.events()).waiting >= 1, 'the long poll to be waiting');
    const key = await upload();
    const answer = await poll;
    assert.equal(answer.events.length, 1, JSON.stringify(answer));
    const [event] = answer.events;
    assert.ok(event.id > last);
    assert.equal(answer.last_id, event.id);
    assert.equal(event.app, 'demo');
    assert.deepEqual(event.targets, ['index']);
    assert.deepEqual(event.arns, [QUEUE_ARN]);
    assert.equal(event.record.eventName, 'ObjectCreated:Put');
    assert.equal(event.record.s3.bucket.name, 'demo');
    assert.equal(event.record.s3.object.key, key);
    assert.equal(event.record.s3.object.size, PDF.length);
    assert.equal(event.record.s3.configurationId, '', 'read without target, no configuration id');

    const tagged = await server.events({ after: last, target: 'index' });
    assert.deepEqual(tagged.events.map((e) => [e.id, e.record.s3.configurationId]), [[event.id, 'index']]);
    assert.deepEqual((await server.events({ after: event.id })).events, [], '`after` is sent');
    assert.deepEqual((await server.events({ after: last, target: 'elsewhere' })).events, [], '`target` is sent');

    // `wait` is seconds, as the server takes it: 0.2 s with nothing to come answers an empty list, and not at once.
    const started = performance.now();
    const empty = await server.events({ after: event.id, wait: 0.2, app: 'demo' });
    assert.deepEqual(empty.events, []);
    assert.equal(empty.last_id, event.id);
    assert.ok(performance.now() - started >= 150, 'the server waited the 0.2 s out');
  });

  test('deliveries() records the attempt a webhook target received', async () => {
    await server.setNotificationTargets('demo', {
      webhooks: [{ id: 'hook', url: `${receiver.url}/hooks/s3`, events: ['s3:ObjectCreated:*'], suffix: '.pdf' }],
    });
    const key = await upload();
    const hit = await receiver.next();
    assert.equal(hit.method, 'POST');
    assert.equal(hit.path, '/hooks/s3');
    const { Records } = JSON.parse(hit.body.toString('utf8'));
    assert.equal(Records.length, 1);
    assert.equal(Records[0].s3.object.key, key);
    assert.equal(Records[0].s3.configurationId, 'hook');
    assert.equal(hit.headers['x-signature'], createHmac('sha256', API_SECRET).update(hit.body).digest('hex'));
    const delivery = hit.headers['x-mockcdn-delivery'];
    assert.match(delivery, /^d[1-9][0-9]*$/);

    // The attempt is noted once MockCDN has read the receiver's answer, a moment after the receiver saw it.
    const noted = await until(async () => {
      const { attempts } = await server.deliveries({ app: 'demo', target: 'hook' });
      return attempts.find((attempt) => attempt.delivery === delivery);
    }, `delivery ${delivery} in the journal`);
    assert.equal(noted.outcome, 'delivered');
    assert.equal(noted.status, 200);
    assert.equal(noted.attempt, 1);
    assert.equal(noted.url, `${receiver.url}/hooks/s3`);
    assert.equal(noted.key, key);
    assert.equal(noted.event_name, 'ObjectCreated:Put');
    assert.equal(noted.event_id, Number(hit.headers['x-mockcdn-event']));
    assert.equal(noted.next_attempt_at, null);

    const all = await server.deliveries();
    assert.deepEqual(Object.keys(all).sort(), ['attempts', 'pending']);
    assert.deepEqual(all.pending, []);
    assert.deepEqual((await server.deliveries({ target: 'elsewhere' })).attempts, [], '`target` is sent');
    assert.deepEqual((await server.deliveries({ app: 'demo' })).attempts, all.attempts);
    await assert.rejects(server.deliveries({ app: 'nosuch' }),
      (error) => error.status === 404 && /no app nosuch/.test(error.message), '`app` is sent');
  });

  test('sendWebhook() delivers a Stream message.new to the app\'s webhook_url', async () => {
    const serverToken = await server.token({ kind: 'server' });
    const settings = await server.fetch(`/app?api_key=${API_KEY}`, {
      method: 'PATCH',
      headers: { authorization: serverToken, 'stream-auth-type': 'jwt', 'content-type': 'application/json' },
      body: JSON.stringify({ webhook_url: `${receiver.url}/stream` }),
    });
    assert.equal(settings.status, 201, await settings.text());

    const sent = await server.sendWebhook({
      vendor: 'stream',
      event: 'message.new',
      message: { text: 'look', user: 'alice', channel: 'messaging:general' },
      keys: ['fixtures/sample.jpg'],
    });
    assert.equal(sent.deliveries.length, 1);
    const [queued] = sent.deliveries;
    assert.equal(queued.target, 'webhook_url');
    assert.equal(queued.url, `${receiver.url}/stream`);
    assert.equal(sent.payloads.length, 1);
    assert.equal(sent.payloads[0].type, 'message.new');
    assert.equal(sent.payloads[0].cid, 'messaging:general');

    const hit = await receiver.next();
    assert.equal(hit.path, '/stream');
    assert.equal(hit.headers['x-webhook-id'], queued.webhook_id);
    assert.equal(hit.headers['x-api-key'], API_KEY);
    assert.equal(hit.headers['x-signature'], createHmac('sha256', API_SECRET).update(hit.body).digest('hex'));
    const payload = JSON.parse(hit.body.toString('utf8'));
    assert.deepEqual(payload, sent.payloads[0], 'the payload answered is the one delivered');
    assert.equal(payload.message.user.id, 'alice');
    assert.equal(payload.message.attachments.length, 1);
    assert.match(payload.message.attachments[0].image_url, /\/demo\/fixtures\/sample\.jpg\?/);

    const noted = await until(async () => {
      const { attempts } = await server.deliveries({ target: 'webhook_url' });
      return attempts.find((attempt) => attempt.delivery === queued.delivery);
    }, `delivery ${queued.delivery} in the journal`);
    assert.equal(noted.event_name, 'message.new');
    assert.equal(noted.event_id, null);
    assert.equal(noted.key, 'fixtures/sample.jpg');
    assert.equal(noted.outcome, 'delivered');
  });

  test('report() counts what ran, and mergeReports() adds reports up', async () => {
    const row = (report, id) => report.surfaces.flatMap((surface) => surface.rows).find((r) => r.id === id);
    const empty = await server.report();
    assert.equal(empty.entries, 0);
    assert.equal(empty.rows_covered, 0);
    assert.equal(empty.since, null);
    assert.ok(empty.rows_total > 0);

    await upload();
    const [firstId] = (await server.requests()).map((entry) => entry.id);
    const first = await server.report();
    assert.equal(first.entries, 1);
    assert.deepEqual(row(first, 'stream.upload.file'), { ...row(first, 'stream.upload.file'), covered: true, count: 1, example: firstId });
    assert.equal(row(first, 'stream.credential.jwt').count, 1);
    assert.equal(row(first, 'stream.upload.image').count, 0);
    assert.equal(first.rows_covered, 2);

    // A test session fetches a report before each reset (which empties the journal) and adds them up at the end.
    await server.reset();
    await upload('a.pdf');
    await upload('b.pdf');
    const ids = (await server.requests()).map((entry) => entry.id);
    assert.equal(ids.length, 2);
    const second = await server.report();
    assert.equal(row(second, 'stream.upload.file').count, 2);
    const since = await server.report({ since: ids[1] });
    assert.equal(since.since, ids[1]);
    assert.equal(since.entries, 1);
    assert.deepEqual([row(since, 'stream.upload.file').count, row(since, 'stream.upload.file').example], [1, ids[1]]);

    const merged = await server.mergeReports([first, second]);
    assert.equal(merged.entries, 3);
    assert.equal(row(merged, 'stream.upload.file').count, 3);
    assert.equal(row(merged, 'stream.upload.file').example, firstId, 'the first example is kept');
    assert.equal(merged.rows_covered, 2);

    const markdown = await server.report({ format: 'markdown' });
    assert.equal(typeof markdown, 'string');
    assert.match(markdown, /^# MockCDN contract coverage/);
    assert.match(markdown, /\| `stream\.upload\.file` \| File upload \| 2 \|/);
    const junit = await server.report({ format: 'junit' });
    assert.match(junit, /^<\?xml /);
    assert.match(junit, /<testcase classname="mockcdn\.stream" name="stream\.upload\.file"/);
    const mergedMarkdown = await server.mergeReports([first, second], { format: 'markdown' });
    assert.match(mergedMarkdown, /\| `stream\.upload\.file` \| File upload \| 3 \|/);
    assert.match(await server.mergeReports([first], { format: 'junit' }), /<testsuites /);
  });

  test('bad input rejects with MockCDNError carrying the server\'s status', async () => {
    const refused = (status, message) => (error) => {
      assert.ok(error instanceof MockCDNError, String(error));
      assert.equal(error.status, status);
      assert.match(error.body.error.message, message);
      assert.match(error.message, new RegExp(` ${status}`));
      return true;
    };
    await assert.rejects(server.events({ app: 'nosuch' }), refused(404, /no app nosuch/));
    await assert.rejects(server.events({ wait: 61 }), refused(400, /wait must be 0\.\.\.60 seconds/));
    await assert.rejects(server.notificationTargets('nosuch'), refused(404, /no app nosuch/));
    await assert.rejects(server.setNotificationTargets('nosuch', { webhooks: [] }), (error) => {
      assert.equal(error.method, 'PUT');
      return refused(404, /no app nosuch/)(error);
    });
    await assert.rejects(
      server.setNotificationTargets('demo', { webhooks: [{ url: 'ftp://example.com/hook', events: ['s3:ObjectCreated:*'] }] }),
      refused(400, /webhooks: url must be an http:\/\/ or https:\/\/ URL with a host/),
    );
    await assert.rejects(server.setNotificationTargets('demo', { webhookz: [] }), refused(400, /unknown member webhookz/));
    await assert.rejects(
      server.setNotificationTargets('demo', { webhooks: [{ url: `${server.url}/_mockcdn/reset`, events: ['s3:ObjectCreated:*'] }] }),
      refused(400, /own control route/),
    );
    assert.deepEqual((await server.notificationTargets('demo')).webhooks, [], 'nothing of a refused PUT is kept');
    // An unknown filter is 400: deliveries() sends app and target only, and no `undefined` of one left out.
    assert.deepEqual(await server.deliveries({ app: 'demo', bogus: 1, target: undefined }), { attempts: [], pending: [] });
    await assert.rejects(
      server.sendWebhook({ vendor: 'smoke-signals', event: 'message.new', message: { user: 'alice' } }),
      refused(400, /vendor must be stream or cometchat/),
    );
    await assert.rejects(
      server.sendWebhook({ vendor: 'stream', event: 'message.new', message: { user: 'alice', channel: 'messaging:general' } }),
      refused(422, /has no Stream webhook for message\.new/),
    );
    await assert.rejects(server.report({ format: 'yaml' }), refused(400, /format must be json, markdown or junit/));
    await assert.rejects(server.report({ since: 'yesterday' }), refused(400, /since must be a journal entry id/));
    await assert.rejects(server.mergeReports([{ percent: 100 }]), refused(400, /expected shape/));
  });
});
