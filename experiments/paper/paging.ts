// Section 3.2.8 "Virtual memory subsystem": Table 6 (the paging benchmark
// programs), Table 7 (their results under 4.1 and 4.2BSD) and Table 8 (page
// fault service times).  Transcribed exactly; checked against the paper's
// text by experiments/experiments.test.ts.

import { cell, type Cell, type PaperRef, type RunScriptCommand } from './types';

export const PAGING_TESTS = [
  'seqpage', 'seqpage-v', 'randpage', 'randpage-v',
  'gausspage.1', 'gausspage.10', 'gausspage.30', 'gausspage.40', 'gausspage.50', 'gausspage.60', 'gausspage.80',
  'gausspage.inf',
] as const;
export type PagingTest = (typeof PAGING_TESTS)[number];

/** What the paging tests do and the machine they ran on, in the paper's words. */
export const PAGING_SETUP = {
  array: {
    text: 'The test programs dynamically allocated a 7.3 Megabyte array (using sbrk(2)) then referenced pages in ' +
      'the array either: sequentially, in a purely random fashion, or such that the distance between successive ' +
      'pages accessed was randomly selected from a Gaussian distribution.',
    lines: [970, 974],
  },
  arrayMegabytes: cell('7.3'),
  /** The run script passes "-p 7500": 7500 pages of getpagesize() = 1024 bytes on the VAX, 7.32 megabytes. */
  pages: 7500,
  standardDeviations: {
    text: 'In the last case, successive runs were made with increasing standard deviations.',
    lines: [975, 976],
  },
  machine: {
    text: 'Under 4.1BSD, the system used 0.5 of the 4.5 megabytes of physical memory on the test machine; under ' +
      '4.2BSD it used nearly 1 megabyte of physical memory.',
    lines: [999, 1001],
  },
  /** "the test machine": section 3.2.8 does not name it; 4.5 megabytes is the VAX-11/750 of section 3.2.1. */
  memoryMegabytes: 4.5,
  /** Footnote [13] to the sentence above. */
  systemsFootnote: {
    text: 'The 4.1BSD system used for testing was really a 4.1a system configured with networking facilities and ' +
      'code to support remote file access.',
    lines: [1048, 1050],
  },
  pageFaultServiceQuote: {
    text: 'To establish a common ground on which to compare the paging routines of each system, we check instead ' +
      'the average page fault service times for those test runs that had a statistically significant number of ' +
      'random page faults.',
    lines: [1007, 1010],
  },
} as const;

// ---------------------------------------------------------------- Table 6

export interface PagingProgram {
  readonly test: PagingTest;
  readonly description: string;
  readonly line: number;
  readonly run: RunScriptCommand;
  /** For the gausspage tests, the standard deviation in pages (the run script's -s). */
  readonly standardDeviation?: number;
}

export const TABLE_6_REF: PaperRef = {
  section: '3.2.8',
  sectionTitle: 'Virtual memory subsystem',
  table: 6,
  caption: 'Table 6. Paging benchmark programs.',
  page: 15,
  lines: [978, 995],
};

const RUN: Record<PagingTest, RunScriptCommand> = {
  'seqpage': { command: 'seqpage -p 7500 10', line: 2844, largeEnvironment: false },
  'seqpage-v': { command: 'seqpage -v -p 7500 10', line: 2845, largeEnvironment: false },
  'randpage': { command: 'randpage -p 7500 30000', line: 2846, largeEnvironment: false },
  'randpage-v': { command: 'randpage -v -p 7500 30000', line: 2847, largeEnvironment: false },
  'gausspage.1': { command: 'gausspage -p 7500 -s 1 30000', line: 2848, largeEnvironment: false },
  'gausspage.10': { command: 'gausspage -p 7500 -s 10 30000', line: 2849, largeEnvironment: false },
  'gausspage.30': { command: 'gausspage -p 7500 -s 30 30000', line: 2850, largeEnvironment: false },
  'gausspage.40': { command: 'gausspage -p 7500 -s 40 30000', line: 2851, largeEnvironment: false },
  'gausspage.50': { command: 'gausspage -p 7500 -s 50 30000', line: 2852, largeEnvironment: false },
  'gausspage.60': { command: 'gausspage -p 7500 -s 60 30000', line: 2853, largeEnvironment: false },
  'gausspage.80': { command: 'gausspage -p 7500 -s 80 30000', line: 2854, largeEnvironment: false },
  'gausspage.inf': { command: 'gausspage -p 7500 -s 10000 30000', line: 2855, largeEnvironment: false },
};

function t6(line: number, test: PagingTest, description: string): PagingProgram {
  const sd = /-s (\d+)/.exec(RUN[test].command);
  return sd ? { test, description, line, run: RUN[test], standardDeviation: Number(sd[1]) }
    : { test, description, line, run: RUN[test] };
}

