// DEC's VAX Diagnostic Supervisor and its exercisers on our 780, natively
// (the command-line machine) and in the WebAssembly build (the browser's
// Vax780), run the same way.
//
// The inputs (dist.ts; they are DEC's programs, run as data and never copied
// into the project): vmb.exe, DEC's primary bootstrap, and
// VAX_MINIMUM_DIAGS.dsk, the start of an RA81 holding the supervisor and the
// exercisers EVKAB (basic instructions), EVKAC (floating point), EVKAD
// (compatibility mode) and EVKAE (privileged architecture).
//
// A session, as an operator at a 780's console would run it: the disk as
// ra0 on the UDA50 (a snapshot: the shared file is never written, and the
// 1.2 MB image is the start of the pack), booted through VMB with R5 = 0x10
// (stop in the supervisor); at its "DS> " prompt the attach commands for
// this 780, SET LOAD, SELECT and RUN; the run ends with ".. End of run, N
// errors detected, pass count is P," and the prompt again.  One session per
// program, so that each program's instructions and times are its own,
// counted from its RUN to the next prompt.
//
// The attach commands are the reference procedure's (the diagnostics'
// README) except for the CPU's options: this 780 has no G and H floating
// instructions (an option a real 780 could lack; they take the reserved
// instruction fault here), so the KA780 is attached with "no no" and EVKAC
// tests F and D floating only.  With "yes yes" EVKAC reports every G and H
// instruction as failed.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { CONSOLE_SLICE } from '../js/constants';
import type { Vax780Api, Vax780System } from '../js/vax780';
import { diagDir, readDiagFile } from './dist';
import type { DiagRun } from './evkaa';

export const VMB_FILE = 'vmb.exe';
export const DISK_FILE = 'VAX_MINIMUM_DIAGS.dsk';
/** R5 for VMB: stop in the Diagnostic Supervisor. */
export const BOOT_FLAGS_SUPERVISOR = 0x10;
const PROMPT = 'DS> ';
/** Virtual seconds for the boot and each attach command; and for a run (EVKAB, the longest, takes about 150). */
const STEP_SECONDS = 600;
const RUN_SECONDS = 3600;
/** A program of the diagnostic disk and what we expect of it. */
export interface SupervisorProgram {
  name: string;
  what: string;
  /** true: must end with 0 errors; otherwise why it cannot. */
  expectPass: true | string;
}

export const SUPERVISOR_PROGRAMS: readonly SupervisorProgram[] = [
  { name: 'EVKAB', what: 'basic instructions', expectPass: true },
  { name: 'EVKAC', what: 'floating point (F, D)', expectPass: true },
  { name: 'EVKAD', what: 'compatibility mode (PDP-11)', expectPass: true },
  { name: 'EVKAE', what: 'privileged architecture', expectPass: true },
];

/** The supervisor's attach commands for this 780 (see the top of this file). */
export const ATTACH_COMMANDS: readonly string[] = [
  'ATTACH KA780 SBI KA0 no no 0 0',
  'ATTACH DW780 SBI DW0 3 5',
  'ATTACH UDA50 DW0 DUA 772150 154 5 10',
  'ATTACH RA81 DUA DUA0',
  'SET LOAD DUA0:[SYSMAINT]',
  'SELECT KA0',
];

/** A supervisor program's run: DiagRun's figures (passes and errors from its
 *  summary line; instructions and times from its RUN to the next prompt),
 *  and what it said. */
export interface SupervisorRun extends DiagRun {
  revision: string | null;
  /** "test T, subtest S" of every error report. */
  failedTests: string[];
  /** Why the session itself failed (the machine stopped, a time limit, the
   *  CLI's exit status), or null when the program ran and the supervisor
   *  came back to its prompt.  `stopped` is this, or the supervisor's abort
   *  of the program. */
  failure: string | null;
}

