// Section 3.2.1 "Micro-operation benchmarks": Table 1 (the kernel benchmark
// programs), Table 2 (their results under 4.1, 4.2 and 4.3BSD) and Table 3
// (the exec tests with a "large" environment), with the machine they ran on.
// Every cell is transcribed exactly; experiments/experiments.test.ts
// checks each row against the paper's text.

import { cell, type Cell, type PaperRef, type RunScriptCommand } from './types';

/** The tests of Tables 1 and 2, in the paper's order. */
export const KERNEL_TESTS = [
  'syscall', 'csw', 'signocsw',
  'pipeself4', 'pipeself512', 'pipediscard4', 'pipediscard512', 'pipeback4', 'pipeback512',
  'forks0', 'forks1k', 'forks100k', 'vforks0', 'vforks1k', 'vforks100k',
  'execs0null', 'execs0null (1K env)', 'execs1knull', 'execs1knull (1K env)', 'execs100knull',
  'vexecs0null', 'vexecs1knull', 'vexecs100knull',
  'execs0big', 'execs1kbig', 'execs100kbig', 'vexecs0big', 'vexecs1kbig', 'vexecs100kbig',
] as const;
export type KernelTest = (typeof KERNEL_TESTS)[number];

// ---------------------------------------------------------------- the machine

/** Where and how Tables 2 and 3 were measured, in the paper's words. */
export const KERNEL_BENCHMARK_MACHINE = {
  cpu: 'VAX-11/750',
  memoryMegabytes: 4.5,
  disks: 'two disks on a MASSBUS controller',
  mode: 'single user',
  quote: {
    text: 'To compare certain basic system operations between 4.1BSD and 4.2BSD a suite of benchmark programs was ' +
      'constructed and run on a VAX-11/750 with 4.5 megabytes of physical memory and two disks on a MASSBUS ' +
      'controller.',
    lines: [522, 525],
  },
  singleUser: {
    text: 'Tests were run with the machine operating in single user mode under both 4.1BSD and 4.2BSD.',
    lines: [525, 527],
  },
  paging: { text: 'Paging was localized to the drive where the root file system was located.', lines: [527, 528] },
  averaging: {
    text: 'The benchmark scripts were run twice with the results shown as the average of the two runs.',
    lines: [534, 535],
  },
  /** Footnote [7] to "If the 4.1BSD results are scaled to reflect their being run on a VAX-11/750...". */
  speedFootnote: {
    text: 'We assume that a VAX-11/750 runs at 60% of the speed of a VAX-11/780 (not considering floating point ' +
      'operations).',
    lines: [611, 613],
  },
  /** The 750 is taken to run at this fraction of a 780's speed (footnote [7]). */
  speedRelativeTo780: 0.6,
  /**
   * The text describes 4.1BSD against 4.2BSD only; the 4.3 columns of Table 2
   * were added in this revision without saying where they were measured.
   */
  note4_3: 'The paper does not say on which machine the 4.3 columns of Table 2 were measured.',
} as const;

// ---------------------------------------------------------------- Table 1

export interface KernelProgram {
  readonly test: KernelTest;
  /** As printed (the paper's ``quotes'' kept). */
  readonly description: string;
  /** The row's line in the text file. */
  readonly line: number;
  /** The command the appendix's run script times for this test. */
  readonly run: RunScriptCommand;
}

export const TABLE_1_REF: PaperRef = {
  section: '3.2.1',
  sectionTitle: 'Micro-operation benchmarks',
  table: 1,
  caption: 'Table 1. Kernel Benchmark programs.',
  page: 8,
  lines: [563, 597],
};

