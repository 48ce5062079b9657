// The emulator's small command-line tools (bsdfs, vasm, vaxrun) as the
// README gives them: --help asks for the usage and gets it on stdout with
// exit 0, a bad command line gets it on stderr with exit 2 (vax780 does the
// same, checked with its own options); bsdfs names a missing path once,
// not twice, and says so when it is given a packed image (it reads the raw
// pack).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';

import { findLabImage, REPO_ROOT } from '../../js/vaxNode';

const tool = (name: string, args: string[]) =>
  spawnSync(join(REPO_ROOT, 'emu/build/native', name), args, { encoding: 'latin1', timeout: 60_000 });

for (const name of ['bsdfs', 'vasm', 'vaxrun']) {
  test(`${name} --help: the usage on stdout, exit 0; an unknown option: the usage on stderr, exit 2`, () => {
    for (const flag of ['--help', '-h']) {
      const asked = tool(name, [flag]);
      assert.equal(asked.status, 0, `${name} ${flag}: ${asked.stderr}`);
      assert.match(asked.stdout, new RegExp(`^usage: ${name} `));
      assert.equal(asked.stderr, '');
    }
    const bad = tool(name, ['--no-such-option']);
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, new RegExp(`usage: ${name} `));
  });
}

test('bsdfs: a missing path is named once, a missing directory on the way as well; a packed image is said to be one', {
  skip: findLabImage() ? false : 'no lab image: npm run image builds it',
}, () => {
  const gz = findLabImage()!;
  // bsdfs reads the raw pack: the lab's, unpacked (the first 64 MB hold partition a, the root).
  const work = mkdtempSync(join(tmpdir(), 'vaxlab-bsdfs-'));
  try {
    const image = join(work, '43bsd.dsk');
    writeFileSync(image, gunzipSync(readFileSync(gz)));
    const file = tool('bsdfs', [image, 'cat', '/etc/no-such-file']);
    assert.equal(file.status, 1);
    assert.equal(file.stderr, 'bsdfs: /etc/no-such-file: no such file or directory\n');
    const dir = tool('bsdfs', [image, 'cat', '/no-such-dir/x']);
    assert.equal(dir.status, 1);
    assert.equal(dir.stderr, 'bsdfs: /no-such-dir/x: /no-such-dir: no such file or directory\n');
    // What it can read, it reads: the file system's own /etc/fstab.
    assert.match(tool('bsdfs', [image, 'cat', '/etc/fstab']).stdout, /^\/dev\/hp0a:\/:rw:1:1\n/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // The shipped forms are refused as what they are, not as a file system with a bad superblock.
  const packed = tool('bsdfs', [gz, 'cat', '/etc/fstab']);
  assert.equal(packed.status, 3);
  assert.equal(packed.stderr, `bsdfs: ${gz}: gzip-compressed (gunzip -k it: bsdfs reads the raw pack)\n`);
  const chunked = gz.replace(/\.dsk\.gz$/, '.dskz');
  if (existsSync(chunked)) assert.match(tool('bsdfs', [chunked, 'ls', '/']).stderr, /: a chunked image \(\.dskz; bsdfs reads the raw pack/);
});
