// The experiment CLI (scripts/vaxlab.ts) refuses bad input before anything
// runs, with one message and its documented exit code (2 a bad command line
// or setting, 3 no usable image).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chunkedSibling, findLabImage } from '../emu/js/vaxNode';
import { kernelFileBeside } from '../experiments/kernels/kernelFiles';
import { findToggle, toggleHelp } from '../experiments/runner/toggles';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'vaxlab-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));

function vaxlab(...args: string[]): { status: number | null; stderr: string; stdout: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/vaxlab.ts'), ...args],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout };
}

test('names an object inherits are unknown names: --param constructor, __proto__, toString', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty']) {
    const r = vaxlab('run', 'syscall', '--param', `${name}=5`);
    assert.equal(r.status, 2, name);
    assert.match(r.stderr, new RegExp(`refused, nothing was run:\\n  --param ${name}: syscall has iterations`), name);
  }
  const set = vaxlab('run', 'syscall', '--set', '__proto__=5');
  assert.equal(set.status, 2);
  assert.match(set.stderr, /refused, nothing was run/);
});

test('the usage says --spin and --disk in their toggles\' words, as the lab page does, folded at 120 columns', () => {
  const r = vaxlab();
  assert.equal(r.status, 2);
  const words = (text: string) => text.replace(/\s+/g, ' ');
  for (const [option, name] of [['--spin ROTATION', 'spin'], ['--disk TIMING', 'disk']] as const) {
    const from = r.stderr.indexOf(`  ${option}  `);
    assert.ok(from >= 0, option);
    const paragraph = r.stderr.slice(from, r.stderr.indexOf('\n  --', from + 1));
    assert.ok(words(paragraph).includes(words(toggleHelp(findToggle(name)!))), option);
    assert.ok(words(paragraph).endsWith(`Same as --set ${name}=${option.split(' ')[1]}.`), option);
    for (const line of paragraph.split('\n')) assert.ok(line.length <= 120, line);
  }
});

test('help asked for (help, --help, -h, after a command too) is the usage on stdout with exit 0; an unknown command is named', () => {
  for (const args of [['help'], ['--help'], ['-h'], ['run', '--help'], ['fidelity', '--help'], ['sweep', 'syscall', '-h']]) {
    const r = vaxlab(...args);
    assert.equal(r.status, 0, args.join(' '));
    assert.match(r.stdout, /^usage: vaxlab list\n/, args.join(' '));
    assert.equal(r.stderr, '', args.join(' '));
  }
  const unknown = vaxlab('rnu', 'syscall');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /^vaxlab: no command "rnu" \(list, kernels, run, sweep, merge, fidelity, profile\)\nusage: /);
});

test('--set takes a negative value a setting\'s range holds (maxtextcache=-1) and refuses one out of range as such', () => {
  // maxtextcache's range is -1..1000 (vaxlab list says so); the minus sign was refused as not a whole number.  With a
  // second setting out of range the run is refused before anything loads, naming only that one.
  const r = vaxlab('run', 'syscall', '--set', 'maxtextcache=-1', '--set', 'nbuf=3');
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^vaxlab: refused, nothing was run:\n  --set: nbuf: 3 is out of range 16\.\.1024/);
  assert.doesNotMatch(r.stderr, /maxtextcache/);
  const negative = vaxlab('run', 'syscall', '--set', 'nbuf=-5');
  assert.equal(negative.status, 2);
  assert.match(negative.stderr, /--set: nbuf: -5 is out of range 16\.\.1024/);
  // A sweep over it, as a list and as a range.
  for (const values of ['-1,0', '-1..0']) {
    const s = vaxlab('sweep', 'syscall', '--set', `maxtextcache=${values}`, '--set', 'nbuf=3,4');
    assert.equal(s.status, 2, s.stderr);
    assert.match(s.stderr, /nbuf=3: 3 is out of range/);
    assert.doesNotMatch(s.stderr, /maxtextcache/);
  }
});

