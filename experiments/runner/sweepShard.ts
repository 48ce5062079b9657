// A sweep spread over machines: `vaxlab sweep ... --shard i/n` runs the units
// u of the plan with u mod n = i (0 <= i < n; a batch engine's index: a
// Kubernetes Indexed Job's JOB_COMPLETION_INDEX, a Slurm array's
// SLURM_ARRAY_TASK_ID) and writes them as JSON Lines: a header naming the
// sweep (its request, the image, the shard), then one line per unit, in unit
// order (a unit: one step of one point, or one seed of it, sweep.ts).  `vaxlab merge` reads the n files, refuses any that do not belong
// together (another sweep, another image, a shard given twice or missing, a
// unit missing), and assembles the sweep's result from their units: the
// same bytes as the sweep run whole (sweep.ts assembleSweep).  No Node APIs:
// text in, result out.

import type { ExperimentResult } from './result';
import { validateResult } from './result';
import { arr, check, num, obj, ROOT, SchemaError, str } from './schema';
import { SettingsError } from './runner';
import {
  assembleSweep, MAX_SWEEP_AXES, MAX_SWEEP_POINTS, planSweep, SWEEP_BASE_SCHEMA, type SweepPlan, type SweepRequest, type SweepResult,
  type UnitOutcome,
} from './sweep';

export const SHARD_FORMAT = 'vaxlab-sweep-shard';
/** 2: with several seeds a unit is one seed of one step (its line that seed's run, not the step's row), so the
 *  units of a sweep with seeds are numbered otherwise than in version 1's shards. */
export const SHARD_VERSION = 2;

/** Which slice: shard `index` of `count`, 0-based. */
export interface ShardSpec {
  index: number;
  count: number;
}

export interface ShardHeader {
  format: typeof SHARD_FORMAT;
  version: typeof SHARD_VERSION;
  shard: ShardSpec;
  request: SweepRequest;
  /** How many units the whole sweep has (its plan's), so merge can tell a plan that changed. */
  units: number;
  image: { name: string; sha256?: string } | null;
}

/** A shard as read back: its header and its units' outcomes. */
export interface Shard {
  /** The file's name, for messages. */
  name: string;
  header: ShardHeader;
  outcomes: Map<number, UnitOutcome>;
}

/** The most shards a sweep may be cut into. */
export const MAX_SHARDS = 10_000;

/** "i/n" as --shard takes it, or why not. */
export function parseShardSpec(text: string): ShardSpec | string {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return `--shard takes INDEX/COUNT, the index from 0 (e.g. 0/4 … 3/4), got "${text}"`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > MAX_SHARDS) return `--shard ${text}: the count must be 1 to ${MAX_SHARDS}`;
  if (index >= count) return `--shard ${text}: the index counts from 0, so it must be below ${count} (0/${count} … ${count - 1}/${count})`;
  return { index, count };
}

/** The units of the plan in this shard, in order. */
export function shardUnits(plan: SweepPlan, shard: ShardSpec): number[] {
  return plan.units.map((u) => u.index).filter((u) => u % shard.count === shard.index);
}

/** The shard as JSON Lines: the header, then a line per unit that ran, in unit order. */
export function shardJsonl(header: ShardHeader, outcomes: ReadonlyMap<number, UnitOutcome>): string {
  const lines = [JSON.stringify(header)];
  for (const unit of [...outcomes.keys()].sort((a, b) => a - b)) {
    const o = outcomes.get(unit)!;
    lines.push(JSON.stringify('result' in o ? { unit, result: o.result } : { unit, error: o.error }));
  }
  return `${lines.join('\n')}\n`;
}

/** A file that is not a shard, or shards that do not belong together: every reason, one line each. */
export class ShardError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ShardError';
  }
}

