// The test-control API against a real `mockcdn serve` (MOCKCDN_BINARY, else `mockcdn` on PATH): one server
// for the file, reset before each test.

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { MockCDNError, startMockCDN } from '../index.js';

const FIXTURES = fileURLToPath(new URL('../../../Fixtures/media/', import.meta.url));
const SAMPLE = '/demo/fixtures/sample.png';
const SAMPLE_BYTES = readFileSync(FIXTURES + 'sample.png');

/** The JSON payload of a File Access Token (`<base64 payload>.<base64 MAC>`). */
function fatPayload(fat) {
  return JSON.parse(Buffer.from(fat.split('.')[0], 'base64').toString('utf8'));
}

describe('MockCDN test control', () => {
  let server;

  before(async () => {
    server = await startMockCDN({ args: ['--log-level', 'warning', '--fixtures', FIXTURES] });
  });

  after(async () => {
    if (server) assert.equal(await server.stop(), 0, 'mockcdn exits cleanly on SIGTERM');
  });

  beforeEach(() => server.reset());

  async function read(headers = {}, path = SAMPLE) {
    const response = await server.fetch(path, { headers });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), response };
  }

  test('startMockCDN spawns the server on a free port and reads its ready line', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(server.url).port, '0');
    assert.equal(typeof server.process.pid, 'number');
    assert.equal(server.process.exitCode, null, 'the server is running');
    assert.equal(server.adminToken, undefined, 'a loopback bind prints no admin token');
    const health = await server.health();
    assert.equal(health.status, 'ok');
    assert.match(health.instance, /^[0-9a-f]{12}$/);
  });

  test('token() mints a FAT at the server clock, valid for its ttl', async () => {
    const future = Math.floor(Date.now() / 1000) + 10 * 86400;
    assert.equal(await server.setClock(future), future);
    const fat = await server.token({ userId: 'alice', ttl: 600 });
    assert.equal(typeof fat, 'string');
    const payload = fatPayload(fat);
    assert.equal(payload.app, 'demo');
    assert.equal(payload.uid, 'alice');
    assert.ok(Math.abs(payload.iat - future) <= 2, `iat ${payload.iat} is the server clock ${future}, not real time`);
    assert.equal(payload.exp, payload.iat + 600);

    assert.equal((await read({ fat })).status, 200, 'the FAT reads at the moved clock');
    const moved = await server.advance(601);
    assert.ok(moved > payload.exp, 'the clock is past the ttl');
    assert.equal((await read({ fat })).status, 403, 'past its ttl the FAT is refused');
  });

  test('token() mints Stream JWTs too', async () => {
    const jwt = await server.token({ kind: 'user', userId: 'bob', ttl: 60 });
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
    assert.equal(claims.user_id, 'bob');
    assert.equal(claims.exp - claims.iat, 60);
  });

  test('a signed read returns the fixture, byte for byte', async () => {
    const fat = await server.token({ userId: 'alice' });
    const { status, bytes, response } = await read({ fat });
    assert.equal(status, 200);
    assert.equal(response.headers.get('content-type'), 'image/png');
    assert.equal(bytes.length, SAMPLE_BYTES.length);
    assert.ok(bytes.equals(SAMPLE_BYTES), 'the body is the file on disk');

    assert.equal((await read({})).status, 401, 'without a credential the same read is refused');
  });

  test('a clock jump expires the FAT, and moving it back revives it', async () => {
    const issued = await server.now();
    const fat = await server.token({ userId: 'alice', ttl: 60 });
    assert.equal((await read({ fat })).status, 200);

    await server.advance(3600);
    const expired = await read({ fat });
    assert.equal(expired.status, 403);
    assert.match(expired.bytes.toString('utf8'), /expired/);

    await server.setClock(issued);
    assert.equal((await read({ fat })).status, 200, 'the same FAT reads again at its issue time');
  });

  test('a fault makes the read answer 503 until it is removed', async () => {
    const fat = await server.token({ userId: 'alice' });
    assert.equal((await read({ fat })).status, 200, 'before the fault');

    const id = await server.addFault({
      match: { method: 'GET', path: SAMPLE },
      action: { status: 503, body: 'try again later' },
    });
    assert.match(id, /^f[1-9][0-9]*$/);
    let [rule] = await server.faults();
    assert.equal(rule.id, id);
    assert.equal(rule.hits, 0);
    assert.equal(rule.remaining, null);
    assert.deepEqual(rule.match, { method: 'GET', path: SAMPLE });

    const faulted = await read({ fat });
    assert.equal(faulted.status, 503);
    assert.equal(faulted.bytes.toString('utf8'), 'try again later');
    assert.equal((await read({ fat }, '/demo/fixtures/sample.jpg')).status, 200, 'another path is not matched');
    [rule] = await server.faults();
    assert.equal(rule.hits, 1);

    await server.removeFault(id);
    assert.deepEqual(await server.faults(), []);
    const healed = await read({ fat });
    assert.equal(healed.status, 200, 'after the fault is removed');
    assert.ok(healed.bytes.equals(SAMPLE_BYTES));
  });

  test('a fault with times runs out', async () => {
    const fat = await server.token({ userId: 'alice' });
    await server.addFault({ match: { path: '/demo/fixtures/' }, times: 1, action: { status: 500 } });
    assert.equal((await read({ fat })).status, 500);
    assert.equal((await read({ fat })).status, 200);
    const [rule] = await server.faults();
    assert.equal(rule.remaining, 0);
    await server.clearFaults();
    assert.deepEqual(await server.faults(), []);
  });

  test('the journal records reads with their status, and filters', async () => {
    const fat = await server.token({ userId: 'alice' });
    await read({ fat });
    await read({});
    await read({}, `${SAMPLE}?fat=${encodeURIComponent(fat)}`);

    const all = await server.requests({ path: SAMPLE });
    assert.deepEqual(
      all.map((r) => [r.method, r.status, r.credential]),
      [
        ['GET', 200, 'fat-header'],
        ['GET', 401, 'none'],
        ['GET', 200, 'fat-query'],
      ],
      'oldest first, each with its status and credential source',
    );
    assert.equal(all[0].bytes_out, SAMPLE_BYTES.length);
    assert.equal(all[0].fault, null);
    assert.equal(all[2].query, 'fat=REDACTED', 'the token never reaches the journal');

    const refused = await server.requests({ status: 401 });
    assert.equal(refused.length, 1);
    assert.equal(refused[0].id, all[1].id);
    assert.equal((await server.requests({ method: 'GET', path: SAMPLE, status: 200 })).length, 2);
    assert.deepEqual(await server.requests({ method: 'POST' }), []);

    await server.clearRequests();
    assert.deepEqual(await server.requests(), []);
  });

  test('a faulted read is journaled with the rule id', async () => {
    const id = await server.addFault({ match: { path: SAMPLE }, action: { status: 503 } });
    await read({});
    const [entry] = await server.requests({ path: SAMPLE });
    assert.equal(entry.status, 503);
    assert.equal(entry.fault, id);
  });

  test('reset() clears the journal and the faults and puts the clock back', async () => {
    const real = () => Math.floor(Date.now() / 1000);
    await server.advance(30 * 86400);
    await server.addFault({ match: { path: '/nowhere' }, action: { status: 418 } });
    await read({});
    assert.equal((await server.faults()).length, 1);
    assert.equal((await server.requests()).length, 1);
    assert.ok((await server.now()) - real() > 29 * 86400);

    await server.reset();
    assert.deepEqual(await server.faults(), []);
    assert.deepEqual(await server.requests(), []);
    assert.ok(Math.abs((await server.now()) - real()) <= 5, 'the clock is back at system time');
  });

  test('failures reject with MockCDNError carrying status and body', async () => {
    await assert.rejects(server.token({ kind: 'bogus', userId: 'alice' }), (error) => {
      assert.ok(error instanceof MockCDNError);
      assert.ok(error instanceof Error);
      assert.equal(error.name, 'MockCDNError');
      assert.equal(error.status, 400);
      assert.equal(error.method, 'POST');
      assert.match(error.body.error.message, /kind/);
      assert.match(error.message, /400/);
      return true;
    });
    await assert.rejects(server.removeFault('f999999'), { name: 'MockCDNError', status: 404 });
    await assert.rejects(server.requests({ status: 42 }), { name: 'MockCDNError', status: 400 });
    await assert.rejects(server.addFault({ match: { methd: 'GET' }, action: { status: 503 } }), (error) => {
      assert.equal(error.status, 400);
      assert.match(error.body.error.message, /methd/);
      return true;
    });
  });
});
