// EVKAA, DEC's "Hardcore Instruction Test" for the VAX, on our 780: the
// native command-line machine and the WebAssembly build run it the same way.
//
// How it is run (as DEC's console would): the whole file (a 512-byte image
// header, then the program) LOADed at physical 0, STARTed at 0x200 with
// memory management off; it prints a banner and "Hit any key to continue",
// then one "EVKAA V8.0 pass # N(X) done!" line every 44 of its internal
// passes (N counts those, in hex: 1, 2C, 58, ...; one internal pass is about
// 171,000 instructions), or "??? ERROR - Test # tt, Subtest # ss, <what>
// failed" with expected and received values, and halts.  We call one
// "done!" line a pass, as DEC's and SIMH's scripts do.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CONSOLE_SLICE } from '../js/constants';
import type { Vax780Api } from '../js/vax780';
import { diagDir, readDiagFile } from './dist';

export const EVKAA_FILE = 'evkaa.exe';
export const EVKAA_LOAD_ADDRESS = 0;
export const EVKAA_START = 0x200;
const ANY_KEY = 'Hit any key to continue';
const PASS_LINE = 'done!';
const ERROR_MARK = '??? ERROR';
/** Virtual seconds allowed per reported pass (one takes about 9 on the 780 model). */
const SECONDS_PER_PASS = 120;

export interface DiagRun {
  program: string;
  engine: 'native' | 'wasm';
  /** Reported passes ("done!" lines). */
  passes: number;
  /** "??? ERROR" reports. */
  errors: number;
  /** The first error report, as printed (test, subtest, expected, received). */
  errorText: string | null;
  /** Why the run ended early (a halt, a time limit), or null. */
  stopped: string | null;
  instructions: bigint;
  virtualSeconds: number;
  hostSeconds: number;
  transcript: string;
}

export function passed(r: DiagRun, passes: number): boolean {
  return r.errors === 0 && r.passes >= passes && r.stopped === null;
}

function summarise(program: string, engine: DiagRun['engine'], transcript: string,
  rest: Omit<DiagRun, 'program' | 'engine' | 'passes' | 'errors' | 'errorText' | 'transcript'>): DiagRun {
  const text = transcript.replace(/\r/g, '');
  const errors = text.split(ERROR_MARK).length - 1;
  const at = text.indexOf(ERROR_MARK);
  const errorText = at < 0 ? null : text.slice(at).split('\n').slice(0, 4).join('\n').trim();
  return { program, engine, passes: text.split(PASS_LINE).length - 1, errors, errorText, transcript, ...rest };
}

/** EVKAA on the native machine (emu/build/native/vax780) for `passes` passes. */
export function runEvkaaNative(vax780: string, passes: number, dir: string = diagDir()): DiagRun {
  readDiagFile(EVKAA_FILE, dir);   // refuse a missing or different file before anything runs
  const work = mkdtempSync(join(tmpdir(), 'vaxlab-evkaa-'));
  try {
    const script = join(work, 'evkaa.script');
    writeFileSync(script, [`timeout ${SECONDS_PER_PASS}`, `expect ${ANY_KEY}`, 'type \\r',
      ...Array.from({ length: passes }, () => `expect ${PASS_LINE}`), ''].join('\n'));
    const t0 = performance.now();
    const r = spawnSync(vax780, ['--load', `${join(dir, EVKAA_FILE)}@${EVKAA_LOAD_ADDRESS}`,
      '--start', `0x${EVKAA_START.toString(16)}`, '--script', script, '--stats'],
    { encoding: 'latin1', maxBuffer: 64 << 20, timeout: 10 * 60_000 });
    const hostSeconds = (performance.now() - t0) / 1000;
    if (r.error) throw r.error;
    const stats = /vax780: (\d+) instructions, ([\d.]+) virtual s/.exec(r.stderr);
    // The one-line reason the machine gives when a script fails (not the --stats lines).
    const reason = r.stderr.split('\n')
      .find((l) => l.startsWith('vax780: ') && !l.startsWith('vax780: stats:') && !/ instructions, .* virtual s/.test(l));
    return summarise('EVKAA', 'native', r.stdout, {
      stopped: r.status === 0 ? null : `exit ${r.status}: ${reason ?? r.stderr.trim()}`,
      instructions: BigInt(stats?.[1] ?? 0),
      virtualSeconds: Number(stats?.[2] ?? 0),
      hostSeconds,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** EVKAA on the WebAssembly build (the same Vax780 the browser uses). */
export function runEvkaaWasm(api: Vax780Api, passes: number, dir: string = diagDir()): DiagRun {
  const data = readDiagFile(EVKAA_FILE, dir);
  const sys = api.create({ memoryMB: 8, console: { load: [{ address: EVKAA_LOAD_ADDRESS, data }], start: EVKAA_START } });
  let transcript = '';
  let stopped: string | null = null;
  const t0 = performance.now();
  try {
    let typed = false;
    let count = 0;
    const limitNs = BigInt(SECONDS_PER_PASS * (passes + 1)) * 1_000_000_000n;
    for (;;) {
      // As often as the native machine's script looks: the key is typed, and the run ends, at the same instruction.
      const r = sys.run(CONSOLE_SLICE);
      transcript += sys.readConsole();
      if (!typed && transcript.includes(ANY_KEY)) {
        sys.type('\r');
        typed = true;
      }
      count = transcript.split(PASS_LINE).length - 1;
      if (count >= passes || transcript.includes(ERROR_MARK)) {
        if (r !== 0 && !transcript.includes(ERROR_MARK)) stopped = `${api.stopName(r)}: ${sys.stopDetail()}`;
        break;
      }
      if (r !== 0) {
        stopped = `${api.stopName(r)}: ${sys.stopDetail()}`;
        break;
      }
      if (sys.timeNs() > limitNs) {
        stopped = `time limit: ${count} of ${passes} passes in ${Number(limitNs / 1_000_000_000n)} virtual seconds`;
        break;
      }
    }
    if (transcript.includes(ERROR_MARK)) {
      for (let i = 0; i < 20 && sys.run(CONSOLE_SLICE) === 0; i++) transcript += sys.readConsole();   // the rest of the report
      transcript += sys.readConsole();
    }
    return summarise('EVKAA', 'wasm', transcript, {
      stopped, instructions: sys.instructionCount(), virtualSeconds: Number(sys.timeNs()) / 1e9,
      hostSeconds: (performance.now() - t0) / 1000,
    });
  } finally {
    sys.destroy();
  }
}