const RUN: Record<KernelTest, RunScriptCommand> = {
  'syscall': { command: 'syscall 100000', line: 2843, largeEnvironment: false },
  'csw': { command: 'csw 10000', line: 2856, largeEnvironment: false },
  'signocsw': { command: 'signocsw 10000', line: 2857, largeEnvironment: false },
  'pipeself4': { command: 'pipeself 10000 4', line: 2859, largeEnvironment: false },
  'pipeself512': { command: 'pipeself 10000 512', line: 2858, largeEnvironment: false },
  'pipediscard4': { command: 'pipediscard 10000 4', line: 2863, largeEnvironment: false },
  'pipediscard512': { command: 'pipediscard 10000 512', line: 2862, largeEnvironment: false },
  'pipeback4': { command: 'pipeback 10000 4', line: 2867, largeEnvironment: false },
  'pipeback512': { command: 'pipeback 10000 512', line: 2866, largeEnvironment: false },
  'forks0': { command: 'forks 1000 0', line: 2871, largeEnvironment: false },
  'forks1k': { command: 'forks 1000 1024', line: 2872, largeEnvironment: false },
  'forks100k': { command: 'forks 1000 102400', line: 2873, largeEnvironment: false },
  'vforks0': { command: 'vforks 1000 0', line: 2875, largeEnvironment: false },
  'vforks1k': { command: 'vforks 1000 1024', line: 2876, largeEnvironment: false },
  'vforks100k': { command: 'vforks 1000 102400', line: 2877, largeEnvironment: false },
  'execs0null': { command: 'execs 1000 0 nulljob', line: 2880, largeEnvironment: false },
  'execs0null (1K env)': { command: 'execs 1000 0 nulljob', line: 2913, largeEnvironment: true },
  'execs1knull': { command: 'execs 1000 1024 nulljob', line: 2884, largeEnvironment: false },
  'execs1knull (1K env)': { command: 'execs 1000 1024 nulljob', line: 2914, largeEnvironment: true },
  'execs100knull': { command: 'execs 1000 102400 nulljob', line: 2885, largeEnvironment: false },
  'vexecs0null': { command: 'vexecs 1000 0 nulljob', line: 2886, largeEnvironment: false },
  'vexecs1knull': { command: 'vexecs 1000 1024 nulljob', line: 2887, largeEnvironment: false },
  'vexecs100knull': { command: 'vexecs 1000 102400 nulljob', line: 2888, largeEnvironment: false },
  'execs0big': { command: 'execs 1000 0 bigjob', line: 2890, largeEnvironment: false },
  'execs1kbig': { command: 'execs 1000 1024 bigjob', line: 2891, largeEnvironment: false },
  'execs100kbig': { command: 'execs 1000 102400 bigjob', line: 2892, largeEnvironment: false },
  'vexecs0big': { command: 'vexecs 1000 0 bigjob', line: 2893, largeEnvironment: false },
  'vexecs1kbig': { command: 'vexecs 1000 1024 bigjob', line: 2894, largeEnvironment: false },
  'vexecs100kbig': { command: 'vexecs 1000 102400 bigjob', line: 2895, largeEnvironment: false },
};

function t1(line: number, test: KernelTest, description: string): KernelProgram {
  return { test, description, line, run: RUN[test] };
}

