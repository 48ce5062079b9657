// The experiments the runner knows, as data.  An experiment is a list of
// steps on one machine configuration; each step boots a fresh machine (with
// the step's own kernel settings), types its set-up lines at the
// single-user shell and times one command with the guest's /bin/time.
//
//   Micro-operations (3.2.1, Table 2): every row of Table 2 alone, and
//     `table2`, all 29;
//   Paging (3.2.8, Tables 6-8): every program of Table 6 alone, `table7`
//     (all 12) and `table8` (the three rows of Table 8);
//   Name translation (4.1.1): `namecache` (ls -l of 600 files, and a loop
//     over a small set of names, each with the name cache off, at GENERIC's
//     size and larger), `namecache-ls` and `namecache-work` (either half).

import { KERNEL_BUILD_EXPERIMENT } from '../kernels/build';
import { LIKE_42, PAPER_1985 } from '../kernels/variants';
import {
  ENVIRONMENT, KERNEL_BENCHMARK_MACHINE, LS_L_600_FILES, PAGING_SETUP, TABLE_1, TABLE_6, TABLE_8, table2, table7,
  type KernelResult, type KernelTest, type PagingTest,
} from '../paper';
import { GROUPS, type ExperimentSpec, type MachineSpec, type PaperColumn, type StepReference, type StepSpec } from './spec';

// The types of an experiment and its groups are spec.ts's; the experiments' users take them from here too.
export type { ExperimentSpec, ExperimentView, MachineSpec, ParseKind, PaperColumn, StepReference, StepSpec } from './spec';
export { GROUPS } from './spec';

/** The experiments `vaxlab run all` runs, one per group. */
export const ALL_EXPERIMENTS = ['table2', 'table7', 'namecache'] as const;

// ------------------------------------------------------------ Table 2

/** The paper's machine for Table 2: a VAX-11/750 with 4.5 MB, single-user. */
export const TABLE2_MACHINE: MachineSpec = {
  cpu: '750',
  memoryMB: KERNEL_BENCHMARK_MACHINE.memoryMegabytes,
  memoryNote: `the paper's ${KERNEL_BENCHMARK_MACHINE.memoryMegabytes} MB: its ${KERNEL_BENCHMARK_MACHINE.cpu} had ` +
    `${KERNEL_BENCHMARK_MACHINE.memoryMegabytes} megabytes of physical memory and two disks on a MASSBUS controller ` +
    '(root and swap on hp0, /usr and the programs on hp1)',
  boot: 'single',
  drives: 2,
};

/** The programs the installer builds into /usr/lab/bin (experiments/guest) and copies to /lab/bin. */
export const LAB_PROGRAMS = [
  'syscall', 'csw', 'signocsw', 'pipeself', 'pipediscard', 'pipeback', 'forks', 'vforks', 'execs', 'vexecs',
  'nulljob', 'bigjob', 'seqpage', 'randpage', 'gausspage', 'countenv', 'namework',
] as const;
/** Where the experiments on a one-drive machine run the programs: the
 * installer's copy on the root file system (installer/lib/lab.ts,
 * LAB_ROOT_BIN), next to the swap partition: a program's text pages in from
 * the file system it is in, and /usr (hp0g) is far out on the pack.  On the
 * paper's two-drive 750 (MachineSpec.drives 2) they run from LAB_USR_BIN on
 * the second drive instead. */
export const LAB_BIN = '/lab/bin';
/** The installer's build directory, also in the namework PATH. */
export const LAB_USR_BIN = '/usr/lab/bin';
export const LAB_NAMES = '/usr/lab/names';

/** One Table 2 row, as the run script runs it (the first slice's shape, kept for the page's tests). */
export interface RowSpec {
  test: KernelTest;
  /** The program in /lab/bin. */
  program: string;
  /** The run script's iteration count and the other arguments after it. */
  iterations: number;
  rest: string[];
  /** Run after the run script's 15 setenvs (the "(1K env)" rows). */
  largeEnvironment: boolean;
  paper: KernelResult;
}

