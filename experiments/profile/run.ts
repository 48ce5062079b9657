// Profiling an experiment's steps: each step as the runner runs it (a fresh
// machine booted single-user with the step's kernel settings, /usr mounted,
// cd /lab/bin, the set-up lines, then `/bin/time COMMAND; echo exit $?`),
// with the profiler on from the first instruction.  Two profiles per step:
// what the boot and the set-up ran, and the timed command (cleared just
// before it is typed, dumped at its prompt), so the command's counts are its
// own.  A step that fails still gives the profile of what ran, with the
// failure's reason.  No Node APIs: the CLI and the page can both use it.

import type { DiskImage } from '../../emu/js/diskImage';
import type { Vax780Api, Vax780System } from '../../emu/js/vax780';
import { stepCommand, type ExperimentSpec } from '../runner/experiments';
import { BOOT_LIMIT_S, checkKernelSettings, machineSetup, placementSetup, PROMPT, resolveRun, SETUP_LIMIT_S, stepLimit, stepMachineOptions, type RunOptions } from '../runner/runner';
import { ConsoleSession, SessionFailure, type FailureKind } from '../runner/session';
import { parseTimedOutput } from '../runner/timeparse';
import { parseRawProfile, type RawProfile } from './raw';

export interface StepProfile {
  step: string;
  label: string;
  /** What was typed: `/bin/time COMMAND`. */
  command: string;
  status: 'ok' | 'failed';
  failure?: { kind: FailureKind; message: string };
  /** Power-on to the prompt before the command: the boot and the set-up. */
  setup: RawProfile | null;
  /** The timed command, from typing it to the prompt after it (or to the failure). */
  run: RawProfile | null;
  /** Virtual ns each covers, by the machine's clock (the profiles' costs add up to these). */
  setupNs?: number;
  runNs?: number;
  /** What the guest's /bin/time said. */
  guest?: { real: number; user: number; sys: number };
}

export type ProfileRunOptions = Pick<RunOptions, 'cpu' | 'memoryMB' | 'disk' | 'parameters' | 'set' | 'limitSeconds' |
  'signal' | 'pause' | 'onConsole' | 'kernel' | 'spin'> & {
  /** Only these steps (ids); all by default. */
  steps?: string[];
  /** false: the same runs with the profiler off (no profiles), to measure
   *  what profiling costs the host. */
  profile?: boolean;
  onStep?: (event: { step: string; index: number; phase: 'start' | 'end'; result?: StepProfile }) => void;
};

function dump(sys: Vax780System): RawProfile | null {
  const text = sys.profileJson();
  return text === null ? null : parseRawProfile(text);
}

const elapsed = (sys: Vax780System, from: bigint): number => Number(sys.timeNs() - from);

/** The disk spin seed of a step (the runner's first, and only by default). */
const SPIN_SEED = 1;

/** Profiles the steps of an experiment (settings checked first, as the
 *  runner does: a bad one throws SettingsError before anything runs). */
export async function profileExperiment(
  api: Vax780Api, disk: DiskImage, spec: ExperimentSpec, options: ProfileRunOptions = {},
): Promise<StepProfile[]> {
  const { onStep, steps: only, profile = true, ...runOptions } = options;
  const run = resolveRun(spec, runOptions);
  checkKernelSettings(api, disk, run, options.kernel?.bytes);
  const wanted = only ? new Set(only) : null;
  if (wanted) {
    const unknown = [...wanted].filter((id) => !spec.steps.some((s) => s.id === id));
    if (unknown.length > 0) throw new Error(`${spec.id} has no step ${unknown.join(', ')} (it has ${spec.steps.map((s) => s.id).join(', ')})`);
  }
  const out: StepProfile[] = [];
  for (const [index, { step, count, kernel }] of run.steps.entries()) {
    if (wanted && !wanted.has(step.id)) continue;
    if (options.signal?.aborted) break;
    onStep?.({ step: step.id, index, phase: 'start' });
    const command = `/bin/time ${stepCommand(step, count)}`;
    const result: StepProfile = { step: step.id, label: step.label, command, status: 'ok', setup: null, run: null };
    let sys: Vax780System | null = null;
    let inCommand = false;
    let cleared = 0n;
    try {
      // The runner's step machine (stepMachineOptions), with the profiler on.
      sys = api.create({
        ...stepMachineOptions(run, kernel, SPIN_SEED, spec.machine.drives), disk, profile,
        ...(options.kernel ? { kernel: options.kernel.bytes } : {}),
      });
      const session = new ConsoleSession(sys, (r) => api.stopName(r), {
        signal: options.signal, pause: options.pause, onConsole: options.onConsole,
      });
      await session.expect(PROMPT, BOOT_LIMIT_S);
      for (const line of [...machineSetup(spec.machine), placementSetup(SPIN_SEED), ...step.setup]) {
        session.send(line);
        await session.expect(PROMPT, SETUP_LIMIT_S);
      }
      result.setup = dump(sys);
      result.setupNs = elapsed(sys, 0n);
      if (profile) sys.profileClear();
      cleared = sys.timeNs();
      inCommand = true;
      session.send(`${command}; echo exit $?`);
      const done = await session.expect(PROMPT, options.limitSeconds ?? stepLimit(step, count));
      result.run = dump(sys);
      result.runNs = elapsed(sys, cleared);
      const timed = parseTimedOutput(done.output, command);
      result.guest = { real: timed.times.real, user: timed.times.user, sys: timed.times.sys };
      if (timed.exitStatus !== 0 || timed.other.length > 0) {
        result.status = 'failed';
        result.failure = { kind: 'program error', message: `\`${command}\` exited ${timed.exitStatus}` +
          `${timed.other.length ? `, printing ${JSON.stringify(timed.other.join('\n'))}` : ''}` };
      }
    } catch (e) {
      if (!(e instanceof SessionFailure)) throw e;
      result.status = 'failed';
      result.failure = { kind: e.kind, message: e.message };
      // What ran until the failure.
      if (sys) {
        if (inCommand) {
          result.run = dump(sys);
          result.runNs = elapsed(sys, cleared);
        } else {
          result.setup = dump(sys);
          result.setupNs = elapsed(sys, 0n);
        }
      }
    } finally {
      sys?.destroy();
    }
    out.push(result);
    onStep?.({ step: step.id, index, phase: 'end', result });
  }
  return out;
}
