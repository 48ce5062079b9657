// Runs an experiment (experiments.ts) on the WebAssembly VAX-11/780 through
// web/src/emulator/vaxModule.ts: one fresh machine per row, booted
// single-user as the paper ran, /usr mounted, the row's command timed by the
// guest's /bin/time.  No host clock and no Node APIs here, so the browser can
// use it too; the result is a JSON value that two runs give byte for byte.

import { CPU_NS_PER_INSTRUCTION, type Vax780Api, type Vax780Options, type Vax780System } from '../../web/src/emulator/vaxModule';
import { CounterSampler, type CounterSample, type CounterSeries } from './counters';
import {
  LAB_BIN, LARGE_ENVIRONMENT_LINES, type ExperimentSpec, type MachineSpec, type RowSpec,
} from './experiments';
import { ConsoleSession, SessionFailure, type FailureKind, type SessionHooks } from './session';
import { parseTimedOutput, type GuestTimes } from './timeparse';

export const RESULT_FORMAT = 'vaxlab-experiment-result';
export const RESULT_VERSION = 1;

export const PROMPT = '\n# ';
/** Virtual-second limits of the steps around the timed command. */
export const BOOT_LIMIT_S = 300;
export const SETUP_LIMIT_S = 60;

export interface RunOptions {
  cpu?: MachineSpec['cpu'];
  memoryMB?: number;
  /** --set NAME=VALUE: a parameter of the experiment if it has one by that
   *  name, else a kernel variable (_NAME, patched before the kernel runs). */
  set?: Record<string, number>;
  /** Virtual-second limit of each timed command (default: per row, see rowLimit). */
  limitSeconds?: number;
  /** Identifies the disk image in the result (e.g. its SHA-256). */
  image?: { name: string; sha256?: string };
  /** Called as rows start and end (host-side progress; not part of the result). */
  onRow?: (event: { row: RowSpec; phase: 'start' | 'end'; result?: RowResult }) => void;
  /** Stop: the current row fails with kind 'stopped', the rest are not run. */
  signal?: AbortSignal;
  /** Awaited between emulator slices every few tens of ms (see session.ts
   *  PAUSE_EVERY); a browser worker yields to its message queue here. */
  pause?: () => Promise<void>;
  /** All console output as it comes (boot, set-up and the timed commands). */
  onConsole?: (text: string) => void;
  /** Counters, once per virtual second of each timed command. */
  onSample?: (sample: CounterSample) => void;
  onProgress?: (progress: RunProgress) => void;
}

/** Where a run is: row `step` (1-based) of `steps`, and the machine's clocks. */
export interface RunProgress {
  step: number;
  steps: number;
  label: string;
  /** Virtual seconds since this row's machine was powered on. */
  virtualSeconds: number;
  instructions: number;
}

export interface RowResult {
  test: string;
  /** What was typed (after `cd /usr/lab/bin`). */
  command: string;
  iterations: number;
  status: 'ok' | 'failed';
  failure?: { kind: FailureKind; message: string; output: string };
  /** What /bin/time printed, seconds of guest time. */
  guest?: { real: number; user: number; sys: number; line: string };
  /** The emulator's view of the timed command: from typing it to the prompt after it. */
  emulator?: { instructions: string; virtualSeconds: number };
  limitSeconds: number;
  /** The counters over the timed command, one sample per virtual second. */
  counters?: CounterSeries;
  /** Table 2's 4.3BSD columns, scaled by iterations / the paper's count. */
  paper: { elapsed: number; user: number; system: number; scale: number; iterations: number };
}

export interface ExperimentResult {
  format: typeof RESULT_FORMAT;
  version: typeof RESULT_VERSION;
  experiment: string;
  title: string;
  machine: { cpu: string; nsPerInstruction: number; memoryMB: number; memoryNote: string; boot: string; direct: true };
  image: { name: string; sha256?: string } | null;
  parameters: Record<string, number>;
  kernelSettings: Record<string, number>;
  /** Which column of Table 2 "ours" is compared with. */
  compare: string;
  status: 'ok' | 'failed';
  rows: RowResult[];
}