export const TABLE_1: readonly KernelProgram[] = [
  t1(566, 'syscall', 'perform 100,000 getpid system calls'),
  t1(567, 'csw', 'perform 10,000 context switches using signals'),
  t1(568, 'signocsw', 'send 10,000 signals to yourself'),
  t1(569, 'pipeself4', 'send 10,000 4-byte messages to yourself'),
  t1(570, 'pipeself512', 'send 10,000 512-byte messages to yourself'),
  t1(571, 'pipediscard4', 'send 10,000 4-byte messages to child who discards'),
  t1(572, 'pipediscard512', 'send 10,000 512-byte messages to child who discards'),
  t1(573, 'pipeback4', 'exchange 10,000 4-byte messages with child'),
  t1(574, 'pipeback512', 'exchange 10,000 512-byte messages with child'),
  t1(575, 'forks0', 'fork-exit-wait 1,000 times'),
  t1(576, 'forks1k', 'sbrk(1024), fault page, fork-exit-wait 1,000 times'),
  t1(577, 'forks100k', 'sbrk(102400), fault pages, fork-exit-wait 1,000 times'),
  t1(578, 'vforks0', 'vfork-exit-wait 1,000 times'),
  t1(579, 'vforks1k', 'sbrk(1024), fault page, vfork-exit-wait 1,000 times'),
  t1(580, 'vforks100k', 'sbrk(102400), fault pages, vfork-exit-wait 1,000 times'),
  t1(581, 'execs0null', "fork-exec ``null job''-exit-wait 1,000 times"),
  t1(582, 'execs0null (1K env)', 'execs0null above, with 1K environment added'),
  t1(583, 'execs1knull', "sbrk(1024), fault page, fork-exec ``null job''-exit-wait 1,000 times"),
  t1(584, 'execs1knull (1K env)', 'execs1knull above, with 1K environment added'),
  t1(585, 'execs100knull', "sbrk(102400), fault pages, fork-exec ``null job''-exit-wait 1,000 times"),
  t1(586, 'vexecs0null', "vfork-exec ``null job''-exit-wait 1,000 times"),
  t1(587, 'vexecs1knull', "sbrk(1024), fault page, vfork-exec ``null job''-exit-wait 1,000 times"),
  t1(588, 'vexecs100knull', "sbrk(102400), fault pages, vfork-exec ``null job''-exit-wait 1,000 times"),
  t1(589, 'execs0big', "fork-exec ``big job''-exit-wait 1,000 times"),
  t1(590, 'execs1kbig', "sbrk(1024), fault page, fork-exec ``big job''-exit-wait 1,000 times"),
  t1(591, 'execs100kbig', "sbrk(102400), fault pages, fork-exec ``big job''-exit-wait 1,000 times"),
  t1(592, 'vexecs0big', "vfork-exec ``big job''-exit-wait 1,000 times"),
  // "fault pages" (plural) here, "fault page" in execs1kbig: as printed.
  t1(593, 'vexecs1kbig', "sbrk(1024), fault pages, vfork-exec ``big job''-exit-wait 1,000 times"),
  t1(594, 'vexecs100kbig', "sbrk(102400), fault pages, vfork-exec ``big job''-exit-wait 1,000 times"),
];

/** The "null job" and "big job" of the exec tests (section 3.2.1). */
export const EXEC_JOBS = {
  quote: {
    text: "The ``null job'' and ``big job'' differ solely in the size of their data segments, 1 kilobyte versus " +
      '256 kilobytes.',
    lines: [545, 547],
  },
  nullJobDataBytes: 1024,
  bigJobDataBytes: 256 * 1024,
  textQuote: { text: 'In both cases the text segment of the parent is larger than that of the child.', lines: [547, 548] },
  loadFormat: {
    text: 'All programs were compiled into the default load format that causes the text segment to be demand paged ' +
      'out of the file system and shared between processes.',
    lines: [548, 551],
  },
  /**
   * The appendix's big job declares a 250-kilobyte array ("250 here is
   * intended to approximate vi's text+data size", line 2587), not 256.
   */
  appendixArrayKilobytes: 250,
} as const;

// ---------------------------------------------------------------- Table 2

/** A measurement under 4.1BSD, 4.2BSD and 4.3BSD. */
export interface Three {
  readonly bsd41: Cell;
  readonly bsd42: Cell;
  readonly bsd43: Cell;
}

export interface KernelResult {
  readonly test: KernelTest;
  /** Seconds, the "Elapsed Time" columns. */
  readonly elapsed: Three;
  /** Seconds, the "User Time" columns. */
  readonly user: Three;
  /** Seconds, the "System Time" columns. */
  readonly system: Three;
  readonly line: number;
}

export const TABLE_2_REF: PaperRef = {
  section: '3.2.1',
  sectionTitle: 'Micro-operation benchmarks',
  table: 2,
  caption: 'Table 2. Kernel Benchmark results (all times in seconds).',
  page: 9,
  lines: [617, 655],
};

type Raw3 = readonly [string, string, string];
const three = ([a, b, c]: Raw3): Three => ({ bsd41: cell(a), bsd42: cell(b), bsd43: cell(c) });

function t2(line: number, test: KernelTest, elapsed: Raw3, user: Raw3, system: Raw3): KernelResult {
  return { test, elapsed: three(elapsed), user: three(user), system: three(system), line };
}

