// What the system tests (boot.test.ts, boot-ra81.test.ts) share: running
// the headless vax780 with a console script, typing a guest source file at
// the single-user shell, and reading a command's output out of the
// transcript.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { REPO_ROOT } from '../../js/vaxNode';

/** The machine the tests run: $VAXLAB_VAX780 (the ASan build in npm test's second pass), else the native one. */
export const VAX780 = process.env.VAXLAB_VAX780 || join(REPO_ROOT, 'emu/build/native/vax780');
export const BSDFS = join(REPO_ROOT, 'emu/build/native/bsdfs');
/** The guest programs the tests type in and compile. */
export const GUEST = join(REPO_ROOT, 'emu/tests/system/guest');

export interface Run { status: number | null; stdout: string; stderr: string }

/** `vax780 args`, with `script` (when given) written into `work` and passed as --script. */
export function runVax780(work: string, args: string[], script?: string): Run {
  const full = [...args];
  if (script !== undefined) {
    const path = join(work, `script-${Math.random().toString(36).slice(2)}.txt`);
    writeFileSync(path, script);
    full.push('--script', path);
  }
  const r = spawnSync(VAX780, full, { encoding: 'utf8', timeout: 10 * 60_000, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Type a guest source file into the single-user shell with a quoted
// here-document, one line at a time: the Bourne shell reads a terminal a
// character per system call, and a 780 cannot keep up with a whole file
// pasted at 9600 baud (the tty drops input beyond TTYHOG), so each line
// waits for the shell's "> " prompt, as a careful typist would.
export function typeFile(guestPath: string, hostFile: string): string {
  const lines = readFileSync(join(GUEST, hostFile), 'utf8').replace(/\n$/, '').split('\n');
  return [`send cat > ${guestPath} <<'EOF'`, 'expect \\n> ', ...lines.flatMap((l) => [`send ${l}`, 'expect \\n> ']),
    'send EOF', 'expect \\n# '].join('\n');
}

/** The text between a command's echo and the next prompt. */
export function outputOf(transcript: string, command: string): string {
  const start = transcript.indexOf(`# ${command}\r\n`);
  assert.ok(start >= 0, `no "${command}" in the transcript`);
  const from = start + command.length + 4;
  const end = transcript.indexOf('\n# ', from);
  return transcript.slice(from, end < 0 ? undefined : end + 1).replace(/\r/g, '');
}