function rowFor(test: KernelTest): RowSpec | null {
  const t1 = TABLE_1.find((p) => p.test === test);
  if (!t1) return null;
  const [program, count, ...rest] = t1.run.command.split(' ');
  if (!program || !count || !(LAB_PROGRAMS as readonly string[]).includes(program)) return null;
  // execs' job is a path (execv does not search PATH): run from /lab/bin.
  const args = program === 'execs' || program === 'vexecs' ? rest.map((a, i) => (i === 1 ? `./${a}` : a)) : rest;
  return { test, program, iterations: Number(count), rest: args, largeEnvironment: t1.run.largeEnvironment,
    paper: table2(test) };
}

/** Every Table 2 row we can run, in the paper's order. */
export const TABLE2_ROWS: RowSpec[] = TABLE_1.map((p) => rowFor(p.test)).filter((r): r is RowSpec => r !== null);

/** Experiment ids are the test names, with "(1K env)" as "-1kenv". */
export function rowId(test: KernelTest): string {
  return test.replace(' (1K env)', '-1kenv');
}

/** The run script's 15 setenvs, as Bourne-shell lines (the single-user shell is sh). */
export const LARGE_ENVIRONMENT_LINES: string[] = 'abcdefghijklmno'.split('').map(
  (name) => `${name}=${ENVIRONMENT.runScriptValue}; export ${name}`,
);

/** The rows of Table 2 the timing model is fitted on, and only these
 *  (emu/docs/timing.md, "Calibration"): syscall and pipeself4 fix the
 *  instruction buffer's average stall and the 750's read-miss time,
 *  forks100k (less forks0: copying 100 KB of pages) the 750's string-move
 *  rate.  Every other row of every table is held out. */
export const CALIBRATION_ROWS: readonly KernelTest[] = ['syscall', 'pipeself4', 'forks100k'];

/** The kernel as the paper measured it, where it differs from the 4.3BSD
 *  release in a way that shows in Table 2 (emu/docs/timing.md): sosend put a
 *  512-byte write into small mbufs until June 1985. */
export const PAPER_KERNEL: Record<string, number> = { sosend_cluster_min: 1024 };

/** The kernel Table 2 boots by default, "the paper's kernel" as far as the CSRG SCCS history dates it
 *  (emu/docs/timing.md, "Which kernel Table 2 runs" and "The text cache: after the paper"): built before 2 June
 *  1985 by the sosend evidence above, so before the open-file high-water mark of 27 May 1985, when fork, exec
 *  and exit still scanned every slot of the open-file table, and before the text cache of 9 November 1985 (h/text.h
 *  delta 6.4), when a program's text was released at its last exit.  The variant paper-1985 takes exactly those
 *  two back; everything else is the June 1986 release (with PAPER_KERNEL's sosend).  It is kept because it is
 *  dated, not because it fits: without the text cache the null execs come out shorter than the paper's.  Until
 *  26 November 2026 Table 2 booted ofile-scans-1985 (the scans alone); results and links name the kernel they ran,
 *  so those run it again.  The dating is about Table 2's 4.3 column: Tables 7 and 8 boot PAGING_KERNEL_VARIANT,
 *  the name cache the distributed /vmunix.  `--kernel vmunix` (DISTRIBUTED_KERNEL_NAME) runs the release. */
export const PAPER_KERNEL_VARIANT: string = PAPER_1985.name;

/** The kernel Tables 7 and 8 (every paging row, table7, table8) boot by default: like-4.2, 4.3BSD without the
 *  name caches, string exec copying, the process lists, the clock's savings, the reschedule cancel at a context
 *  switch, the two-handed page clock and the 1985 paging thresholds.  The paper compares paging against its 4.2BSD
 *  (and 4.1BSD) columns only, and 4.2BSD itself cannot be run here; each table boots the lab's closest kernel to
 *  the column it is compared with, and like-4.2 is every 4.3 improvement the paper describes reverted to the
 *  4.2BSD behaviour it describes (the one-hand page clock of section 5.1.6 among them), with 4.2BSD's paging
 *  thresholds and scan rates and its reschedule as the CSRG SCCS history gives them.  It is still 4.3BSD, never
 *  "4.2BSD".  `--kernel vmunix` runs the distributed release. */
export const PAGING_KERNEL_VARIANT: string = LIKE_42.name;

