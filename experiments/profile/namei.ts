// The paper's profile tables of namei (Tables 4, 9 and 10: self, child and
// total ms per call and % of kernel time) from our profiles, and the
// workload we profile for them.
//
// The paper's figures come from kgmon/gprof profiles of Berkeley's
// timesharing VAX-11/780s over 17 hours; we have no timesharing users, so
// the workload is a synthetic mix of what such users' commands do to name
// translation (our design, experiments/profile/README.md): a shell running,
// {n} times, commands found through a PATH whose first directory does not
// exist (every exec is a failed lookup, then one that succeeds), each doing
// a different kind of path work —
//   ls -l of a 60-entry directory   stat of every entry (the per-process
//                                   offset cache's case)
//   cat of three headers            opens of 5-component paths
//   grep over a glob of sources     the shell reading a directory, opens
//   du -s of a directory            a tree walk, stat and chdir
//   date                            a small command
//   echo > file; rm file            create and remove in /tmp
//   namework -x nulljob 5 ...       deep opens and a PATH search, vfork+exec
// on the paper's timesharing machine, a 780 with 8 MB (Table 5's Berkeley
// machine) — not the 750 of Table 2 — since the tables' ms are a 780's.
//
//   Table 10 (both caches)          the kernel as distributed
//   Table 9 (per-process cache)     nchsize=0: the system-wide cache off
//   Table 4 (neither, 4.2BSD)       needs a kernel without the per-process
//                                   cache: not run until such a variant exists
//
// % of kernel: namei's share of the kernel's time (kernel code in kernel
// and interrupt modes), not counting the idle loop, as the paper's
// "cycles in the kernel" of a busy machine.

import { TABLE_4, TABLE_9, TABLE_10, type NameiProfile } from '../paper/namei';
import { GROUPS, type ExperimentSpec, type StepSpec } from '../runner/experiments';
import { inMode, ns, selfInMode, type Profile } from './aggregate';

export const NAMEI = '_namei';

/** The mix, one shell line each (a tty line holds 255 characters). */
export const NAMEI_MIX_LINES = [
  'i=0',
  'while test $i -lt $1',
  'do ls -l /usr/src/sys/h >/dev/null',
  'cat /usr/src/sys/h/param.h /usr/src/sys/h/user.h /usr/src/sys/h/proc.h >/dev/null',
  'grep -l namei /usr/src/sys/sys/ufs_*.c >/dev/null',
  'du -s /usr/src/sys/h >/dev/null',
  'date >/dev/null',
  'echo x >/tmp/mix$i; rm /tmp/mix$i',
  'namework -x nulljob 5 /usr/src/sys/h/namei.h /usr/src/sys/sys/ufs_namei.c',
  'i=`expr $i + 1`',
  'done',
] as const;
export const NAMEI_MIX_SCRIPT = '/tmp/namei-mix.sh';
export const NAMEI_MIX_PATH = '/usr/ucb:/bin:/usr/bin:/usr/lab/bin';
export const NAMEI_MIX_COUNT = 5;

function mixStep(id: string, label: string, kernel: Record<string, number>): StepSpec {
  const quote = (l: string): string => `'${l}'`;   // no line has a quote of its own
  return {
    id, label,
    setup: [
      `PATH=${NAMEI_MIX_PATH}; export PATH`,
      ...NAMEI_MIX_LINES.map((l, i) => `echo ${quote(l)} ${i === 0 ? '>' : '>>'} ${NAMEI_MIX_SCRIPT}`),
    ],
    command: `sh ${NAMEI_MIX_SCRIPT} {n}`,
    count: NAMEI_MIX_COUNT,
    parse: 'time',
    kernel,
    readback: ['nchsize'],
    paper: null,
    limitSeconds: 900,
  };
}

/** The workload as an experiment: both caches, then the per-process cache alone. */
export const NAMEI_PROFILE_EXPERIMENT: ExperimentSpec = {
  id: 'namei-profile',
  title: 'namei\'s call times under a mix of name-heavy commands, profiled (Tables 9 and 10)',
  group: GROUPS.namei,
  description: `A shell runs ls -l, cat, grep, du, date, creat/unlink and namework ${NAMEI_MIX_COUNT} times through a ` +
    'PATH that misses first, profiled.\nnamei\'s self, child and total ms per call and % of kernel beside the paper\'s ' +
    'Table 10 (both caches) and Table 9 (per-process cache: nchsize=0).',
  paperRef: '§3.2.2 Table 4, §4.1.1 Tables 9 and 10',
  machine: {
    cpu: '780', memoryMB: 8, boot: 'single',
    memoryNote: 'the paper\'s profiles are of its timesharing 780s; 8 MB as the lab\'s 780',
  },
  steps: [mixStep('mix.both', 'both caches (as distributed)', {}), mixStep('mix.offset', 'per-process cache only (nchsize=0)', { nchsize: 0 })],
  parameters: { divisor: 1 },
  parameterHelp: { divisor: `divide the mix's count by this (1 = ${NAMEI_MIX_COUNT})` },
  counters: ['namei.lookups', 'namei.hits', 'namei.hitRate', 'namei.offsetHitRate', 'cpu.sy'],
  compare: 'namei\'s ms per call and % of kernel time from our exact profile, beside the paper\'s gprof tables',
  view: 'namecache',
};

