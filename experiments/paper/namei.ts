// Path name translation: every number of section 4.1.1 "Name Cacheing", each
// with the sentence it comes from, and the three namei profiles (Table 4 of
// section 3.2.2, the 4.2BSD baseline, and Tables 9 and 10 of section 4.1.1).
// Checked against the paper's text by experiments/experiments.test.ts,
// which also checks that no number of the section is missing here.

import { cell, type Cell, type PaperRef, type Quote } from './types';

export const SECTION_4_1_1_REF: PaperRef = {
  section: '4.1.1',
  sectionTitle: 'Name Cacheing',
  page: 17,
  lines: [1086, 1282],
};

/** A number quoted in the text. */
export interface QuotedNumber {
  /** A name for it in this module. */
  readonly id: string;
  /** What it measures, in our words. */
  readonly what: string;
  /** Exactly as printed, e.g. "22.3", "36%", "500,000 to 1,000,000". */
  readonly raw: string;
  /** Its value, or for a range its two ends (percentages as percent, "36%" is 36). */
  readonly value: number | readonly [number, number];
  readonly unit: string;
  /** The line of the text file where `raw` starts. */
  readonly line: number;
  readonly sentence: Quote;
}

function q(id: string, what: string, raw: string, value: number | readonly [number, number], unit: string,
  line: number, sentence: Quote): QuotedNumber {
  return { id, what, raw, value, unit, line, sentence };
}

const S = {
  quarter: { text: 'Our initial profiling studies showed that more than one quarter of the time in the system was spent ' +
    'in the pathname translation routine, namei, translating path names to inodes1[15].', lines: [1088, 1091] },
  order: { text: 'For programs that step sequentially through a directory with N files, search time decreases from ' +
    'O(N2) to O(N).', lines: [1117, 1119] },
  offsetCost: { text: "The cost of the cache is about 20 lines of code (about 0.2 kilobytes) and 16 bytes per process, " +
    "with the cached data stored in a process's user vector.", lines: [1121, 1123] },
  ls: { text: "As a quick benchmark to verify the maximum effectiveness of the cache we ran ``ls -l'' on a directory " +
    'containing 600 files.', lines: [1125, 1127] },
  lsBefore: { text: 'Before the per-process cache this command used 22.3 seconds of system time.', lines: [1127, 1128] },
  lsOffset: { text: 'After adding the cache the program used the same amount of user time, but the system time dropped ' +
    'to 3.3 seconds.', lines: [1128, 1130] },
  offsetProfile: { text: 'The results showed that the time in namei dropped by only 2.6 ms/call and still accounted for ' +
    '36% of the system call time, 18% of the kernel, or about 10% of all the machine cycles.', lines: [1133, 1136] },
  offsetSystem: { text: 'This amounted to a drop in system time from 57% to about 55%.', lines: [1136, 1137] },
  offsetHits: { text: 'Although the cache was 90% effective when hit, it was only usable on about 25% of the names being ' +
    'translated.', lines: [1152, 1154] },
  capability: { text: "Thus, we chose instead to keep ``soft references'' protected by a capability - a 32-bit number " +
    'guaranteed to be unique2 [19].', lines: [1203, 1205] },
  nameCost: { text: 'The cost of the name cache is about 200 lines of code (about 1.2 kilobytes) and 48 bytes per cache ' +
    'entry.', lines: [1230, 1231] },
  nameSize: { text: 'Depending on the size of the system, about 200 to 1000 entries will normally be configured, using ' +
    '10-50 kilobytes of physical memory.', lines: [1231, 1234] },
  lsBoth: { text: 'The user time remained the same, however the system time rose slightly to 3.7 seconds.',
    lines: [1238, 1239] },
  period: { text: 'Another profiled system was created and measurements were collected over a 17 hour period.',
    lines: [1243, 1244] },
  bothProfile: { text: 'These measurements showed a 13 ms/call decrease in namei, with namei accounting for only 26% of ' +
    'the system call time, 13% of the time in the kernel, or about 7% of all the machine cycles.', lines: [1244, 1247] },
  bothSystem: { text: 'System time dropped from 55% to about 49%.', lines: [1247, 1248] },
  perDay: { text: 'On our general time sharing systems we find that during the twelve hour period from 8AM to 8PM the ' +
    'system does 500,000 to 1,000,000 name translations.', lines: [1262, 1264] },
  hitRates: { text: 'The name cache has a hit rate of 70%-80%; the directory offset cache gets a hit rate of 5%-15%.',
    lines: [1266, 1268] },
  combined: { text: 'The combined hit rate of the two caches almost always adds up to 85%.', lines: [1268, 1269] },
  share: { text: 'With the addition of the two caches, the percentage of system time devoted to name translation has ' +
    'dropped from 25% to less than 13%.', lines: [1269, 1271] },
} as const satisfies Record<string, Quote>;

