// What an experiment is, as types: the machine, the steps and the paper's
// figures they are compared with, and the groups the experiments are listed
// in.  Apart from the experiments themselves (experiments.ts), so that an
// experiment defined elsewhere (kernels/build.ts: the kernel build as a
// workload) can be typed and grouped without importing the list it is in.

/** How the machine is set up for an experiment. */
export interface MachineSpec {
  cpu: '750' | '780';
  /** MB, in steps of 0.25 (256 KB; the memoryMB toggle): 4.5 is the paper's 750. */
  memoryMB: number;
  /** Why this much memory (and this processor). */
  memoryNote: string;
  boot: 'single';
  /** Drives on the MASSBUS (default 1).  1: hp0 holds everything, and the
   *  programs run from /lab/bin on the root file system.  2: the paper's 750
   *  ("two disks on a MASSBUS controller", root and swap on one of them:
   *  "Paging was localized to the drive where the root file system was
   *  located"): hp1 is a second RP06 over the same pack, /usr is mounted from
   *  it (/dev/hp1g) and the programs run from /usr/lab/bin, so a program's
   *  file and the swap area are under different arms (emu/docs/timing.md,
   *  "Disks"). */
  drives?: 1 | 2;
}

/** What a step's output is parsed for.  'time': the guest's /bin/time line
 *  (real, user and sys seconds) and the exit status. */
export type ParseKind = 'time';

/** One column of the paper's figures for a row: a system the paper measured (any figure may be missing). */
export interface PaperColumn {
  /** Which column, e.g. "4.3BSD"; "4.2BSD" for Table 7, which has no 4.3 column. */
  column: string;
  /** Seconds (Table 2's "Elapsed Time", Table 7's "Real"). */
  elapsed?: number;
  user?: number;
  system?: number;
  /** Table 7's "Page Faults". */
  pageFaults?: number;
  /** Table 8's "PFST" as printed (see experiments/paper/paging.ts: in units of 10 microseconds). */
  pfst?: number;
}

/** The paper's figures for one step: the column compared with, and the others beside it. */
export interface StepReference extends PaperColumn {
  /** Where they come from, e.g. "Table 2". */
  source: string;
  /** The count (the command's {n}) the figures are for. */
  count: number;
  /** True when the figures scale in proportion to the count (Table 2's
   *  loops); false when a smaller count is not comparable (paging: the first
   *  pass fills memory). */
  scales: boolean;
  /** The paper's other columns for the same row (Table 2's 4.2 and 4.1BSD, Table 7's 4.1BSD), shown beside
   *  the one compared with; the same count and scaling. */
  others?: PaperColumn[];
}

/** One timed command. */
export interface StepSpec {
  /** Unique within the experiment, e.g. "syscall", "seqpage-v", "ls.nch0". */
  id: string;
  /** As shown: the paper's test name, or what the step varies. */
  label: string;
  /** Shell lines typed, each waited for, after the machine's own (runner.ts machineSetup: /usr mounted, cd to the programs). */
  setup: string[];
  /** The timed command line, run as `/bin/time COMMAND; echo exit $?`; "{n}" stands for the count. */
  command: string;
  /** The paper's count ({n}); null when the command has none. */
  count: number | null;
  parse: ParseKind;
  /** Kernel variables (_NAME) patched before this step's kernel runs. */
  kernel: Record<string, number>;
  /** Kernel variables read back from the running kernel after boot (e.g. nchsize). */
  readback: string[];
  /** The paper's figures for this step; null when it has none. */
  paper: StepReference | null;
  /** Other figures of the paper for this step when its kernel has these settings (the first that matches):
   *  `ls -l` with the name cache off is the paper's "per-process cache only" case. */
  paperWhen?: { kernel: Record<string, number>; paper: StepReference | null }[];
  /** Virtual-second limit of the timed command at the paper's count (default: rowLimit). */
  limitSeconds?: number;
  /** One of the rows the timing model was fitted on (emu/docs/timing.md); every other row is held out. */
  calibration?: boolean;
  /** About how long the timed command takes at the paper's count on the experiment's machine (virtual seconds),
   *  for a step the paper gives no elapsed time for: the page's estimate before a run. */
  typicalSeconds?: number;
  /** For a step that is one of several running the same command with its own
   *  value of a kernel variable (namecache's nchsize): the command itself.  A
   *  sweep over that variable runs one step per family at each of its points
   *  (sweep.ts), with this id and label. */
  family?: { id: string; label: string };
}

/** How the CLI (and the page) lays out the result. */
export type ExperimentView = 'table2' | 'paging' | 'namecache';

export interface ExperimentSpec {
  id: string;
  title: string;
  /** The paper section, e.g. "Micro-operations (3.2.1, Table 2)". */
  group: string;
  /** Two lines (separated by "\n"): what runs, and what it is compared with. */
  description: string;
  /** Where in the paper, e.g. "§3.2.1 Micro-operation benchmarks, Table 2". */
  paperRef: string;
  machine: MachineSpec;
  steps: StepSpec[];
  /** The parameters (--param NAME=VALUE) with their defaults. */
  parameters: Record<string, number>;
  /** What a parameter means. */
  parameterHelp: Record<string, string>;
  /** Counter ids (counters.ts) worth charting for this experiment. */
  counters: string[];
  /** What "ours" is compared with, in words. */
  compare: string;
  view: ExperimentView;
  /** The kernel this experiment boots unless a run asks for another (RunOptions.kernel, the CLI's --kernel, the
   *  page's kernel choice): a variant the installer builds, by name (experiments/kernels/variants.ts).  Absent:
   *  the image's /vmunix.  Each table boots the lab's closest kernel to the paper's column it is compared with:
   *  Table 2's (the 4.3 column) PAPER_KERNEL_VARIANT, Tables 7 and 8's (the 4.2 column) PAGING_KERNEL_VARIANT. */
  kernel?: string;
}

// ------------------------------------------------------------ groups

export const GROUPS = {
  table2: 'Micro-operations (3.2.1, Table 2)',
  paging: 'Paging (3.2.8, Tables 6–8)',
  namei: 'Name translation (4.1.1)',
  workloads: 'Workloads',
} as const;