function table2Step(row: RowSpec): StepSpec {
  return {
    id: rowId(row.test),
    label: row.test,
    setup: row.largeEnvironment ? LARGE_ENVIRONMENT_LINES : [],
    command: [`./${row.program}`, '{n}', ...row.rest].join(' '),
    count: row.iterations,
    parse: 'time',
    kernel: { ...PAPER_KERNEL },
    ...(CALIBRATION_ROWS.includes(row.test) ? { calibration: true } : {}),
    readback: [],
    paper: {
      source: 'Table 2', column: '4.3BSD', count: row.iterations, scales: true,
      elapsed: row.paper.elapsed.bsd43.value, user: row.paper.user.bsd43.value, system: row.paper.system.bsd43.value,
      others: (['bsd42', 'bsd41'] as const).map((k) => ({
        column: k === 'bsd42' ? '4.2BSD' : '4.1BSD',
        elapsed: row.paper.elapsed[k].value, user: row.paper.user[k].value, system: row.paper.system[k].value,
      })),
    },
  };
}

export const TABLE2_COMPARE =
  'ours = elapsed (real) seconds from the guest\'s /bin/time; compared with Table 2\'s "Elapsed Time" 4.3 column ' +
  '(the paper reports elapsed, user and system time; for csw, pipediscard and pipeback user+system covers the ' +
  'parent only, so elapsed is the comparable figure)';

const ITER_HELP = 'iterations (the run script\'s count; fewer for a quick run — the paper\'s numbers are then scaled)';
const DIV_HELP = 'divide every step\'s count by this (1 = the paper\'s counts)';
const TABLE2_COUNTERS = ['faults.sy', 'faults.cs', 'cpu.sy', 'hw.mips'];

/** The paper's troff quotes (``null job'') as the quotation marks they print as (“null job”): the data keep the
 *  paper's text as it is (experiments/paper/README.md); a title is read, not compared with the paper. */
export function printedQuotes(text: string): string {
  return text.replace(/``/g, '\u201c').replace(/''/g, '\u201d');
}

const TABLE2_EXPERIMENTS: ExperimentSpec[] = [
  ...TABLE2_ROWS.map((row): ExperimentSpec => ({
    id: rowId(row.test),
    title: `Table 2, ${row.test}: ${printedQuotes(TABLE_1.find((p) => p.test === row.test)!.description)}`,
    group: GROUPS.table2,
    description: `Times \`${['./' + row.program, row.iterations, ...row.rest].join(' ')}\` with /bin/time on a fresh ` +
      `single-user 4.3BSD${row.largeEnvironment ? ', after the run script\'s 15 setenvs (1 KB of environment)' : ''}.\n` +
      'Compared with the 4.3BSD "Elapsed Time" column of the paper\'s Table 2.',
    paperRef: '§3.2.1 Micro-operation benchmarks, Tables 1 and 2',
    machine: TABLE2_MACHINE,
    steps: [table2Step(row)],
    parameters: { iterations: row.iterations },
    parameterHelp: { iterations: ITER_HELP },
    counters: TABLE2_COUNTERS,
    compare: TABLE2_COMPARE,
    view: 'table2',
    kernel: PAPER_KERNEL_VARIANT,
  })),
  {
    id: 'table2',
    title: `Table 2, every row we can run (${TABLE2_ROWS.length} of 29)`,
    group: GROUPS.table2,
    description: 'All 29 kernel benchmarks of the paper\'s run script (system calls, signals, pipes, forks, execs), ' +
      'each on a fresh single-user machine.\nCompared with the 4.3BSD "Elapsed Time" column of Table 2.',
    paperRef: '§3.2.1 Micro-operation benchmarks, Tables 1, 2 and 3',
    machine: TABLE2_MACHINE,
    steps: TABLE2_ROWS.map(table2Step),
    parameters: { divisor: 1 },
    parameterHelp: { divisor: DIV_HELP },
    counters: TABLE2_COUNTERS,
    compare: TABLE2_COMPARE,
    view: 'table2',
    kernel: PAPER_KERNEL_VARIANT,
  },
];

// ------------------------------------------------------------ Tables 6-8

/** Table 7's machine: "the test machine" with 4.5 MB (section 3.2.8), taken to be the 750 of section 3.2.1. */
export const PAGING_MACHINE: MachineSpec = {
  cpu: '750',
  memoryMB: PAGING_SETUP.memoryMegabytes,
  memoryNote: `the paper's ${PAGING_SETUP.memoryMegabytes} MB: section 3.2.8's "test machine" had ` +
    `${PAGING_SETUP.memoryMegabytes} MB (presumably the VAX-11/750 of section 3.2.1, with its two disks)`,
  boot: 'single',
  drives: 2,
};