test('an unknown option last on the line is named as unknown, not as an option that needs a value', () => {
  for (const args of [['run', 'syscall', '--frobnicate'], ['run', 'syscall', 'iterations=10'], ['sweep', 'syscall', '--set', 'hz=50,100', '--top'],
    ['fidelity', '--frobnicate'], ['profile', 'syscall', '--seeds']]) {
    const r = vaxlab(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, new RegExp(`^vaxlab: unknown option ${args.at(-1)}\n`), args.join(' '));
  }
  // A known option without its value still says so.
  for (const args of [['run', 'syscall', '--json'], ['sweep', 'syscall', '--jsonl'], ['fidelity', '--seeds'], ['profile', 'syscall', '--top']]) {
    const r = vaxlab(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, new RegExp(`^vaxlab: ${args.at(-1)} needs a value\n`), args.join(' '));
  }
});

test('vaxlab list gives each setting\'s range, and the values of one that takes only a few', () => {
  const r = vaxlab('list');
  assert.equal(r.status, 0, r.stderr);
  const takes = /^--set takes: (.*)$/m.exec(r.stdout)?.[1] ?? '';
  // cpu is 750 or 780, not a range from 750 to 780 (751 is refused).
  for (const part of ['cpu (750|780)', 'sosend_cluster_min (512|1024)', 'disk (rp06|eagle|ideal|rm05)', 'maxtextcache (-1..1000)', 'nbuf (16..1024)']) {
    assert.ok(takes.split(', ').includes(part), `${part} in: ${takes}`);
  }
});

test('--limit must be a finite positive number of seconds', () => {
  for (const v of ['Infinity', 'NaN', '-5', '0', '1e400', '12abc', '']) {
    const r = vaxlab('run', 'syscall', '--limit', v);
    assert.equal(r.status, 2, v);
    assert.match(r.stderr, /--limit takes a positive number of virtual seconds/, v);
  }
});

test('--json into a directory that does not exist is refused before the run', () => {
  const t0 = Date.now();
  const r = vaxlab('run', 'syscall', '--json', join(work, 'missing', 'x.json'));
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--json .*the directory .*missing does not exist/);
  assert.ok(Date.now() - t0 < 30_000, 'refused at once, not after running');
  const dir = vaxlab('run', 'syscall', '--json', work);
  assert.equal(dir.status, 2);
  assert.match(dir.stderr, /is a directory/);
});