/** Read a program's transcript (from its RUN command on). */
export function parseRun(text: string): Pick<SupervisorRun, 'revision' | 'passes' | 'errors' | 'errorText' | 'failedTests'> & { aborted: string | null } {
  const t = text.replace(/\r/g, '');
  const revision = /revision\s+([\d.]+)/.exec(t)?.[1] ?? null;
  const end = /\.\. End of run, (\d+) errors? detected, pass count is (\d+),/.exec(t);
  const failedTests: string[] = [];
  const re = /Pass \d+, test (\d+), subtest (\d+), error \d+,/g;
  for (let m = re.exec(t); m; m = re.exec(t)) failedTests.push(`test ${m[1]}, subtest ${m[2]}`);
  const first = /^.*Pass \d+, test \d+, subtest \d+, error \d+,.*$/m.exec(t);
  const errorText = first ? t.slice(first.index).split('\n').slice(0, 6).join('\n').trim() : null;
  let aborted: string | null = null;
  const abort = /^\?\? (.*Fault\/abort.*)$/m.exec(t);
  if (abort) {
    const code = /Fault\/abort code:\s+(.*)$/m.exec(t)?.[1];
    const pc = /PC at error:\s+(\S+)/.exec(t)?.[1];
    aborted = [abort[1]!.trim(), code?.trim(), pc && `PC ${pc.replace(/\(X\)$/, '')}`].filter(Boolean).join('; ');
  } else if (!end) {
    aborted = 'the run did not end with its summary';
  }
  return {
    revision,
    passes: end ? Number(end[2]) : 0,
    errors: end ? Number(end[1]) : failedTests.length,
    errorText,
    failedTests,
    aborted,
  };
}

/** Did the program do what we expect of it? */
export function supervisorPassed(r: SupervisorRun, p: SupervisorProgram): boolean {
  if (p.expectPass !== true) return r.failure === null;   // it ran; its failures are known
  return r.stopped === null && r.errors === 0 && r.passes >= 1;
}

function result(program: string, engine: DiagRun['engine'], transcript: string, failure: string | null,
  figures: Pick<DiagRun, 'instructions' | 'virtualSeconds' | 'hostSeconds'>): SupervisorRun {
  const at = transcript.indexOf(`RUN ${program}`);
  const { aborted, ...parsed } = parseRun(at >= 0 ? transcript.slice(at) : '');
  const why = failure ?? (at < 0 ? 'the supervisor never ran the program' : null);
  return { program, engine, ...parsed, failure: why, stopped: why ?? aborted, transcript, ...figures };
}

export interface RunOptions {
  /** Extra text after RUN NAME, e.g. "/PASSES=2" or "/TEST=6". */
  qualifiers?: string;
  /** Memory in MB (default 8). */
  memoryMB?: number;
  dir?: string;
}

interface Report { instructions: bigint; virtualSeconds: number; hostSeconds: number }

function reports(stderr: string): Map<string, Report> {
  const out = new Map<string, Report>();
  const re = /^vax780: report (\S+): (\d+) instructions, ([\d.]+) virtual s, ([\d.]+) host s$/gm;
  for (let m = re.exec(stderr); m; m = re.exec(stderr)) {
    out.set(m[1]!, { instructions: BigInt(m[2]!), virtualSeconds: Number(m[3]), hostSeconds: Number(m[4]) });
  }
  return out;
}