export const TABLE_6: readonly PagingProgram[] = [
  t6(981, 'seqpage', 'sequentially touch pages, 10 iterations'),
  t6(982, 'seqpage-v', 'as above, but first make vadvise(2) call'),
  t6(983, 'randpage', 'touch random page 30,000 times'),
  t6(984, 'randpage-v', 'as above, but first make vadvise call'),
  t6(985, 'gausspage.1', '30,000 Gaussian accesses, standard deviation of 1'),
  t6(986, 'gausspage.10', 'as above, standard deviation of 10'),
  t6(987, 'gausspage.30', 'as above, standard deviation of 30'),
  t6(988, 'gausspage.40', 'as above, standard deviation of 40'),
  t6(989, 'gausspage.50', 'as above, standard deviation of 50'),
  t6(990, 'gausspage.60', 'as above, standard deviation of 60'),
  t6(991, 'gausspage.80', 'as above, standard deviation of 80'),
  t6(992, 'gausspage.inf', 'as above, standard deviation of 10,000'),
];

// ---------------------------------------------------------------- Table 7

/** A measurement under 4.1BSD and 4.2BSD. */
export interface Two {
  readonly bsd41: Cell;
  readonly bsd42: Cell;
}

export interface PagingResult {
  readonly test: PagingTest;
  /** Seconds ("Real"). */
  readonly real: Two;
  /** Seconds ("User"). */
  readonly user: Two;
  /** Seconds ("System"). */
  readonly system: Two;
  /** A count ("Page Faults"). */
  readonly pageFaults: Two;
  readonly line: number;
}

export const TABLE_7_REF: PaperRef = {
  section: '3.2.8',
  sectionTitle: 'Virtual memory subsystem',
  table: 7,
  caption: 'Table 7. Paging benchmark results (all times in seconds).',
  page: 16,
  lines: [1016, 1035],
};

type Raw2 = readonly [string, string];
const two = ([a, b]: Raw2): Two => ({ bsd41: cell(a), bsd42: cell(b) });

function t7(line: number, test: PagingTest, real: Raw2, user: Raw2, system: Raw2, pageFaults: Raw2): PagingResult {
  return { test, real: two(real), user: two(user), system: two(system), pageFaults: two(pageFaults), line };
}

export const TABLE_7: readonly PagingResult[] = [
  t7(1021, 'seqpage', ['959', '1126'], ['16.7', '12.8'], ['197.0', '213.0'], ['17132', '17113']),
  t7(1022, 'seqpage-v', ['579', '812'], ['3.8', '5.3'], ['216.0', '237.7'], ['8394', '8351']),
  t7(1023, 'randpage', ['571', '569'], ['6.7', '7.6'], ['64.0', '77.2'], ['8085', '9776']),
  t7(1024, 'randpage-v', ['572', '562'], ['6.1', '7.3'], ['62.2', '77.5'], ['8126', '9852']),
  t7(1025, 'gausspage.1', ['25', '24'], ['23.6', '23.8'], ['0.8', '0.8'], ['8', '8']),
  t7(1026, 'gausspage.10', ['26', '26'], ['22.7', '23.0'], ['3.2', '3.6'], ['2', '2']),
  t7(1027, 'gausspage.30', ['34', '33'], ['25.0', '24.8'], ['8.6', '8.9'], ['2', '2']),
  t7(1028, 'gausspage.40', ['42', '81'], ['23.9', '25.0'], ['11.5', '13.6'], ['3', '260']),
  t7(1029, 'gausspage.50', ['113', '175'], ['24.2', '26.2'], ['19.6', '26.3'], ['784', '1851']),
  t7(1030, 'gausspage.60', ['191', '234'], ['27.6', '26.7'], ['27.4', '36.0'], ['2067', '3177']),
  t7(1031, 'gausspage.80', ['312', '329'], ['28.0', '27.9'], ['41.5', '52.0'], ['3933', '5105']),
  t7(1032, 'gausspage.inf', ['619', '621'], ['82.9', '85.6'], ['68.3', '81.5'], ['8046', '9650']),
];

export function table7(test: PagingTest): PagingResult {
  const row = TABLE_7.find((r) => r.test === test);
  if (!row) throw new Error(`no Table 7 row ${test}`);
  return row;
}

// ---------------------------------------------------------------- Table 8

export interface PageFaultServiceTime {
  readonly test: 'randpage' | 'randpage-v' | 'gausspage.inf';
  /** A count ("Page Faults"), the same as Table 7's. */
  readonly pageFaults: Two;
  /**
   * "PFST", page fault service time, as printed; the caption says "all times
   * in microseconds".  The numbers are Table 7's system time divided by its
   * page faults in units of 10 microseconds (64.0 s / 8085 = 7.9 ms, printed
   * 791), so either the unit or the figures are off by a factor of ten.
   */
  readonly pfst: Two;
  readonly line: number;
}

export const TABLE_8_REF: PaperRef = {
  section: '3.2.8',
  sectionTitle: 'Virtual memory subsystem',
  table: 8,
  caption: 'Table 8. Page fault service times (all times in microseconds).',
  page: 17,
  lines: [1058, 1068],
};

export const TABLE_8: readonly PageFaultServiceTime[] = [
  { test: 'randpage', pageFaults: two(['8085', '9776']), pfst: two(['791', '789']), line: 1063 },
  { test: 'randpage-v', pageFaults: two(['8126', '9852']), pfst: two(['765', '786']), line: 1064 },
  { test: 'gausspage.inf', pageFaults: two(['8046', '9650']), pfst: two(['848', '844']), line: 1065 },
];