test('fidelity\'s --json, profile\'s --out and merge\'s --json are checked before anything runs, as run\'s --json is', () => {
  // fidelity runs for hours, then wrote its JSON: a path that cannot be written lost the whole run.
  const missing = join(work, 'missing', 'x.json');
  for (const args of [['fidelity', '--json', missing], ['profile', 'syscall', '--out', missing],
    ['merge', join(work, 'absent.jsonl'), '--json', missing]]) {
    const t0 = Date.now();
    const r = vaxlab(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^vaxlab: ${args.at(-2)} .*x\\.json: the directory .*missing does not exist\n$`), args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
    assert.ok(Date.now() - t0 < 30_000, `${args.join(' ')}: refused at once, not after running`);
  }
});

test('profile\'s --limit is run\'s: a finite positive number of seconds, at most a week', () => {
  for (const v of ['Infinity', '1e400', '-5', '0', '1e9']) {
    const r = vaxlab('profile', 'syscall', '--limit', v);
    assert.equal(r.status, 2, v);
    assert.match(r.stderr, /--limit takes a positive number of virtual seconds up to 604800/, v);
  }
});

test('an image that is missing or not an image exits 3', () => {
  const missing = vaxlab('run', 'syscall', '--image', join(work, 'absent.dsk.gz'), '--param', 'iterations=10');
  assert.equal(missing.status, 3, missing.stderr);
  const junk = join(work, 'junk.dsk.gz');
  writeFileSync(junk, 'not gzip at all');
  const bad = vaxlab('run', 'syscall', '--image', junk, '--param', 'iterations=10');
  assert.equal(bad.status, 3, bad.stderr);
  assert.match(bad.stderr, /junk\.dsk\.gz/);
  // An image of one's own has no kernel variants beside it: the message says how to boot its own /vmunix.
  const own = join(work, 'own.dsk');
  writeFileSync(own, new Uint8Array(4096));
  const noKernel = vaxlab('run', 'syscall', '--image', own, '--param', 'iterations=10');
  assert.equal(noKernel.status, 3, noKernel.stderr);
  assert.match(noKernel.stderr, /no kernel paper-1985 beside the image .*with an image of your own, --kernel vmunix boots its \/vmunix\n$/);
  // An image the emulator cannot make a machine of is exit 3 naming it (it was exit 2, "refused ... step syscall: ...",
  // as if a setting were wrong).
  for (const command of ['run', 'profile']) {
    const small = vaxlab(command, 'syscall', '--image', own, '--kernel', 'vmunix', '--param', 'iterations=10');
    assert.equal(small.status, 3, small.stderr);
    assert.match(small.stderr, /vaxlab: .*own\.dsk: vax780 create: RP06 on drive 0: the image is 4096 bytes but an RP06 pack holds 174423040 bytes/);
  }
  // On worker threads (--jobs) too: the threads' check says the same line, exit 3 (it came back as a refusal of the
  // settings, exit 2); a sweep's as well, each point naming itself.
  const last = (text: string) => text.trimEnd().split('\n').at(-1);
  const oneThread = vaxlab('run', 'syscall', '--image', own, '--kernel', 'vmunix', '--param', 'iterations=10');
  const threads = vaxlab('run', 'syscall', '--image', own, '--kernel', 'vmunix', '--param', 'iterations=10', '--jobs', '2');
  assert.equal(threads.status, 3, threads.stderr);
  assert.equal(last(threads.stderr), last(oneThread.stderr));
  const swept = vaxlab('sweep', 'syscall', '--set', 'hz=50,100', '--image', own, '--kernel', 'vmunix', '--param', 'iterations=10', '--jobs', '2');
  assert.equal(swept.status, 3, swept.stderr);
  assert.match(swept.stderr, /^vaxlab: .*own\.dsk: hz=50: vax780 create: RP06 on drive 0: the image is 4096 bytes/m);
  // A --kernel FILE that cannot be read, or is empty, is exit 3 naming it (a truncated .gz was "unexpected end of
  // file", exit 2).
  const truncated = join(work, 'vmunix.gz');
  writeFileSync(truncated, gzipSync(new Uint8Array(100_000).fill(7)).subarray(0, 40));
  const empty = join(work, 'vmunix.empty');
  writeFileSync(empty, '');
  for (const [file, said] of [[truncated, 'vmunix\\.gz: unexpected end of file'], [empty, 'vmunix\\.empty is empty'], [work, 'EISDIR']]) {
    const k = vaxlab('run', 'syscall', '--image', own, '--kernel', file, '--param', 'iterations=10');
    assert.equal(k.status, 3, k.stderr);
    assert.match(k.stderr, new RegExp(`^vaxlab: --kernel .*: .*${said}`, 'm'));
  }
  // profile opens the image as run does: one line, exit 3.
  const profiled = vaxlab('profile', 'syscall', '--image', junk);
  assert.equal(profiled.status, 3, profiled.stderr);
  assert.match(profiled.stderr, /^vaxlab: .*junk\.dsk\.gz: .*\n$/);
});

test('a kernel file that is no a.out, on the lab image, is exit 3 naming the image and the kernel',
  { skip: findLabImage() ? false : 'no lab image: npm run image builds it' }, () => {
    const junk = join(work, 'junk-kernel');
    writeFileSync(junk, new Uint8Array(5000).fill(0x5a));
    const r = vaxlab('run', 'syscall', '--kernel', junk, '--param', 'iterations=10');
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /^vaxlab: .*43bsd\.dsk\.gz with the kernel junk-kernel: .*not a VAX a\.out file/m);
    // fidelity says it the same way (it said "boot: kernel: not a VAX a.out file", naming neither).
    const f = vaxlab('fidelity', '--kernel', junk);
    assert.equal(f.status, 3, f.stderr);
    assert.match(f.stderr, /^vaxlab: .*43bsd\.dsk\.gz with the kernel junk-kernel: .*not a VAX a\.out file/m);
  });

test('a gzip bomb is refused while it inflates, within the image size limit', async () => {
  const { gzipSync } = await import('node:zlib');
  const { MAX_IMAGE_BYTES } = await import('../emu/js/vaxNode');
  const bomb = join(work, 'bomb.dsk.gz');
  // 600 MB of zeros compress to about 600 KB: more than any pack may inflate to.
  const zeros = new Uint8Array(1 << 20);
  const parts: Buffer[] = [];
  for (let i = 0; i < 600; i++) parts.push(gzipSync(zeros, { level: 9 }));
  writeFileSync(bomb, Buffer.concat(parts));   // concatenated gzip members inflate as one stream
  const r = vaxlab('run', 'syscall', '--image', bomb, '--param', 'iterations=10');
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, new RegExp(`inflates to more than the ${MAX_IMAGE_BYTES} bytes`));
});

test('vaxlab kernels lists every variant as "4.3BSD without ..." with its paper section', async () => {
  const { KERNELS } = await import('../experiments/kernels/variants');
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/vaxlab.ts'), 'kernels'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  for (const k of KERNELS) {
    assert.match(r.stdout, new RegExp(`^${k.name} +${k.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
  }
  assert.doesNotMatch(r.stdout, /^\S+ +4\.2BSD/m, 'no variant is called 4.2BSD');
});

test('vaxlab fidelity --kernel refuses a kernel that is neither a variant nor a file, naming the variants, before running', () => {
  const t0 = Date.now();
  const r = vaxlab('fidelity', '--kernel', 'no-such-kernel');
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /--kernel no-such-kernel: no such kernel \(generic, .*ofile-scans-1985.*\) or file/);
  assert.ok(Date.now() - t0 < 60_000, 'refused at once, not after running the tables');
  const bare = vaxlab('fidelity', '--kernel');
  assert.equal(bare.status, 2);
  assert.match(bare.stderr, /--kernel needs a value/);
});

// Runs a paging row for real (a reduced count): needs the lab image and the like-4.2 kernel the installer builds
// beside it (`npm run image`); skipped, saying why, without them.
const pagingSkip = await (async () => {
  const image = findLabImage();
  if (!image) return 'no lab image: npm run image builds it';
  const kernel = kernelFileBeside(image, 'like-4.2');
  return existsSync(kernel) ? false : `no kernel like-4.2 beside the lab image (${kernel}): npm run image builds it`;
})();

test('a paging row boots like-4.2 by default (Tables 7 and 8 against the paper\'s 4.2BSD column); --kernel vmunix the distributed kernel',
  { skip: pagingSkip }, () => {
    const like42 = 'like-4.2: 4.3BSD without the name caches, string exec copying, the process lists, the clock\'s savings, the ' +
      'reschedule cancel at a context switch, the two-handed page clock and the 1985 paging thresholds';
    const distributed = 'vmunix: 4.3BSD as distributed (the image\'s /vmunix, GENERIC of June 1986)';
    for (const [i, [extra, name]] of ([[[], like42], [['--kernel', 'vmunix'], distributed]] as const).entries()) {
      const json = join(work, `randpage-${i}.json`);
      const r = vaxlab('run', 'randpage', '--param', 'iterations=300', '--json', json, ...extra);
      assert.equal(r.status, 0, r.stderr);
      const result = JSON.parse(readFileSync(json, 'utf8')) as { status: string; kernel?: { name: string; sha256?: string } };
      assert.equal(result.status, 'ok');
      assert.equal(result.kernel?.name, name);
      // A variant is named with its bytes' SHA-256; the image's own /vmunix by name only (as t2kernel's Table 2).
      assert.equal(result.kernel?.sha256 !== undefined, name === like42);
      assert.match(r.stderr, name === like42 ? /vaxlab: kernel like-4\.2: / : /vaxlab: randpage: kernel vmunix: 4\.3BSD as distributed/);
      assert.doesNotMatch(name, /4\.2BSD/);
    }
  });

// Runs a Table 2 row for real (a reduced count) on its default kernel and on the one it booted before 26 November
// 2026: needs the lab image and both kernels the installer builds beside it; skipped, saying why, without them.
const table2Skip = await (async () => {
  const image = findLabImage();
  if (!image) return 'no lab image: npm run image builds it';
  for (const k of ['paper-1985', 'ofile-scans-1985']) {
    const kernel = kernelFileBeside(image, k);
    if (!existsSync(kernel)) return `no kernel ${k} beside the lab image (${kernel}): npm run image builds it`;
  }
  return false;
})();

test('a Table 2 row boots paper-1985 by default (no text cache: about 10 ms an exec less); --kernel ofile-scans-1985 the default before 26 November 2026; --set maxtextcache=-1 the text cache back',
  { skip: table2Skip }, () => {
    // Its own directory: the file's top-level awaits let the root's after() (which removes `work`) run first.
    const dir = mkdtempSync(join(tmpdir(), 'vaxlab-cli-t2-'));
    const ran = (extra: string[]) => {
      const json = join(dir, `execs0null-${extra.join('-')}.json`);
      const r = vaxlab('run', 'execs0null', '--param', 'iterations=100', '--json', json, ...extra);
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(readFileSync(json, 'utf8')) as { status: string; kernel?: { name: string }; rows: { guest?: { real: number; sys: number } }[] };
    };
    let now, before, cached;
    try {
      now = ran([]);
      before = ran(['--kernel', 'ofile-scans-1985']);
      // maxtextcache=-1 (its toggle's least value) gives paper-1985 the release's text cache back: it was refused,
      // first by the command line and then by the emulator's binding, which took only unsigned longwords.
      cached = ran(['--set', 'maxtextcache=-1']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(now.kernel?.name, 'paper-1985: 4.3BSD with the open-file scans and without the text cache, as of spring 1985');
    assert.equal(before.kernel?.name, 'ofile-scans-1985: 4.3BSD with fork, exec and exit scanning all 48 open-file slots, as of spring 1985');
    // With the release's text cache every exec reads the text's page table back from the swap drive, a synchronous
    // read: 100 execs take about a second longer (6.6 against 5.5 s when written), in about the same system time.
    const a = before.rows[0]!.guest!, b = now.rows[0]!.guest!;
    assert.ok(a.real - b.real >= 0.6 && a.real - b.real <= 1.6, `elapsed ${a.real} s with the text cache, ${b.real} s without`);
    assert.ok(Math.abs(a.sys - b.sys) <= 0.5, `system ${a.sys} s with the text cache, ${b.sys} s without`);
    const c = cached.rows[0]!.guest!;
    assert.equal(cached.kernel?.name, now.kernel?.name);
    assert.ok(c.real - b.real >= 0.6 && c.real - b.real <= 1.6, `elapsed ${c.real} s with maxtextcache=-1, ${b.real} s without`);
  });

/** Runs vaxlab with args, sends ^C (SIGINT) once stderr matches `at`, and waits for it to end. */
async function interruptedAt(args: string[], at: RegExp): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; sent: boolean }> {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/vaxlab.ts'), ...args], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  let sent = false;
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (!sent && at.test(stderr)) {
      sent = true;
      child.kill('SIGINT');
    }
  });
  const [code, signal] = await new Promise<[number | null, string | null]>((done) => child.on('close', (c, s) => done([c, s])));
  return { code, signal, stdout, stderr, sent };
}

