// verify() against a real `mockcdn serve` (MOCKCDN_BINARY, else `mockcdn` on PATH): the ids of met
// expectations, and an unmet one rejecting with a VerificationError whose message is the near-miss report.

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';

import { MockCDNError, VerificationError, startMockCDN } from '../index.js';

const FIXTURES = fileURLToPath(new URL('../../../Fixtures/media/', import.meta.url));
const SAMPLE = '/demo/fixtures/sample.png';

describe('MockCDN verify', () => {
  let server;

  before(async () => {
    server = await startMockCDN({ args: ['--log-level', 'warning', '--fixtures', FIXTURES] });
  });

  after(async () => {
    if (server) assert.equal(await server.stop(), 0, 'mockcdn exits cleanly on SIGTERM');
  });

  beforeEach(() => server.reset());

  test('met expectations resolve to the ids of the entries they matched', async () => {
    const fat = await server.token({ userId: 'alice' });
    assert.equal((await server.fetch(SAMPLE, { headers: { fat } })).status, 200);
    assert.equal((await server.fetch(`${SAMPLE}?fat=${encodeURIComponent(fat)}`)).status, 200);
    const [header, query] = (await server.requests()).map((entry) => entry.id);
    const matched = await server.verify(
      [
        { method: 'GET', path: '/demo/**', credential: 'fat-header', status: 200 },
        { path: '/demo/fixtures/*.png', credential: 'fat-query', count: { min: 1, max: 1 } },
        { status: '4xx', count: 0 },
      ],
      { ordered: true },
    );
    assert.deepEqual(matched, [[header], [query], []]);
  });

  test('an unmet expectation rejects with the near-miss report', async () => {
    const fat = await server.token({ userId: 'alice', ttl: 60 });
    assert.equal((await server.fetch(`${SAMPLE}?fat=${encodeURIComponent(fat)}`)).status, 200);
    const refused = await server.verify([{ method: 'GET', path: SAMPLE, credential: 'fat-header' }]).then(
      () => assert.fail('verify resolved'),
      (error) => error,
    );
    assert.ok(refused instanceof VerificationError && refused instanceof MockCDNError);
    assert.equal(refused.status, 409);
    assert.match(refused.message, /^MockCDN verify: 1 of 1 expectations not met\n/);
    assert.ok(
      refused.message.includes('method and path matched, but credential `fat-query` where `fat-header` was expected'),
      refused.message,
    );
    assert.equal(refused.result.expectations[0].near_misses[0].credential, 'fat-query');
    // An expired FAT: how long before the request it expired, by the server's clock.
    await server.advance(60 + 120);
    assert.equal((await server.fetch(SAMPLE, { headers: { fat } })).status, 403);
    await assert.rejects(server.verify([{ path: SAMPLE, status: 200, count: 2 }]), (error) => {
      assert.ok(error.message.includes('status 403 where 200 was expected: the credential expired 2 min'), error.message);
      return true;
    });
  });

  test('a bad document is a plain MockCDNError (400) naming the member', async () => {
    await assert.rejects(server.verify([{ status: '6xx' }]), (error) => {
      assert.ok(!(error instanceof VerificationError));
      assert.equal(error.status, 400);
      assert.equal(error.body.error.message, 'expectations[0].status: must be a status 100-599 or a class such as 4xx');
      return true;
    });
  });
});