export const TABLE_2: readonly KernelResult[] = [
  t2(624, 'syscall', ['28.0', '29.0', '23.0'], ['4.5', '5.3', '3.5'], ['23.9', '23.7', '20.4']),
  t2(625, 'csw', ['45.0', '60.0', '45.0'], ['3.5', '4.3', '3.3'], ['19.5', '25.4', '19.0']),
  t2(626, 'signocsw', ['16.5', '23.0', '16.0'], ['1.9', '3.0', '1.1'], ['14.6', '20.1', '15.2']),
  t2(627, 'pipeself4', ['21.5', '29.0', '26.0'], ['1.1', '1.1', '0.8'], ['20.1', '28.0', '25.6']),
  t2(628, 'pipeself512', ['47.5', '59.0', '55.0'], ['1.2', '1.2', '1.0'], ['46.1', '58.3', '54.2']),
  t2(629, 'pipediscard4', ['32.0', '42.0', '36.0'], ['3.2', '3.7', '3.0'], ['15.5', '18.8', '15.6']),
  t2(630, 'pipediscard512', ['61.0', '76.0', '69.0'], ['3.1', '2.1', '2.0'], ['29.7', '36.4', '33.2']),
  t2(631, 'pipeback4', ['57.0', '75.0', '66.0'], ['2.9', '3.2', '3.3'], ['25.1', '34.2', '29.7']),
  t2(632, 'pipeback512', ['110.0', '138.0', '125.0'], ['3.1', '3.4', '2.2'], ['52.2', '65.7', '57.7']),
  t2(633, 'forks0', ['37.5', '41.0', '22.0'], ['0.5', '0.3', '0.3'], ['34.5', '37.6', '21.5']),
  t2(634, 'forks1k', ['40.0', '43.0', '22.0'], ['0.4', '0.3', '0.3'], ['36.0', '38.8', '21.6']),
  t2(635, 'forks100k', ['217.5', '223.0', '176.0'], ['0.7', '0.6', '0.4'], ['214.3', '218.4', '175.2']),
  t2(636, 'vforks0', ['34.5', '37.0', '22.0'], ['0.5', '0.6', '0.5'], ['27.3', '28.5', '17.9']),
  t2(637, 'vforks1k', ['35.0', '37.0', '22.0'], ['0.6', '0.8', '0.5'], ['27.2', '28.6', '17.9']),
  t2(638, 'vforks100k', ['35.0', '37.0', '22.0'], ['0.6', '0.8', '0.6'], ['27.6', '28.9', '17.9']),
  t2(639, 'execs0null', ['97.5', '92.0', '66.0'], ['3.8', '2.4', '0.6'], ['68.7', '82.5', '48.6']),
  t2(640, 'execs0null (1K env)', ['197.0', '229.0', '75.0'], ['4.1', '2.6', '0.9'], ['167.8', '212.3', '62.6']),
  t2(641, 'execs1knull', ['99.0', '100.0', '66.0'], ['4.1', '1.9', '0.6'], ['70.5', '86.8', '48.7']),
  t2(642, 'execs1knull (1K env)', ['199.0', '230.0', '75.0'], ['4.2', '2.6', '0.7'], ['170.4', '214.9', '62.7']),
  t2(643, 'execs100knull', ['283.5', '278.0', '216.0'], ['4.8', '2.8', '1.1'], ['251.9', '269.3', '202.0']),
  t2(644, 'vexecs0null', ['100.0', '92.0', '66.0'], ['5.1', '2.7', '1.1'], ['63.7', '76.8', '45.1']),
  t2(645, 'vexecs1knull', ['100.0', '91.0', '66.0'], ['5.2', '2.8', '1.1'], ['63.2', '77.1', '45.1']),
  t2(646, 'vexecs100knull', ['100.0', '92.0', '66.0'], ['5.1', '3.0', '1.1'], ['64.0', '77.7', '45.6']),
  t2(647, 'execs0big', ['129.0', '201.0', '101.0'], ['4.0', '3.0', '1.0'], ['102.6', '153.5', '92.7']),
  t2(648, 'execs1kbig', ['130.0', '202.0', '101.0'], ['3.7', '3.0', '1.0'], ['104.7', '155.5', '93.0']),
  t2(649, 'execs100kbig', ['318.0', '385.0', '263.0'], ['4.8', '3.1', '1.1'], ['286.6', '339.1', '247.9']),
  t2(650, 'vexecs0big', ['128.0', '200.0', '101.0'], ['4.6', '3.5', '1.6'], ['98.5', '149.6', '90.4']),
  t2(651, 'vexecs1kbig', ['125.0', '200.0', '101.0'], ['4.7', '3.5', '1.3'], ['98.9', '149.3', '88.6']),
  t2(652, 'vexecs100kbig', ['126.0', '200.0', '101.0'], ['4.2', '3.4', '1.3'], ['99.5', '151.0', '89.0']),
];