/** Which of the paper's tables a step of the experiment stands beside, with the kernel as distributed. */
export const NAMEI_TABLE_FOR_STEP: Record<string, NameiProfile> = { 'mix.both': TABLE_10, 'mix.offset': TABLE_9 };

/** The paper's table for a step run on a kernel (experiments/kernels
 *  variants by name; null: the image's own /vmunix), or why there is none.
 *  mix.offset is the step with nchsize=0 (the system-wide cache off). */
export function nameiTableFor(step: string, kernel: string | null): { table: NameiProfile | null; note: string } {
  const off = step === 'mix.offset';
  switch (kernel) {
    case null: case 'generic':
      return { table: off ? TABLE_9 : TABLE_10, note: '' };
    case 'no-offset-cache':
      return off ? { table: TABLE_4, note: 'neither cache (no-offset-cache kernel, nchsize=0)' }
        : { table: null, note: 'the name cache alone (no-offset-cache kernel): no table of the paper\'s' };
    case 'no-name-cache':
      return { table: TABLE_9, note: 'the per-process cache alone (no-name-cache kernel)' };
    case 'like-4.2':
      return { table: TABLE_4, note: 'neither cache (like-4.2 kernel: 4.3BSD with 4.2BSD\'s namei, and more, reverted)' };
    default:
      return { table: null, note: `kernel ${kernel}: no table of the paper's for it` };
  }
}

export interface NameiFigures {
  calls: number;
  selfMsPerCall: number;
  childMsPerCall: number;
  totalMsPerCall: number;
  /** % of the kernel's time (kernel code, kernel and interrupt modes, idle excluded). */
  selfPercent: number;
  childPercent: number;
  totalPercent: number;
  kernelMs: number;
}

/** namei's figures (or another function's) from a profile. */
export function nameiFigures(profile: Profile, fn: string = NAMEI): NameiFigures {
  const f = profile.functions.get(fn);
  let kernel = 0;
  for (const g of profile.functions.values()) if (inMode(g, 'kernel')) kernel += selfInMode(g, 'kernel');
  const ms = (cost: number): number => ns(profile, cost) / 1e6;
  const self = f ? f.selfCost : 0, total = f ? f.totalCost : 0, calls = f ? f.calls : 0;
  const per = (c: number): number => (calls > 0 ? ms(c) / calls : 0);
  const pct = (c: number): number => (kernel > 0 ? (100 * c) / kernel : 0);
  return {
    calls, selfMsPerCall: per(self), childMsPerCall: per(total - self), totalMsPerCall: per(total),
    selfPercent: pct(self), childPercent: pct(total - self), totalPercent: pct(total), kernelMs: ms(kernel),
  };
}

/** Ours beside a paper table, row by row (self, child, total). */
export function formatNameiComparison(ours: NameiFigures, paper: NameiProfile, label: string): string {
  const rows: [string, number, number][] = [
    ['self', ours.selfMsPerCall, ours.selfPercent], ['child', ours.childMsPerCall, ours.childPercent],
    ['total', ours.totalMsPerCall, ours.totalPercent],
  ];
  const lines = [`${label}: namei, ${ours.calls} calls, ${(ours.kernelMs / 1000).toFixed(3)} s of kernel time; ` +
    `${paper.ref.caption}`, 'part     ours ms/call   paper ms/call   ours % of kernel   paper % of kernel'];
  for (const [part, ms, pct] of rows) {
    const p = paper.rows.find((r) => r.part === part)!;
    lines.push(`${part.padEnd(6)} ${ms.toFixed(2).padStart(14)} ${p.time.raw.padStart(15)} ${`${pct.toFixed(1)}%`.padStart(18)} ` +
      `${p.percentOfKernel.raw.padStart(19)}`);
  }
  return lines.join('\n');
}


