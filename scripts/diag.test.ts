// npm run diag's command line (scripts/diag.ts): a bad argument is exit 2 saying what is wrong, before anything runs;
// without DEC's files it says "skipped" and why, exit 0.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function diag(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/diag.ts'), ...args],
    { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--passes with a bad value says what it takes; an unknown argument is named as unknown', () => {
  // --passes 0 was "unknown argument --passes", as if the option did not exist.
  for (const [value, said] of [['0', '"0"'], ['10000', '"10000"'], ['many', '"many"'], [undefined, 'nothing']] as const) {
    const r = diag(value === undefined ? ['--passes'] : ['--passes', value]);
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `diag: --passes takes a whole number from 1 to 9999, got ${said}\n`);
    assert.equal(r.stdout, '');
  }
  const unknown = diag(['--frobnicate']);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^diag: unknown argument --frobnicate /);
});

test('without the diagnostics directory it says "skipped" and why, exit 0', () => {
  const r = diag(['--passes', '1'], { VAXLAB_DIAG: join(ROOT, 'no-such-diagnostics') });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^diag: skipped: no diagnostics directory .*no-such-diagnostics/);
});