/** Table 2's row for a test. */
export function table2(test: KernelTest): KernelResult {
  const row = TABLE_2.find((r) => r.test === test);
  if (!row) throw new Error(`no Table 2 row ${test}`);
  return row;
}

// ---------------------------------------------------------------- Table 3

export interface LargeEnvironmentResult {
  /** As printed in Table 3 (without Table 2's " (1K env)"). */
  readonly test: 'execs0null' | 'execs1knull';
  /** The same rows in Table 2. */
  readonly table2Test: 'execs0null (1K env)' | 'execs1knull (1K env)';
  /** Seconds, the "Real" columns (Table 2 calls them "Elapsed Time"). */
  readonly real: { readonly bsd41: Cell; readonly bsd42: Cell };
  readonly user: { readonly bsd41: Cell; readonly bsd42: Cell };
  readonly system: { readonly bsd41: Cell; readonly bsd42: Cell };
  readonly line: number;
}

export const TABLE_3_REF: PaperRef = {
  section: '3.2.1',
  sectionTitle: 'Micro-operation benchmarks',
  table: 3,
  caption: "Table 3. Benchmark results with ``large'' environment (all times in seconds).",
  page: 10,
  lines: [674, 683],
};

type Raw2 = readonly [string, string];
const two = ([a, b]: Raw2) => ({ bsd41: cell(a), bsd42: cell(b) });

export const TABLE_3: readonly LargeEnvironmentResult[] = [
  { test: 'execs0null', table2Test: 'execs0null (1K env)', line: 679,
    real: two(['197.0', '229.0']), user: two(['4.1', '2.6']), system: two(['167.8', '212.3']) },
  { test: 'execs1knull', table2Test: 'execs1knull (1K env)', line: 680,
    real: two(['199.0', '230.0']), user: two(['4.2', '2.6']), system: two(['170.4', '214.9']) },
];

/** The environment of the exec tests, and what the paper derives from Table 3. */
export const ENVIRONMENT = {
  defaultBytes: { bsd41: 34, bsd42: 40 },
  defaultQuote: {
    text: 'The exec tests shown in Table 2 were performed with 34 bytes of environment information under 4.1BSD and ' +
      '40 bytes under 4.2BSD.',
    lines: [664, 666],
  },
  additionalBytes: 1065,
  additionalQuote: {
    text: 'To figure the cost of passing data through the environment, the execs0null and execs1knull tests were ' +
      'rerun with 1065 additional bytes of data.',
    lines: [666, 668],
  },
  /**
   * "121 ms/byte versus 93 ms/byte": Table 2's system time with the large
   * environment minus without, divided by 1065, averaged over execs0null and
   * execs1knull: 4.2BSD ((212.3 - 82.5) + (214.9 - 86.8)) / 2 / 1065 = 0.1211 s,
   * 4.1BSD ((167.8 - 68.7) + (170.4 - 70.5)) / 2 / 1065 = 0.0934 s.  That is
   * per 1,000 execs, so 121 and 93 microseconds per byte per exec.
   */
  costPerByte: { bsd41: cell('93'), bsd42: cell('121'), unit: 'ms/byte' },
  costQuote: {
    text: 'These results show that passing argument data is significantly slower than under 4.1BSD: 121 ms/byte ' +
      'versus 93 ms/byte.',
    lines: [685, 687],
  },
  /**
   * The run script's 15 `setenv`s (lines 2897-2911): each adds "X=" and a
   * 69-character value to the environment, 15 x 71 = 1065 bytes without the
   * terminating NULs (1080 with them).
   */
  runScriptSetenvs: 15,
  runScriptValue: '012345678901234567890123456789012345678901234567890123456780123456789',
} as const;
