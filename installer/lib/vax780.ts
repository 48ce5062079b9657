// Running the headless 780 (emu/build/native/vax780) with one of the
// installer's console scripts (installer/scripts/*.vax).
//
// A script is data: vax780's script language (expect/send/type/timeout/
// wait-halt, see README.md) with {{NAME}} placeholders filled in from the
// installation's facts (tape positions, record counts).  Each run's console
// transcript is kept for the log and for the checks that follow it.

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class EmulatorError extends Error {
  constructor(message: string, readonly transcript: string) {
    super(message);
  }
}

export interface RunResult {
  transcript: string;
  hostSeconds: number;
  virtualSeconds: number | null;
  instructions: number | null;
}

/** Fill {{NAME}} placeholders; every placeholder must have a value. */
export function renderScript(text: string, vars: Readonly<Record<string, string | number>>): string {
  return text.replace(/\{\{([A-Z0-9_]+)\}\}/g, (_, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`script placeholder {{${name}}} has no value`);
    return String(v);
  });
}

export function loadScript(dir: string, name: string, vars: Readonly<Record<string, string | number>>): string {
  return renderScript(readFileSync(join(dir, name), 'utf8'), vars);
}

const EXIT_REASONS: Record<number, string> = {
  1: 'an expect or wait-halt timed out',
  2: 'bad command line or script',
  3: 'a missing or malformed image',
  4: 'the guest halted unexpectedly',
  5: 'the kernel panicked',
  6: 'the processor stopped',
};

/** Run vax780 with args and the script text; resolves with the transcript,
 * rejects with an EmulatorError (carrying the transcript) on a non-zero exit. */
export function runVax780(binary: string, args: string[], script: string, scriptPath: string,
  opts: { hostTimeoutMs?: number; onOutput?: (chunk: string) => void } = {}): Promise<RunResult> {
  writeFileSync(scriptPath, script);
  const full = [...args, '--script', scriptPath, '--stats'];
  const t0 = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, full, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.hostTimeoutMs ?? 30 * 60_000);
    child.stdout.setEncoding('latin1');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (s: string) => {
      out += s;
      opts.onOutput?.(s);
    });
    child.stderr.on('data', (s: string) => {
      err += s;
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new EmulatorError(`cannot run ${binary}: ${e.message}`, out));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const hostSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const stats = /vax780: (\d+) instructions, ([0-9.]+) virtual s/.exec(err);
      const reason = err.split('\n').filter((l) => l.trim() !== '' && !/ instructions, .* virtual s/.test(l)).join('; ');
      if (code !== 0) {
        const why = signal ? `killed by ${signal} (host timeout)` : `exit ${code}: ${EXIT_REASONS[code ?? -1] ?? 'failed'}`;
        reject(new EmulatorError(`vax780 ${why}${reason ? ` — ${reason}` : ''}`, out));
        return;
      }
      resolve({
        transcript: out,
        hostSeconds,
        virtualSeconds: stats ? Number(stats[2]) : null,
        instructions: stats ? Number(stats[1]) : null,
      });
    });
  });
}