/** A paging experiment made of several Table 6 programs (table7, table8). */
function pagingTableExperiment(id: string, title: string, description: string, paperRef: string,
  tests: readonly PagingTest[]): ExperimentSpec {
  return {
    id, title, group: GROUPS.paging, description, paperRef,
    machine: PAGING_MACHINE,
    steps: tests.map((t) => pagingStep(t)),
    parameters: { divisor: 1 },
    parameterHelp: { divisor: `${DIV_HELP}; a reduced run is a quick check, not comparable with the paper` },
    counters: PAGING_COUNTERS,
    compare: PAGING_COMPARE,
    view: 'paging',
    kernel: PAGING_KERNEL_VARIANT,
  };
}

/** The command's count: the run script's last argument. */
function pagingStep(test: PagingTest): StepSpec {
  const program = TABLE_6.find((p) => p.test === test)!;
  const words = program.run.command.split(' ');
  const count = Number(words.pop());
  const t7 = table7(test);
  const t8 = TABLE_8.find((r) => r.test === test);
  const bsd41: PaperColumn = {
    column: '4.1BSD', elapsed: t7.real.bsd41.value, user: t7.user.bsd41.value, system: t7.system.bsd41.value,
    pageFaults: t7.pageFaults.bsd41.value,
  };
  if (t8) bsd41.pfst = t8.pfst.bsd41.value;
  const paper: StepReference = {
    source: t8 ? 'Tables 7 and 8' : 'Table 7', column: '4.2BSD', count, scales: false,
    elapsed: t7.real.bsd42.value, user: t7.user.bsd42.value, system: t7.system.bsd42.value,
    pageFaults: t7.pageFaults.bsd42.value, others: [bsd41],
  };
  if (t8) paper.pfst = t8.pfst.bsd42.value;
  return {
    id: test,
    label: test,
    setup: [],
    command: [`./${words[0]}`, ...words.slice(1), '{n}'].join(' '),
    count,
    parse: 'time',
    kernel: {},
    readback: [],
    paper,
  };
}

export const PAGING_COMPARE =
  'ours = the guest\'s /bin/time (real, user, sys) and page-ins (the kernel\'s cnt.v_pgin over the command, which ' +
  'counts exactly the faults that read from disk, as ru_majflt does); compared with Table 7\'s 4.2BSD columns — the ' +
  'paper has no 4.3BSD column for Tables 7 and 8 (4.1 and 4.2 only), and we run 4.3BSD: by default like-4.2, 4.3BSD ' +
  'without the 4.3 improvements the paper describes (the lab\'s closest kernel to the 4.2BSD column, not 4.2BSD). ' +
  'PFST (Table 8) = system time / page faults; the paper prints it in units of 10 µs although its caption says µs, ' +
  'so both are shown in ms';

const PAGING_COUNTERS = ['paging.pi', 'paging.po', 'faults.pf', 'memory.freemem', 'paging.sr'];
const PAGING_HELP = 'the count (passes for seqpage, page references for the others; the run script\'s is the default) — ' +
  'a smaller count is a quick check, not comparable with the paper';