// ^C in a run on one thread: needs the lab image; skipped, saying why, without it.
test('^C in a run stops it: the step running ends "stopped", the steps before it are printed and written, exit 1',
  { skip: findLabImage() ? false : 'no lab image: npm run image builds it' }, async () => {
    const json = join(work, 'stopped.json');
    // namecache-work has three short steps (namework's count divided by 40); ^C once the first has ended.
    const { code, signal, stdout, stderr, sent } = await interruptedAt(['run', 'namecache-work', '--param', 'divisor=40', '--json', json],
      /namecache-work 2\/3 /);
    assert.ok(sent, `the run never reached its second step:\n${stderr}`);
    // It used to die of the signal: no table, no JSON, the first step's run lost.
    assert.equal(signal, null, `killed by ${signal}:\n${stderr}`);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /vaxlab: stopping the run \(\^C again to leave at once\)/);
    assert.match(stderr, /vaxlab: stopped \(\^C\): 1 of 1 experiment above and in .*stopped\.json, a step cut short marked "stopped"\n$/);
    assert.match(stdout, /namecache-work: 1 of 3 steps ok; [\d.]+ virtual s in the timed commands, [\d.]+ virtual s of machine time \(boot and set-up included\), the failed steps' not counted; /);
    const result = JSON.parse(readFileSync(json, 'utf8')) as { status: string; rows: { status: string; failure?: { kind: string } }[] };
    assert.equal(result.status, 'failed', 'a stopped run is not written as if it had finished');
    assert.deepEqual(result.rows.map((r) => r.failure?.kind ?? r.status), ['ok', 'stopped']);
  });