/** Boot the supervisor on the native machine (vax780, the CLI) and run one program. */
export function runSupervisorNative(vax780: string, program: string, o: RunOptions = {}): SupervisorRun {
  const dir = o.dir ?? diagDir();
  readDiagFile(VMB_FILE, dir);   // refuse missing or different files before anything runs
  readDiagFile(DISK_FILE, dir);
  const work = mkdtempSync(join(tmpdir(), 'vaxlab-supervisor-'));
  try {
    const script = [
      `timeout ${STEP_SECONDS}`,
      `expect ${PROMPT}`,
      ...ATTACH_COMMANDS.flatMap((c) => [`send ${c}`, `expect ${PROMPT}`]),
      'report start',
      `send RUN ${program}${o.qualifiers ?? ''}`,
      `timeout ${RUN_SECONDS}`,
      `expect ${PROMPT}`,
      'report end',
      '',
    ].join('\n');
    const scriptPath = join(work, 'supervisor.script');
    writeFileSync(scriptPath, script);
    const args = ['--disk', `ra0=${join(dir, DISK_FILE)}:RA81`, '--snapshot', '--console-boot', `vmb=${join(dir, VMB_FILE)}`,
      '--boot-device', 'dua0', '--boot-flags', `0x${BOOT_FLAGS_SUPERVISOR.toString(16)}`, '--script', scriptPath,
      '--mem', String(o.memoryMB ?? 8)];
    const r = spawnSync(vax780, args, { encoding: 'latin1', maxBuffer: 64 << 20, timeout: 30 * 60_000 });
    if (r.error) throw r.error;
    const marks = reports(r.stderr);
    const start = marks.get('start');
    const end = marks.get('end');
    const reason = r.stderr.split('\n').find((l) => l.startsWith('vax780: ') && !l.startsWith('vax780: report '));
    return result(program, 'native', r.stdout, r.status === 0 ? null : `exit ${r.status}: ${reason ?? r.stderr.trim()}`, {
      instructions: start && end ? end.instructions - start.instructions : 0n,
      virtualSeconds: start && end ? end.virtualSeconds - start.virtualSeconds : 0,
      hostSeconds: start && end ? end.hostSeconds - start.hostSeconds : 0,
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A system with the supervisor booting, in the WebAssembly build. */
export function createSupervisorSystem(api: Vax780Api, o: RunOptions = {}): Vax780System {
  const dir = o.dir ?? diagDir();
  const vmb = readDiagFile(VMB_FILE, dir);
  const disk = readDiagFile(DISK_FILE, dir);
  return api.create({ memoryMB: o.memoryMB ?? 8, disk, diskType: 'RA81', consoleBoot: { vmb, flags: BOOT_FLAGS_SUPERVISOR } });
}

/** Drives a Vax780System as the CLI's script does: after each send, run in
 *  slices of CONSOLE_SLICE instructions until the console shows the text, so an
 *  expect ends at the same instruction natively and in wasm. */
export class ConsoleDriver {
  transcript = '';
  private mark = 0;
  constructor(private readonly sys: Vax780System, private readonly api: Vax780Api) {}

  send(text: string): void {
    this.sys.type(`${text}\r`);
  }

  /** Runs until text appears; returns null, or why it did not. */
  expect(text: string, seconds: number): string | null {
    const deadline = this.sys.timeNs() + BigInt(seconds) * 1_000_000_000n;
    for (;;) {
      const at = this.transcript.indexOf(text, this.mark);
      if (at >= 0) {
        this.mark = at + text.length;
        return null;
      }
      if (this.sys.timeNs() > deadline) return `expect "${text}" timed out after ${seconds} virtual seconds`;
      const r = this.sys.run(CONSOLE_SLICE);
      this.transcript += this.sys.readConsole();
      if (r !== 0) return `machine: ${this.api.stopName(r)}: ${this.sys.stopDetail()}`;
    }
  }
}

/** Boot the supervisor in the WebAssembly build and run one program. */
export function runSupervisorWasm(api: Vax780Api, program: string, o: RunOptions = {}): SupervisorRun {
  const sys = createSupervisorSystem(api, o);
  const t0 = performance.now();
  try {
    const d = new ConsoleDriver(sys, api);
    let stopped = d.expect(PROMPT, STEP_SECONDS);
    for (const c of ATTACH_COMMANDS) {
      if (stopped) break;
      d.send(c);
      stopped = d.expect(PROMPT, STEP_SECONDS);
    }
    const i0 = sys.instructionCount();
    const v0 = Number(sys.timeNs()) / 1e9;
    const h0 = performance.now();
    if (!stopped) {
      d.send(`RUN ${program}${o.qualifiers ?? ''}`);
      stopped = d.expect(PROMPT, RUN_SECONDS);
    }
    const ran = !stopped || stopped.startsWith('expect');
    return result(program, 'wasm', d.transcript, stopped, {
      instructions: ran ? sys.instructionCount() - i0 : 0n,
      virtualSeconds: ran ? Number(sys.timeNs()) / 1e9 - v0 : 0,
      hostSeconds: ran ? (performance.now() - h0) / 1000 : (performance.now() - t0) / 1000,
    });
  } finally {
    sys.destroy();
  }
}
