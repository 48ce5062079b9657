// The experiments the runner knows, as data: for now the rows of the paper's
// Table 2 (kernel benchmarks, section 3.2.1) whose programs the installer puts
// in /usr/lab/bin, each alone and all together as `table2`.

import { ENVIRONMENT, KERNEL_BENCHMARK_MACHINE, TABLE_1, table2, type KernelResult, type KernelTest } from '../paper/kernel';

/** How the machine is set up for an experiment. */
export interface MachineSpec {
  cpu: '750' | '780';
  /** Whole MB: the emulator's memory comes in whole megabytes. */
  memoryMB: number;
  /** Why this much memory. */
  memoryNote: string;
  boot: 'single';
}

/** One timed command: a Table 2 row. */
export interface RowSpec {
  test: KernelTest;
  /** The program in /usr/lab/bin. */
  program: string;
  /** The run script's iteration count and the other arguments after it. */
  iterations: number;
  rest: string[];
  /** Run after the run script's 15 setenvs (the "(1K env)" rows). */
  largeEnvironment: boolean;
  paper: KernelResult;
}

export interface ExperimentSpec {
  id: string;
  title: string;
  machine: MachineSpec;
  rows: RowSpec[];
  /** The parameters --set can change, with their defaults. */
  parameters: Record<string, number>;
  /** What a parameter means. */
  parameterHelp: Record<string, string>;
}

/** The paper's machine for Table 2: a VAX-11/750 with 4.5 MB, single-user. */
export const TABLE2_MACHINE: MachineSpec = {
  cpu: '750',
  memoryMB: 5,
  memoryNote: `the paper's ${KERNEL_BENCHMARK_MACHINE.cpu} had ${KERNEL_BENCHMARK_MACHINE.memoryMegabytes} MB; ` +
    'the emulator takes whole megabytes, so 5 MB (0.5 MB more)',
  boot: 'single',
};

/** The programs the installer builds into /usr/lab/bin (experiments/guest). */
export const LAB_PROGRAMS = [
  'syscall', 'csw', 'signocsw', 'pipeself', 'pipediscard', 'pipeback', 'forks', 'vforks', 'execs', 'vexecs',
  'nulljob', 'bigjob',
] as const;
export const LAB_BIN = '/usr/lab/bin';

function rowFor(test: KernelTest): RowSpec | null {
  const t1 = TABLE_1.find((p) => p.test === test);
  if (!t1) return null;
  const [program, count, ...rest] = t1.run.command.split(' ');
  if (!program || !count || !(LAB_PROGRAMS as readonly string[]).includes(program)) return null;
  // execs' job is a path (execv does not search PATH): run from /usr/lab/bin.
  const args = program === 'execs' || program === 'vexecs' ? rest.map((a, i) => (i === 1 ? `./${a}` : a)) : rest;
  return { test, program, iterations: Number(count), rest: args, largeEnvironment: t1.run.largeEnvironment,
    paper: table2(test) };
}

/** Every Table 2 row we can run, in the paper's order. */
export const TABLE2_ROWS: RowSpec[] = TABLE_1.map((p) => rowFor(p.test)).filter((r): r is RowSpec => r !== null);

const ITER_HELP = 'iterations (the run script\'s count; fewer for a quick run — the paper\'s numbers are then scaled)';
const DIV_HELP = 'divide every row\'s iteration count by this (1 = the paper\'s counts)';

/** Experiment ids are the test names, with "(1K env)" as "-1kenv". */
export function rowId(test: KernelTest): string {
  return test.replace(' (1K env)', '-1kenv');
}

export const EXPERIMENTS: ExperimentSpec[] = [
  ...TABLE2_ROWS.map((row): ExperimentSpec => ({
    id: rowId(row.test),
    title: `Table 2, ${row.test}: ${TABLE_1.find((p) => p.test === row.test)!.description}`,
    machine: TABLE2_MACHINE,
    rows: [row],
    parameters: { iterations: row.iterations },
    parameterHelp: { iterations: ITER_HELP },
  })),
  {
    id: 'table2',
    title: `Table 2, every row we can run (${TABLE2_ROWS.length} of 29)`,
    machine: TABLE2_MACHINE,
    rows: TABLE2_ROWS,
    parameters: { divisor: 1 },
    parameterHelp: { divisor: DIV_HELP },
  },
];

export function findExperiment(id: string): ExperimentSpec | undefined {
  return EXPERIMENTS.find((e) => e.id === id);
}

/** The run script's 15 setenvs, as Bourne-shell lines (the single-user shell is sh). */
export const LARGE_ENVIRONMENT_LINES: string[] = 'abcdefghijklmno'.split('').map(
  (name) => `${name}=${ENVIRONMENT.runScriptValue}; export ${name}`,
);