/** Every number in section 4.1.1 outside Tables 9 and 10, in the order of the text. */
export const SECTION_4_1_1_NUMBERS: readonly QuotedNumber[] = [
  q('nameiShareBefore', 'share of system time in namei before the caches (a lower bound)', 'more than one quarter',
    0.25, 'fraction of system time', 1088, S.quarter),
  q('scanOrderBefore', 'exponent of N in the time to step through a directory of N files without the cache ' +
    '(O(N2) is O(N squared), the superscript flattened in this text)', 'O(N2)', 2, 'exponent', 1119, S.order),
  q('offsetCacheLines', 'size of the per-process (directory offset) cache code', '20', 20, 'lines of code', 1121,
    S.offsetCost),
  q('offsetCacheKilobytes', 'size of the per-process cache code', '0.2', 0.2, 'kilobytes', 1122, S.offsetCost),
  q('offsetCacheBytesPerProcess', 'per-process cache data', '16', 16, 'bytes per process', 1122, S.offsetCost),
  q('lsFiles', 'files in the directory listed by `ls -l`', '600', 600, 'files', 1127, S.ls),
  q('lsSystemNoCache', 'system time of `ls -l` on 600 files, no cache', '22.3', 22.3, 'seconds', 1128, S.lsBefore),
  q('lsSystemOffsetCache', 'system time of `ls -l` on 600 files, per-process cache', '3.3', 3.3, 'seconds', 1130,
    S.lsOffset),
  q('offsetNameiDecrease', 'drop in namei time per call with the per-process cache', '2.6', 2.6, 'ms/call', 1134,
    S.offsetProfile),
  q('offsetNameiSyscallShare', 'namei share of system call time, per-process cache', '36%', 36, 'percent', 1135,
    S.offsetProfile),
  q('offsetNameiKernelShare', 'namei share of kernel time, per-process cache', '18%', 18, 'percent', 1135,
    S.offsetProfile),
  q('offsetNameiCycleShare', 'namei share of all machine cycles, per-process cache (about)', '10%', 10, 'percent',
    1136, S.offsetProfile),
  q('systemTimeNoCache', 'system time share before the per-process cache', '57%', 57, 'percent of cycles', 1137,
    S.offsetSystem),
  q('systemTimeOffsetCache', 'system time share with the per-process cache (about)', '55%', 55, 'percent of cycles',
    1137, S.offsetSystem),
  q('offsetCacheEffectiveWhenHit', 'per-process cache effectiveness when hit', '90%', 90, 'percent', 1152,
    S.offsetHits),
  q('offsetCacheUsable', 'names for which the per-process cache was usable (about)', '25%', 25, 'percent', 1153,
    S.offsetHits),
  q('capabilityBits', 'width of an inode capability', '32', 32, 'bits', 1204, S.capability),
  q('nameCacheLines', 'size of the name cache code (about)', '200', 200, 'lines of code', 1230, S.nameCost),
  q('nameCacheKilobytes', 'size of the name cache code (about)', '1.2', 1.2, 'kilobytes', 1231, S.nameCost),
  q('nameCacheBytesPerEntry', 'name cache entry size', '48', 48, 'bytes per entry', 1231, S.nameCost),
  q('nameCacheEntries', 'name cache entries normally configured (about)', '200 to 1000', [200, 1000], 'entries', 1232,
    S.nameSize),
  q('nameCacheKilobytesOfMemory', 'physical memory of the name cache', '10-50', [10, 50], 'kilobytes', 1233,
    S.nameSize),
  q('lsSystemBothCaches', 'system time of `ls -l` on 600 files, both caches', '3.7', 3.7, 'seconds', 1239, S.lsBoth),
  q('bothProfileHours', 'length of the profiling run with both caches', '17', 17, 'hours', 1244, S.period),
  q('bothNameiDecrease', 'drop in namei time per call with both caches', '13', 13, 'ms/call', 1245, S.bothProfile),
  q('bothNameiSyscallShare', 'namei share of system call time, both caches', '26%', 26, 'percent', 1246,
    S.bothProfile),
  q('bothNameiKernelShare', 'namei share of kernel time, both caches', '13%', 13, 'percent', 1246, S.bothProfile),
  q('bothNameiCycleShare', 'namei share of all machine cycles, both caches (about)', '7%', 7, 'percent', 1247,
    S.bothProfile),
  q('systemTimeBeforeNameCache', 'system time share before the name cache', '55%', 55, 'percent of cycles', 1248,
    S.bothSystem),
  q('systemTimeBothCaches', 'system time share with both caches (about)', '49%', 49, 'percent of cycles', 1248,
    S.bothSystem),
  q('translationPeriodHours', 'the daytime period counted', 'twelve', 12, 'hours', 1263, S.perDay),
  q('translationPeriodClock', 'from 8AM to 8PM (as hours of the day)', 'from 8AM to 8PM', [8, 20], 'hour of day',
    1263, S.perDay),
  q('translationsPerPeriod', 'name translations in those twelve hours', '500,000 to 1,000,000', [500000, 1000000],
    'name translations', 1264, S.perDay),
  q('nameCacheHitRate', 'name cache hit rate', '70%-80%', [70, 80], 'percent', 1267, S.hitRates),
  q('offsetCacheHitRate', 'directory offset cache hit rate', '5%-15%', [5, 15], 'percent', 1268, S.hitRates),
  q('combinedHitRate', 'combined hit rate of the two caches (almost always)', '85%', 85, 'percent', 1269, S.combined),
  q('translationShareBefore', 'share of system time in name translation before the caches', '25%', 25, 'percent',
    1271, S.share),
  q('translationShareAfter', 'share of system time in name translation with both caches (less than)', '13%', 13,
    'percent', 1271, S.share),
];