// ^C in fidelity: needs the lab image and Table 2's kernel; skipped, saying why, without them.
test('^C in fidelity stops it: the step running ends, nothing more runs, it says which tables were compared, exit 1',
  { skip: table2Skip }, async () => {
    const json = join(work, 'fidelity-stopped.json');
    // Each step says when it starts, as run's do; ^C in Table 2's second.
    const { code, signal, stdout, stderr, sent } = await interruptedAt(['fidelity', '--seeds', '1', '--json', json], /table2 2\/29 /);
    assert.ok(sent, `fidelity never reached Table 2's second step:\n${stderr}`);
    // It used to die of the signal, saying nothing, with every table that had run lost.
    assert.equal(signal, null, `killed by ${signal}:\n${stderr}`);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /vaxlab: stopping fidelity \(\^C again to leave at once\)/);
    assert.match(stderr, /^table2 1\/29 syscall \.\.\. .* real .* sys \(.* s host\)$/m);
    assert.match(stderr, /vaxlab: stopped \(\^C\): table2 cut short \(not compared\), table7 not run, namecache-ls not run; nothing printed or written\n$/);
    assert.doesNotMatch(stderr, /^table7/m, 'nothing runs after the ^C');
    assert.equal(stdout, '', 'no table of a table cut short');
    assert.equal(existsSync(json), false);
  });

