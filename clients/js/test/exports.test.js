// index.d.ts declares exactly what index.js exports, and the module loads without Node built-ins.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const declarations = readFileSync(here('../index.d.ts'), 'utf8');
const source = readFileSync(here('../index.js'), 'utf8');

/** Names index.d.ts exports as values (functions, classes, consts), and as types only. */
function declared() {
  const values = new Set();
  const types = new Set();
  const pattern = /^export\s+(?:declare\s+)?(function|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;
  for (const [, kind, name] of declarations.matchAll(pattern)) {
    (kind === 'interface' || kind === 'type' ? types : values).add(name);
  }
  for (const [, list] of declarations.matchAll(/^export\s*\{([^}]*)\}/gm)) {
    for (const item of list.split(',')) {
      const name = item.trim().split(/\s+as\s+/).pop();
      if (name) values.add(name);
    }
  }
  return { values, types };
}

test('index.d.ts declares every export of index.js, and nothing more', async () => {
  const module = await import('../index.js');
  const exported = Object.keys(module).sort();
  const { values } = declared();
  assert.ok(exported.length >= 4, `exports: ${exported}`);
  assert.deepEqual([...values].sort(), exported);
  for (const name of ['startMockCDN', 'connect', 'MockCDNClient', 'MockCDNError']) {
    assert.equal(typeof module[name], 'function', name);
  }
});

test('every MockCDNClient method and property is declared', async () => {
  const { MockCDNClient } = await import('../index.js');
  const methods = Object.getOwnPropertyNames(MockCDNClient.prototype).filter((name) => name !== 'constructor');
  const client = new MockCDNClient('http://127.0.0.1:1');
  const members = [...methods, ...Object.keys(client)];
  const body = declarations.slice(declarations.indexOf('export class MockCDNClient'));
  const classBody = body.slice(0, body.indexOf('\n}'));
  for (const name of members) {
    assert.match(classBody, new RegExp(`^\\s+(readonly\\s+)?${name}[(?:]`, 'm'), `MockCDNClient.${name} is declared`);
  }
  for (const [, name] of classBody.matchAll(/^ {2}(?:readonly\s+)?([A-Za-z_$][\w$]*)[(?:]/gm)) {
    if (name !== 'constructor') assert.ok(members.includes(name), `declared MockCDNClient.${name} exists`);
  }
});

test('the module imports no Node built-in statically (it loads in a browser)', () => {
  assert.doesNotMatch(source, /^\s*import\s[^(]/m, 'no static import statement');
  assert.doesNotMatch(source, /\brequire\(/);
  assert.match(source, /await import\('node:child_process'\)/);
});

test('package.json points at the module and its types', () => {
  const pkg = JSON.parse(readFileSync(here('../package.json'), 'utf8'));
  assert.equal(pkg.name, 'mockcdn');
  assert.equal(pkg.version, '0.6.0');
  assert.equal(pkg.type, 'module');
  assert.equal(pkg.dependencies, undefined);
  assert.equal(pkg.devDependencies, undefined);
  assert.equal(pkg.exports['.'].types, './index.d.ts');
  assert.equal(pkg.exports['.'].default, './index.js');
  for (const file of [pkg.exports['.'].types, pkg.exports['.'].default, ...pkg.files]) {
    assert.ok(existsSync(here('../' + file)), `${file} exists`);
  }
});