/**
 * The `ls -l` benchmark of section 4.1.1: system time on a directory of 600
 * files; the user time stayed the same throughout.
 */
export const LS_L_600_FILES = {
  files: 600,
  systemSeconds: {
    noCache: cell('22.3'),
    perProcessCache: cell('3.3'),
    bothCaches: cell('3.7'),
  },
  userTime: 'unchanged',
  why: {
    text: 'This was not surprising as namei now had to maintain the cache, but was never able to make any use of it.',
    lines: [1239, 1241],
  },
} as const;

// ---------------------------------------------------------------- Tables 4, 9, 10

export interface NameiPart {
  readonly part: 'self' | 'child' | 'total';
  /** ms/call. */
  readonly time: Cell;
  /** "% of kernel", raw with its "%". */
  readonly percentOfKernel: Cell;
  readonly line: number;
}

export interface NameiProfile {
  readonly ref: PaperRef;
  readonly rows: readonly NameiPart[];
}

const part = (line: number, p: NameiPart['part'], time: string, pct: string): NameiPart =>
  ({ part: p, time: cell(time), percentOfKernel: cell(pct), line });

/** Table 4: namei in 4.2BSD, before either cache (section 3.2.2). */
export const TABLE_4: NameiProfile = {
  ref: { section: '3.2.2', sectionTitle: 'Path name translation', table: 4,
    caption: 'Table 4. Call times for namei in 4.2BSD.', page: 11, lines: [732, 741] },
  rows: [part(735, 'self', '14.3', '11.3%'), part(736, 'child', '9.9', '7.9%'), part(738, 'total', '24.2', '19.2%')],
};

/** Table 9: namei with the per-process (directory offset) cache. */
export const TABLE_9: NameiProfile = {
  ref: { section: '4.1.1', sectionTitle: 'Name Cacheing', table: 9,
    caption: 'Table 9. Call times for namei with per-process cache.', page: 18, lines: [1140, 1149] },
  rows: [part(1143, 'self', '11.0', '9.2%'), part(1144, 'child', '10.6', '8.9%'), part(1146, 'total', '21.6', '18.1%')],
};

/** Table 10: namei with the per-process cache and the system-wide name cache. */
export const TABLE_10: NameiProfile = {
  ref: { section: '4.1.1', sectionTitle: 'Name Cacheing', table: 10,
    caption: 'Table 10.  Call times for namei with both caches.', page: 20, lines: [1251, 1260] },
  rows: [part(1254, 'self', '4.2', '6.2%'), part(1255, 'child', '4.4', '6.6%'), part(1257, 'total', '8.6', '12.8%')],
};