const PAGING_EXPERIMENTS: ExperimentSpec[] = [
  ...TABLE_6.map((p): ExperimentSpec => {
    const step = pagingStep(p.test);
    return {
      id: p.test,
      title: `Table 7, ${p.test}: ${p.description}`,
      group: GROUPS.paging,
      description: `Times \`${step.command.replace('{n}', String(step.count))}\` (the run script's arguments: a ` +
        '7.3 MB array, 7500 pages of 1 KB) on a fresh single-user 4.3BSD with the paper\'s 4.5 MB of memory, booted ' +
        `on ${PAGING_KERNEL_VARIANT} (4.3BSD without the 4.3 improvements the paper describes).\n` +
        'Compared with Table 7\'s 4.2BSD columns (real, user, system, page faults)' +
        `${step.paper?.pfst !== undefined ? ' and Table 8\'s page fault service time' : ''}.`,
      paperRef: '§3.2.8 Virtual memory subsystem, Tables 6, 7 and 8',
      machine: PAGING_MACHINE,
      steps: [step],
      parameters: { iterations: step.count! },
      parameterHelp: { iterations: PAGING_HELP },
      counters: PAGING_COUNTERS,
      compare: PAGING_COMPARE,
      view: 'paging',
      kernel: PAGING_KERNEL_VARIANT,
    };
  }),
  pagingTableExperiment('table7', 'Table 7, all 12 paging benchmarks (Table 6\'s programs)',
    'Sequential, random and Gaussian page references to a 7.3 MB array on a 4.5 MB machine, each program ' +
      `of Table 6 on a fresh single-user 4.3BSD booted on ${PAGING_KERNEL_VARIANT} (4.3BSD without the 4.3 ` +
      'improvements the paper describes).\nCompared with Table 7\'s 4.2BSD columns, and page fault service ' +
      'times with Table 8\'s.',
    '§3.2.8 Virtual memory subsystem, Tables 6, 7 and 8', TABLE_6.map((p) => p.test)),
  pagingTableExperiment('table8', 'Table 8, page fault service times (randpage, randpage-v, gausspage.inf)',
    `The three paging runs with many random page faults, on ${PAGING_KERNEL_VARIANT}; system time divided by page-ins.\n` +
      'Compared with Table 8\'s 4.2BSD column.',
    '§3.2.8 Virtual memory subsystem, Table 8', TABLE_8.map((r) => r.test)),
];

// ------------------------------------------------------------ section 4.1.1

/** Section 4.1.1 does not say on which machine `ls -l` was timed; we use the benchmark machine of 3.2.1. */
export const NAMEI_MACHINE: MachineSpec = {
  cpu: '750',
  memoryMB: KERNEL_BENCHMARK_MACHINE.memoryMegabytes,
  memoryNote: 'section 4.1.1 does not name the machine of its `ls -l` benchmark; we use the one the paper names for ' +
    `its benchmarks (3.2.1): the paper's ${KERNEL_BENCHMARK_MACHINE.memoryMegabytes} MB on a ${KERNEL_BENCHMARK_MACHINE.cpu}, two disks`,
  boot: 'single',
  drives: 2,
};

/** GENERIC's name cache: nchsize = NINODE * 11 / 10 with maxusers 8 (conf/param.c), 154 entries. */
export const GENERIC_NCHSIZE = 154;
/** "Depending on the size of the system, about 200 to 1000 entries will normally be configured." */
export const LARGE_NCHSIZE = 1000;
/** The sizes the name cache steps use: off, GENERIC's own (not set: read back), larger. */
export const NCH_SIZES: readonly (number | null)[] = [0, null, LARGE_NCHSIZE];

/** The deep paths namework opens: 5 components each, all in the image (/usr/src/sys from srcsys.tar). */
export const NAMEWORK_PATHS = [
  '/usr/src/sys/h/namei.h', '/usr/src/sys/sys/ufs_namei.c', '/usr/src/sys/vax/machdep.c', '/usr/src/sys/vaxmba/hp.c',
];
/** A PATH like a user's: the command (nulljob) is in the last directory; /usr/ucb and /usr/bin do not exist here. */
export const NAMEWORK_PATH_VARIABLE = `/usr/ucb:/bin:/usr/bin:${LAB_USR_BIN}`;
export const NAMEWORK_COUNT = 200;

function nchTag(size: number | null): string {
  return size === null ? `nch${GENERIC_NCHSIZE}` : `nch${size}`;
}
function nchLabel(size: number | null): string {
  return size === null ? `nchsize=${GENERIC_NCHSIZE} (GENERIC)` : size === 0 ? 'nchsize=0 (off)' : `nchsize=${size}`;
}

function lsStep(size: number | null): StepSpec {
  const off = size === 0;
  return {
    id: `ls.${nchTag(size)}`,
    label: `ls -l, ${nchLabel(size)}`,
    setup: [`cd ${LAB_NAMES}`],
    command: 'ls -l > /dev/null',
    count: null,
    parse: 'time',
    kernel: size === null ? {} : { nchsize: size },
    readback: ['nchsize'],
    family: { id: 'ls', label: 'ls -l' },
    paper: lsPaper(off),
    limitSeconds: 300,
    typicalSeconds: 13,
  };
}