export const COMPARE_NOTE =
  'ours = elapsed (real) seconds from the guest\'s /bin/time; compared with Table 2\'s "Elapsed Time" 4.3 column ' +
  '(the paper reports elapsed, user and system time; for csw, pipediscard and pipeback user+system covers the ' +
  'parent only, so elapsed is the comparable figure)';

/** Splits --set into the experiment's parameters and kernel variables. */
export function splitSettings(spec: ExperimentSpec, set: Record<string, number> = {}) {
  const parameters = { ...spec.parameters };
  const kernel: Record<string, number> = {};
  for (const [k, v] of Object.entries(set)) {
    if (k in parameters) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`--set ${k}: a positive integer, got ${v}`);
      parameters[k] = v;
    } else kernel[k] = v;
  }
  return { parameters, kernel };
}

function rowIterations(spec: ExperimentSpec, row: RowSpec, parameters: Record<string, number>): number {
  if (spec.rows.length === 1 && parameters.iterations !== undefined) return parameters.iterations;
  return Math.max(1, Math.round(row.iterations / (parameters.divisor ?? 1)));
}

/** Default limit: five times the paper's (scaled) elapsed time, at least 120 virtual seconds. */
export function rowLimit(paperElapsed: number): number {
  return Math.max(120, Math.ceil(5 * paperElapsed));
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

export async function runExperiment(
  api: Vax780Api, disk: Vax780Options['disk'], spec: ExperimentSpec, options: RunOptions = {},
): Promise<ExperimentResult> {
  const cpu = options.cpu ?? spec.machine.cpu;
  const nsPerInstruction = CPU_NS_PER_INSTRUCTION[cpu];
  const memoryMB = options.memoryMB ?? spec.machine.memoryMB;
  const memoryNote = memoryMB === spec.machine.memoryMB ? spec.machine.memoryNote : `${memoryMB} MB, set on the command line`;
  const { parameters, kernel } = splitSettings(spec, options.set);

  const rows: RowResult[] = [];
  for (const [index, row] of spec.rows.entries()) {
    if (options.signal?.aborted) break;
    options.onRow?.({ row, phase: 'start' });
    const iterations = rowIterations(spec, row, parameters);
    const scale = iterations / row.iterations;
    const paper = {
      elapsed: round(row.paper.elapsed.bsd43.value * scale, 3),
      user: round(row.paper.user.bsd43.value * scale, 3),
      system: round(row.paper.system.bsd43.value * scale, 3),
      scale: round(scale, 6),
      iterations: row.iterations,
    };
    const limitSeconds = options.limitSeconds ?? rowLimit(paper.elapsed);
    const command = ['/bin/time', `./${row.program}`, String(iterations), ...row.rest].join(' ');
    const result: RowResult = { test: row.test, command, iterations, status: 'ok', limitSeconds, paper };

    let sys: Vax780System | null = null;
    try {
      sys = api.create({ memoryMB, disk, boot: 'single', direct: true, set: kernel, nsPerInstruction });
      const machine = sys;
      let sampler: CounterSampler | null = null;
      let slices = 0;
      const progress = (): void => options.onProgress?.({
        step: index + 1, steps: spec.rows.length, label: row.test,
        virtualSeconds: round(Number(machine.timeNs()) / 1e9, 3), instructions: Number(machine.instructionCount()),
      });
      const hooks: SessionHooks = {
        signal: options.signal,
        pause: options.pause,
        onConsole: options.onConsole,
        onSlice: () => {
          const sample = sampler?.poll();
          if (sample) options.onSample?.(sample);
          if (++slices % 10 === 0) progress();
        },
      };
      const session = new ConsoleSession(sys, (r) => api.stopName(r), hooks);
      progress();
      await session.expect(PROMPT, BOOT_LIMIT_S);
      for (const line of ['mount /dev/hp0g /usr', `cd ${LAB_BIN}`, ...(row.largeEnvironment ? LARGE_ENVIRONMENT_LINES : [])]) {
        session.send(line);
        await session.expect(PROMPT, SETUP_LIMIT_S);
      }
      const i0 = sys.instructionCount();
      const t0 = sys.timeNs();
      sampler = new CounterSampler(sys, index);
      session.send(`${command}; echo exit $?`);
      const done = await session.expect(PROMPT, limitSeconds);
      const last = sampler.finish();
      if (last) options.onSample?.(last);
      result.counters = sampler.series();
      progress();
      result.emulator = {
        instructions: (done.instructions - i0).toString(),
        virtualSeconds: round(Number(done.timeNs - t0) / 1e9, 6),
      };
      const timed = parseTimedOutput(done.output, command);
      const times: GuestTimes = timed.times;
      result.guest = { real: times.real, user: times.user, sys: times.sys, line: times.line };
      if (timed.exitStatus !== 0 || timed.other.length > 0) {
        throw new SessionFailure('program error',
          `\`${command}\` exited ${timed.exitStatus}${timed.other.length ? `, printing ${JSON.stringify(timed.other.join('\n'))}` : ''}`,
          done.output);
      }
    } catch (e) {
      if (!(e instanceof SessionFailure)) throw e;
      result.status = 'failed';
      result.failure = { kind: e.kind, message: e.message, output: e.output };
    } finally {
      sys?.destroy();
    }
    rows.push(result);
    options.onRow?.({ row, phase: 'end', result });
  }

  return {
    format: RESULT_FORMAT,
    version: RESULT_VERSION,
    experiment: spec.id,
    title: spec.title,
    machine: { cpu, nsPerInstruction, memoryMB, memoryNote, boot: spec.machine.boot, direct: true },
    image: options.image ?? null,
    parameters,
    kernelSettings: kernel,
    compare: COMPARE_NOTE,
    status: rows.length === spec.rows.length && rows.every((r) => r.status === 'ok') ? 'ok' : 'failed',
    rows,
  };
}

/** The result as the JSON file holds it (2-space indent, final newline). */
export function resultJson(result: ExperimentResult): string {
  return `${JSON.stringify(result, null, 2)}\n`;
}

/** "test | ours (s) | paper 4.3BSD (s) | difference" for each row. */
export function formatTable(result: ExperimentResult, hostSeconds?: number[]): string {
  const head = ['test', 'ours (s)', 'paper 4.3BSD (s)', 'difference', ...(hostSeconds ? ['host (s)'] : [])];
  const body = result.rows.map((r, i) => {
    const paper = `${r.paper.elapsed.toFixed(1)}${r.paper.scale !== 1 ? '*' : ''}`;
    const host = hostSeconds ? [hostSeconds[i] !== undefined ? hostSeconds[i]!.toFixed(1) : ''] : [];
    if (r.status !== 'ok' || !r.guest) return [r.test, 'FAILED', paper, r.failure ? r.failure.message.slice(0, 60) : '', ...host];
    const d = r.guest.real - r.paper.elapsed;
    const pct = r.paper.elapsed > 0 ? ` (${d >= 0 ? '+' : ''}${((100 * d) / r.paper.elapsed).toFixed(0)}%)` : '';
    return [r.test, r.guest.real.toFixed(1), paper, `${d >= 0 ? '+' : ''}${d.toFixed(1)}${pct}`, ...host];
  });
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((b) => b[c]!.length)));
  const line = (cells: string[]) => cells.map((s, c) => (c === 0 ? s.padEnd(widths[c]!) : s.padStart(widths[c]!))).join(' | ');
  const notes = [
    `${result.experiment}: ${result.title}`,
    `machine: VAX-11/${result.machine.cpu} model (${result.machine.nsPerInstruction} ns/instruction), ` +
      `${result.machine.memoryMB} MB (${result.machine.memoryNote}), single-user`,
    COMPARE_NOTE,
  ];
  if (result.rows.some((r) => r.paper.scale !== 1)) notes.push('* the paper\'s time scaled to our iteration count');
  return [...notes, '', line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}