/** A header's request, as sweep --shard writes it (SweepRequest), field by field. */
const REQUEST_SCHEMA = obj({
  experiment: str(100),
  axes: arr(obj({ setting: str(100), values: arr(num, MAX_SWEEP_POINTS) }), MAX_SWEEP_AXES),
  base: SWEEP_BASE_SCHEMA,
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reads one shard file's text; throws ShardError saying what is wrong with it (and where). */
export function readShard(name: string, text: string): Shard {
  const lines = text.split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  const parse = (line: string, n: number): unknown => {
    try {
      return JSON.parse(line);
    } catch {
      throw new ShardError([`${name}:${n}: not JSON${n === 1 ? ' (not a shard of vaxlab sweep --shard)' : ''}`]);
    }
  };
  if (lines.length === 0) throw new ShardError([`${name}: empty (not a shard of vaxlab sweep --shard)`]);
  const h = parse(lines[0]!, 1);
  if (!isObject(h) || h.format !== SHARD_FORMAT) {
    throw new ShardError([`${name}: not a shard of vaxlab sweep --shard (its first line is no "${SHARD_FORMAT}" header)`]);
  }
  // Version 1 differs from 2 only for sweeps with several seeds (its unit was a step with all its seeds): a
  // one-seed shard of version 1 has the same units and lines, so it is read, and the work it holds is kept.
  const seeds = (r: unknown) => (isObject(r) && isObject(r.base) ? (r.base.spinSeeds ?? 1) : 1);
  if (h.version === 1 && seeds(h.request) !== 1) {
    throw new ShardError([`${name}: shard format version 1, from a vaxlab that ran a step's seeds as one unit; this one runs each seed ` +
      `as a unit of its own and reads version ${SHARD_VERSION}: run the shard again (vaxlab sweep ... --shard I/N)`]);
  }
  if (h.version !== SHARD_VERSION && h.version !== 1) {
    throw new ShardError([`${name}: shard format version ${String(h.version)}; this vaxlab reads ${SHARD_VERSION} (and 1 without seeds)`]);
  }
  const shard = h.shard as Partial<ShardSpec> | undefined;
  if (!isObject(shard) || !Number.isInteger(shard.index) || !Number.isInteger(shard.count) || shard.count! < 1 ||
      shard.index! < 0 || shard.index! >= shard.count! || !isObject(h.request) || !Number.isInteger(h.units)) {
    throw new ShardError([`${name}: a damaged shard header`]);
  }
  // merge lists the shards it lacks by index, so a count no sweep can have (--shard takes at most MAX_SHARDS) is
  // refused here, not counted through.
  if (shard.count! > MAX_SHARDS) {
    throw new ShardError([`${name}: a damaged shard header (one of ${String(shard.count)} shards; --shard cuts a sweep into at most ${MAX_SHARDS})`]);
  }
  // Its request is checked as a result is (the raw one is kept: the merged file is made from it, byte for byte),
  // so one that is not a sweep's is refused saying where, not met later as a failure to read it.
  try {
    check(REQUEST_SCHEMA, h.request, ROOT);
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    throw new ShardError([`${name}: a damaged shard header: ${e.detail.replace(/^at /, 'at request.')}`]);
  }
  const header = h as unknown as ShardHeader;
  const outcomes = new Map<number, UnitOutcome>();
  lines.slice(1).forEach((line, i) => {
    const n = i + 2;
    const v = parse(line, n);
    if (!isObject(v) || !Number.isInteger(v.unit)) throw new ShardError([`${name}:${n}: not a unit's line`]);
    const unit = v.unit as number;
    if (outcomes.has(unit)) throw new ShardError([`${name}:${n}: unit ${unit} a second time`]);
    if (unit < 0 || unit >= header.units || unit % header.shard.count !== header.shard.index) {
      throw new ShardError([`${name}:${n}: unit ${unit} is not one of shard ${header.shard.index}/${header.shard.count}'s`]);
    }
    if (typeof v.error === 'string') {
      outcomes.set(unit, { error: v.error });
      return;
    }
    try {
      validateResult(v.result, `${name}:${n}.result`);
    } catch (e) {
      throw new ShardError([e instanceof SchemaError ? `${name}:${n}: not a unit's result: ${e.detail}` : String(e)]);
    }
    // The parsed value, not the validated copy: that one lists the fields in
    // the schema's order, and the merged file must be the run's bytes.
    outcomes.set(unit, { result: v.result as ExperimentResult });
  });
  return { name, header, outcomes };
}

/** How two requests differ, in words ("experiment syscall / csw"), or null when they are the same sweep. */
function requestDifference(a: SweepRequest, b: SweepRequest): string | null {
  if (a.experiment !== b.experiment) return `experiment ${a.experiment} / ${b.experiment}`;
  const axes = (r: SweepRequest) => r.axes.map((x) => `${x.setting}=${x.values.join(',')}`).join(' ');
  if (JSON.stringify(a.axes) !== JSON.stringify(b.axes)) return `${axes(a) || 'no sweep'} / ${axes(b) || 'no sweep'}`;
  if (JSON.stringify(a.base) !== JSON.stringify(b.base)) return `settings ${JSON.stringify(a.base)} / ${JSON.stringify(b.base)}`;
  return null;
}

/**
 * The shards of one sweep joined: checks they belong together (the same
 * sweep, the same image, each shard of the count once, every unit there)
 * and assembles the result.  Throws ShardError listing every problem.
 */
export function mergeShards(shards: Shard[]): { plan: SweepPlan; result: SweepResult } {
  if (shards.length === 0) throw new ShardError(['no shards to merge']);
  const problems: string[] = [];
  const first = shards[0]!;
  const h0 = first.header;
  for (const s of shards.slice(1)) {
    const h = s.header;
    const diff = requestDifference(h0.request, h.request);
    if (diff) problems.push(`${s.name} is a shard of another sweep than ${first.name} (${diff.split(' / ').reverse().join(' against ')})`);
    if (JSON.stringify(h.image) !== JSON.stringify(h0.image)) {
      problems.push(`${s.name} ran on another image than ${first.name} (${h.image?.sha256?.slice(0, 12) ?? h.image?.name ?? 'none'} against ${h0.image?.sha256?.slice(0, 12) ?? h0.image?.name ?? 'none'})`);
    }
    if (h.shard.count !== h0.shard.count) problems.push(`${s.name} is one of ${h.shard.count} shards, ${first.name} one of ${h0.shard.count}`);
  }
  if (problems.length > 0) throw new ShardError(problems);
  const count = h0.shard.count;
  const byIndex = new Map<number, Shard>();
  for (const s of shards) {
    const other = byIndex.get(s.header.shard.index);
    if (other) problems.push(`${other.name} and ${s.name} are both shard ${s.header.shard.index}/${count}`);
    else byIndex.set(s.header.shard.index, s);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    problems.push(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing ` +
      `(${byIndex.size} of the ${count} shards given)`);
  }
  let plan: SweepPlan;
  try {
    plan = planSweep(h0.request);
  } catch (e) {
    throw new ShardError([...problems, `the shards' sweep cannot be planned here: ${e instanceof SettingsError ? e.problems.join('; ') : String(e)}`]);
  }
  if (plan.units.length !== h0.units) {
    problems.push(`the shards' sweep had ${h0.units} units; this vaxlab plans it with ${plan.units.length} (another version of the experiment)`);
  }
  if (problems.length > 0) throw new ShardError(problems);
  const outcomes = new Map<number, UnitOutcome>();
  for (const s of shards) {
    const lacking = plan.units.map((u) => u.index).filter((u) => u % count === s.header.shard.index && !s.outcomes.has(u));
    if (lacking.length > 0) {
      const list = lacking.slice(0, 8).join(', ') + (lacking.length > 8 ? ', …' : '');
      problems.push(`${s.name} (shard ${s.header.shard.index}/${count}) lacks ${lacking.length} of its units (${list}): it was stopped or did not finish`);
    }
    for (const [u, o] of s.outcomes) outcomes.set(u, o);
  }
  if (problems.length > 0) throw new ShardError(problems);
  return { plan, result: assembleSweep(plan, outcomes, false) };
}