function nameworkStep(size: number | null): StepSpec {
  return {
    id: `namework.${nchTag(size)}`,
    label: `namework, ${nchLabel(size)}`,
    setup: [`PATH=${NAMEWORK_PATH_VARIABLE}; export PATH`],
    command: `namework -x nulljob {n} ${NAMEWORK_PATHS.join(' ')}`,
    count: NAMEWORK_COUNT,
    parse: 'time',
    kernel: size === null ? {} : { nchsize: size },
    readback: ['nchsize'],
    family: { id: 'namework', label: 'namework' },
    paper: null,
    limitSeconds: 600,
    typicalSeconds: 40,
  };
}

/** The paper's `ls -l` figure for a kernel with both caches (GENERIC), or with only the per-process one. */
function lsPaper(off: boolean): StepReference {
  return {
    source: '§4.1.1',
    column: off ? 'per-process cache only' : 'both caches',
    system: (off ? LS_L_600_FILES.systemSeconds.perProcessCache : LS_L_600_FILES.systemSeconds.bothCaches).value,
    count: 1,
    scales: false,
  };
}

/** `ls -l` on whatever name cache the run's settings give (nchsize in the kernel variables; GENERIC's when not set). */
function lsAnySizeStep(): StepSpec {
  return {
    ...lsStep(null), id: 'ls', label: 'ls -l', kernel: {}, paper: lsPaper(false),
    paperWhen: [{ kernel: { nchsize: 0 }, paper: lsPaper(true) }],
  };
}

/** namework on whatever name cache the run's settings give. */
function nameworkAnySizeStep(): StepSpec {
  return { ...nameworkStep(null), id: 'namework', label: 'namework', kernel: {} };
}

const NAMEI_COMPARE =
  'ours = the guest\'s /bin/time (sys, user, real) and the kernel\'s nchstats over the command (hits = ncs_goodhits; ' +
  'misses = the other lookups: misses, bad and false hits, long names; offset = names found by the per-process ' +
  'directory offset cache, ncs_pass2); the paper gives only `ls -l`\'s system time: 22.3 s with no cache, 3.3 s ' +
  'with the per-process cache, 3.7 s with both (section 4.1.1) — the per-process cache is always on in 4.3BSD';
const NAMEI_COUNTERS = ['namei.lookups', 'namei.hits', 'namei.hitRate', 'namei.offsetHitRate', 'cpu.sy'];
const LS_DESC = '`ls -l` of /usr/lab/names (600 files), the paper\'s benchmark';
const WORK_DESC = `\`namework\`: ${NAMEWORK_COUNT} times, open ${NAMEWORK_PATHS.length} deep paths and run a command ` +
  `found through a 4-directory PATH`;

const SET_NCHSIZE = 'the name cache as the kernel variables set it (nchsize: empty for GENERIC\'s ' +
  `${GENERIC_NCHSIZE} entries, 0 turns it off)`;