// ^C in profile: needs the lab image; skipped, saying why, without it.
test('^C in profile stops it: the profiles of what ran are printed, the step cut short marked, exit 1',
  { skip: findLabImage() ? false : 'no lab image: npm run image builds it' }, async () => {
    const out = join(work, 'profile-stopped.json');
    const { code, signal, stderr, sent } = await interruptedAt(['profile', 'namecache-ls', '--format', 'json', '--out', out], /namecache-ls 2\/3 /);
    assert.ok(sent, `the profile never reached its second step:\n${stderr}`);
    // It used to die of the signal: the first step's profile lost, nothing said.
    assert.equal(signal, null, `killed by ${signal}:\n${stderr}`);
    assert.equal(code, 1, stderr);
    assert.match(stderr, /vaxlab: stopping the profile \(\^C again to leave at once\)/);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { steps: { step: string; status: string; failure: { kind: string } | null; profile: unknown }[] };
    assert.ok(written.steps.length >= 1 && written.steps.length <= 2, JSON.stringify(written.steps.map((s) => s.step)));
    assert.equal(written.steps[0]!.status, 'ok');
    assert.ok(written.steps[0]!.profile, 'the first step\'s profile is kept');
    const cut = written.steps.length === 2 && written.steps[1]!.failure?.kind === 'stopped';
    assert.match(stderr, new RegExp(`vaxlab: stopped \\(\\^C\\): ${written.steps.length} of 3 steps ran, in .*profile-stopped\\.json` +
      `${cut ? '; the one cut short says "FAILED: stopped", its profile of what ran until then' : ''}\n$`));
  });

