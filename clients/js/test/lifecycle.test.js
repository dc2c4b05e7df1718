// Starting and stopping the binary, start-up failures, and attach mode (connect) with and without the admin
// token, against a real `mockcdn serve` (MOCKCDN_BINARY, else `mockcdn` on PATH).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { MockCDNClient, MockCDNError, connect, startMockCDN } from '../index.js';

const FIXTURES = fileURLToPath(new URL('../../../Fixtures/media/', import.meta.url));
const QUIET = ['--log-level', 'warning'];

test('stop() sends SIGTERM, waits for a clean exit, and the port stops answering', async () => {
  const server = await startMockCDN({ args: [...QUIET, '--fixtures', 'none'] });
  assert.equal((await server.health()).status, 'ok');
  const { pid } = server.process;
  assert.equal(await server.stop(), 0, 'exit code 0 after SIGTERM');
  assert.equal(server.process.exitCode, 0);
  assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, 'the process is gone');
  assert.equal(await server.stop(), 0, 'a second stop() is harmless');

  await assert.rejects(server.health(), (error) => error instanceof MockCDNError && error.status === 0);
  // The process is gone (checked above), so nothing can answer however long connect() keeps trying: its 300 ms
  // only ends the retries sooner, and the outcome does not depend on it (no margin).
  await assert.rejects(connect(server.url, { timeoutMs: 300 }), { name: 'MockCDNError', status: 0 });
});

test('startMockCDN rejects with MockCDNError when the binary is missing', async () => {
  await assert.rejects(startMockCDN({ binary: '/nonexistent/mockcdn' }), (error) => {
    assert.ok(error instanceof MockCDNError);
    assert.equal(error.status, 0);
    assert.match(error.message, /not found: \/nonexistent\/mockcdn/);
    return true;
  });
});

test('startMockCDN rejects with the server\'s reason when it refuses its flags', async () => {
  await assert.rejects(startMockCDN({ args: [...QUIET, '--journal-size', '0'] }), (error) => {
    assert.ok(error instanceof MockCDNError);
    assert.match(error.message, /before its ready line/);
    assert.match(error.message, /journal/i, 'the server\'s stderr is in the message');
    return true;
  });
});

test('env is passed to the server', async () => {
  const server = await startMockCDN({ args: [...QUIET, '--fixtures', 'none'], env: { MOCKCDN_JOURNAL_SIZE: '1' } });
  try {
    await server.fetch('/first');
    await server.fetch('/second');
    const journal = await server.requests();
    assert.deepEqual(journal.map((entry) => entry.path), ['/second'], 'MOCKCDN_JOURNAL_SIZE=1 keeps one request');
  } finally {
    await server.stop();
  }
});

test('connect() attaches to a running server, with the admin token off loopback', async () => {
  // A wildcard bind, as in a container: the control routes need the admin token the server prints.
  const server = await startMockCDN({ args: [...QUIET, '--host', '0.0.0.0', '--fixtures', FIXTURES] });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/, 'a wildcard bind is reached on loopback');
    assert.ok(server.adminToken && server.adminToken.length >= 16, 'the generated admin token was read');

    const anonymous = await connect(server.url + '/', { adminToken: '' });
    assert.ok(anonymous instanceof MockCDNClient);
    assert.equal(anonymous.url, server.url, 'the trailing slash is dropped');
    assert.equal(anonymous.process, undefined);
    assert.equal((await anonymous.health()).status, 'ok', 'health is open without the token');
    await assert.rejects(anonymous.now(), { name: 'MockCDNError', status: 401 });
    await assert.rejects(anonymous.stop(), MockCDNError, 'an attached client cannot stop the server');

    const attached = await connect(server.url, { adminToken: server.adminToken });
    const before = await server.now();
    const moved = await attached.advance(7200);
    assert.ok(moved - before >= 7200 && moved - before <= 7205);
    assert.ok(Math.abs((await server.now()) - moved) <= 2, 'both clients see one clock');

    const fat = await attached.token({ userId: 'carol', ttl: 60 });
    const id = await attached.addFault({ match: { path: '/demo/fixtures/sample.jpg' }, action: { status: 502 } });
    assert.deepEqual((await server.faults()).map((rule) => rule.id), [id]);
    assert.equal((await attached.fetch('/demo/fixtures/sample.jpg', { headers: { fat } })).status, 502);
    assert.equal((await attached.fetch('/demo/fixtures/sample.png', { headers: { fat } })).status, 200);
    const journal = await attached.requests({ path: '/demo/fixtures/' });
    assert.deepEqual(journal.map((entry) => entry.status), [502, 200]);

    await attached.reset();
    assert.deepEqual(await server.faults(), []);
    assert.deepEqual(await server.requests(), []);
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test('MOCKCDN_HOME names an unpacked release folder: its bin/mockcdn is started when no binary is named', async (t) => {
  const real = process.env.MOCKCDN_BINARY;
  if (!real) return t.skip('needs MOCKCDN_BINARY to stand in for a release folder\'s binary');
  const { mkdtempSync, mkdirSync, symlinkSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join, resolve } = await import('node:path');
  const home = mkdtempSync(join(tmpdir(), 'mockcdn-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(home, 'bin'));
  symlinkSync(resolve(real), join(home, 'bin', 'mockcdn'));

  const server = await startMockCDN({ args: [...QUIET, '--fixtures', 'none'], env: { MOCKCDN_BINARY: '', MOCKCDN_HOME: home } });
  try {
    assert.equal(server.process.spawnfile, join(home, 'bin', 'mockcdn'));
    assert.equal((await server.health()).status, 'ok');
  } finally {
    assert.equal(await server.stop(), 0);
  }

  // A folder without the binary is named in the refusal, with the variables that choose one.
  const empty = mkdtempSync(join(tmpdir(), 'mockcdn-home-'));
  t.after(() => rmSync(empty, { recursive: true, force: true }));
  await assert.rejects(startMockCDN({ env: { MOCKCDN_BINARY: '', MOCKCDN_HOME: empty + '/' } }), (error) => {
    assert.ok(error instanceof MockCDNError);
    assert.equal(error.message, `MockCDN binary not found: ${empty}/bin/mockcdn (pass binary, or set MOCKCDN_BINARY or MOCKCDN_HOME)`);
    return true;
  });
});