const NAMEI_EXPERIMENTS: ExperimentSpec[] = [
  {
    id: 'ls-l',
    title: 'Name cache: ls -l of 600 files, with the name cache you set',
    group: GROUPS.namei,
    description: `${LS_DESC}, once, with ${SET_NCHSIZE}: run it twice and compare.\nThe paper: 3.7 s of system time ` +
      'with both caches, 3.3 s with the per-process cache alone (nchsize=0).',
    paperRef: '§4.1.1 Name Cacheing',
    machine: NAMEI_MACHINE,
    steps: [lsAnySizeStep()],
    parameters: {},
    parameterHelp: {},
    counters: NAMEI_COUNTERS,
    compare: NAMEI_COMPARE,
    view: 'namecache',
  },
  {
    id: 'namework',
    title: 'Name cache: a small set of names over and over, with the name cache you set',
    group: GROUPS.namei,
    description: `${WORK_DESC}, with ${SET_NCHSIZE}: run it twice and compare.\nThe paper expects a high hit rate ` +
      '(70-80% on its timesharing systems) and less system time.',
    paperRef: '§4.1.1 Name Cacheing',
    machine: NAMEI_MACHINE,
    steps: [nameworkAnySizeStep()],
    parameters: { iterations: NAMEWORK_COUNT },
    parameterHelp: { iterations: 'times namework opens its paths and runs its command' },
    counters: NAMEI_COUNTERS,
    compare: NAMEI_COMPARE,
    view: 'namecache',
  },
  {
    id: 'namecache',
    title: 'Name cache: ls -l of 600 files, and a small set of names over and over, at three cache sizes',
    group: GROUPS.namei,
    description: `${LS_DESC}, and ${WORK_DESC}, each with the name cache off (nchsize=0), at GENERIC's ` +
      `${GENERIC_NCHSIZE} entries and at ${LARGE_NCHSIZE}.\nShows system time and the name cache's hits, misses and ` +
      'hit rate (nchstats); the paper: `ls -l` 3.3 s with the per-process cache alone, 3.7 s with both.',
    paperRef: '§4.1.1 Name Cacheing',
    machine: NAMEI_MACHINE,
    steps: [...NCH_SIZES.map(lsStep), ...NCH_SIZES.map(nameworkStep)],
    parameters: { divisor: 1 },
    parameterHelp: { divisor: 'divide namework\'s count by this (1 = 200); ls -l always lists all 600 files' },
    counters: NAMEI_COUNTERS,
    compare: NAMEI_COMPARE,
    view: 'namecache',
  },
  {
    id: 'namecache-ls',
    title: 'Name cache: ls -l of 600 files at three cache sizes',
    group: GROUPS.namei,
    description: `${LS_DESC}, with the name cache off, at GENERIC's ${GENERIC_NCHSIZE} entries and at ` +
      `${LARGE_NCHSIZE}.\nThe paper: 3.3 s of system time with the per-process cache alone, 3.7 s with both caches.`,
    paperRef: '§4.1.1 Name Cacheing',
    machine: NAMEI_MACHINE,
    steps: NCH_SIZES.map(lsStep),
    parameters: {},
    parameterHelp: {},
    counters: NAMEI_COUNTERS,
    compare: NAMEI_COMPARE,
    view: 'namecache',
  },
  {
    id: 'namecache-work',
    title: 'Name cache: a small set of names over and over at three cache sizes',
    group: GROUPS.namei,
    description: `${WORK_DESC}, with the name cache off, at GENERIC's ${GENERIC_NCHSIZE} entries and at ` +
      `${LARGE_NCHSIZE}.\nThe paper expects a high hit rate (70-80% on its timesharing systems) and less system time.`,
    paperRef: '§4.1.1 Name Cacheing',
    machine: NAMEI_MACHINE,
    steps: NCH_SIZES.map(nameworkStep),
    parameters: { divisor: 1 },
    parameterHelp: { divisor: 'divide namework\'s count by this (1 = 200)' },
    counters: NAMEI_COUNTERS,
    compare: NAMEI_COMPARE,
    view: 'namecache',
  },
];

// ------------------------------------------------------------ all

export const EXPERIMENTS: ExperimentSpec[] = [
  ...TABLE2_EXPERIMENTS, ...PAGING_EXPERIMENTS, ...NAMEI_EXPERIMENTS, KERNEL_BUILD_EXPERIMENT,
];

export function findExperiment(id: string): ExperimentSpec | undefined {
  return EXPERIMENTS.find((e) => e.id === id);
}

/** The groups in order, with their experiments. */
export function experimentGroups(): { group: string; experiments: ExperimentSpec[] }[] {
  const out = new Map<string, ExperimentSpec[]>();
  for (const e of EXPERIMENTS) out.set(e.group, [...(out.get(e.group) ?? []), e]);
  return [...out].map(([group, experiments]) => ({ group, experiments }));
}

/** The count a step runs with: `iterations` for a one-step experiment, else the paper's count / `divisor`. */
export function stepCount(spec: ExperimentSpec, step: StepSpec, parameters: Record<string, number>): number | null {
  if (step.count === null) return null;
  if (spec.steps.length === 1 && parameters.iterations !== undefined) return parameters.iterations;
  return Math.max(1, Math.round(step.count / (parameters.divisor ?? 1)));
}

/** The paper's figures for a step on a kernel with these settings (StepSpec.paperWhen, else its own). */
export function stepPaper(step: StepSpec, kernel: Record<string, number>): StepReference | null {
  const when = step.paperWhen?.find((w) => Object.entries(w.kernel).every(([k, v]) => kernel[k] === v));
  return when ? when.paper : step.paper;
}

/** The command line a step types (without /bin/time). */
export function stepCommand(step: StepSpec, count: number | null): string {
  return count === null ? step.command : step.command.replace('{n}', String(count));
}