// A chunked image damaged where /usr lies: needs the lab image's chunked image (npm run image writes it beside it).
test('a chunk of the image damaged where /usr lies: the step fails as "damaged image", saying which chunk, not as a time limit',
  { skip: findLabImage() && chunkedSibling(findLabImage()!) ? false : 'no lab image with its chunked image: npm run image builds them' }, () => {
    const file = new Uint8Array(readFileSync(chunkedSibling(findLabImage()!)!));
    const dv = new DataView(file.buffer, file.byteOffset, file.byteLength);
    const chunks = dv.getUint32(24, true);
    const chunkBytes = dv.getUint32(12, true);
    // /usr (partition g of the RP06) begins at cylinder 382 of 815, past 87 MB; the root, which the host reads to
    // load the kernel, and swap are before it.  Every stored chunk from there on gets one byte changed.
    const from = Math.ceil(90e6 / chunkBytes);
    let damaged = 0;
    for (let i = from; i < chunks; i++) {
      const at = Number(dv.getBigUint64(128 + 16 * i, true));
      const stored = dv.getUint32(128 + 16 * i + 8, true);
      if (stored === 0) continue;
      file[at + (stored >> 1)]! ^= 0x55;
      damaged++;
    }
    assert.ok(damaged > 0);
    const image = join(work, 'damaged.dskz');
    writeFileSync(image, file);
    const json = join(work, 'damaged.json');
    const r = vaxlab('run', 'syscall', '--image', image, '--kernel', 'vmunix', '--param', 'iterations=100', '--json', json);
    assert.equal(r.status, 1, r.stderr);
    // It used to fail as a time limit of the set-up, the guest's "hard error" its only trace.
    assert.match(r.stdout, /syscall: the disk image is damaged \(chunked disk image damaged: chunk \d+: [^)]+\): the guest read it as a disk error/);
    const result = JSON.parse(readFileSync(json, 'utf8')) as { status: string; rows: { failure?: { kind: string } }[] };
    assert.equal(result.status, 'failed');
    assert.equal(result.rows[0]!.failure?.kind, 'damaged image');
  });

test('a .dsk.gz put in the place of the lab\'s, beside its manifest and chunked image, is run itself, not the pack beside it',
  { skip: findLabImage() && chunkedSibling(findLabImage()!) ? false : 'no lab image with its chunked image: npm run image builds them' }, () => {
    const lab = findLabImage()!;
    const dir = join(work, 'replaced');
    mkdirSync(dir);
    copyFileSync(lab.replace(/\.dsk\.gz$/, '.json'), join(dir, '43bsd.json'));
    copyFileSync(chunkedSibling(lab)!, join(dir, '43bsd.dskz'));
    assert.equal(chunkedSibling(join(dir, '43bsd.dsk.gz')), null, 'no .dsk.gz: no sibling');
    copyFileSync(lab, join(dir, '43bsd.dsk.gz'));
    assert.equal(chunkedSibling(join(dir, '43bsd.dsk.gz')), join(dir, '43bsd.dskz'), 'the manifest\'s own files');
    // Another pack in its place: it used to run the chunked image's pack, under the name of this one.
    writeFileSync(join(dir, '43bsd.dsk.gz'), gzipSync(new Uint8Array(4096)));
    assert.equal(chunkedSibling(join(dir, '43bsd.dsk.gz')), null);
    const r = vaxlab('run', 'syscall', '--image', join(dir, '43bsd.dsk.gz'), '--kernel', 'vmunix', '--param', 'iterations=10');
    assert.equal(r.status, 3, r.stderr);
    assert.match(r.stderr, /replaced\/43bsd\.dsk\.gz: vax780 create: RP06 on drive 0: the image is 4096 bytes/);
    // A chunked image of another pack beside the manifest's .dsk.gz: the .dsk.gz is read.
    copyFileSync(lab, join(dir, '43bsd.dsk.gz'));
    const other = new Uint8Array(readFileSync(join(dir, '43bsd.dskz')));
    other[40] ^= 1;   // its header's SHA-256 of the pack
    writeFileSync(join(dir, '43bsd.dskz'), other);
    assert.equal(chunkedSibling(join(dir, '43bsd.dsk.gz')), null);
  });
