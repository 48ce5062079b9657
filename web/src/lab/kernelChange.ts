// A kernel variant ("4.3BSD without …", experiments/kernels/variants.ts)
// compared with GENERIC, set beside what the paper measured from 4.2BSD to
// 4.3BSD: for each row the paper reports both ways, the paper's 4.2 and 4.3
// figures and their change, and ours from the variant to GENERIC.  The
// paper's rows: Table 2's (its 4.2BSD and 4.3BSD columns, scaled to our
// count as the result's own table scales them) and §4.1.1's `ls -l` of 600
// files (22.3 s of system time before the per-process cache, 3.3 s after,
// 3.7 s with both caches), whichever caches each side's kernel has.
//
// Direction: both changes read "toward 4.3BSD" — the paper's from its 4.2 to
// its 4.3, ours from the variant (what 4.3BSD was without the improvement)
// to GENERIC.  Pure functions, no DOM.

import { LS_L_600_FILES } from '../../../experiments/paper';
import type { ExperimentResult, RowResult } from '../../../experiments/runner/result';
import {
  formatSeconds, paperFigures, signed, type Column, type ResultPair, type ResultTable, type TableRow,
} from '../../../experiments/runner/resultView';
import { NO_NAME_CACHE, NO_OFFSET_CACHE, isWithoutLabel, type KernelVariant } from '../../../experiments/kernels/variants';
import { resultKernel } from './compare';

/** One figure of one row, the paper's way and ours. */
export interface KernelChangeRow {
  test: string;
  figure: 'real' | 'sys';
  /** Where the paper's figures are: "Table 2", "§4.1.1". */
  source: string;
  /** What the paper's "before" is: "4.2BSD", "before the per-process cache" … */
  paperBeforeWhat: string;
  paperAfterWhat: string;
  paperBefore: number;
  paperAfter: number;
  /** (after − before) / before, in %. */
  paperChange: number;
  /** The variant's figure and GENERIC's (null when that run's row failed). */
  oursBefore: number | null;
  oursAfter: number | null;
  oursChange: number | null;
}

export interface KernelChange {
  variant: KernelVariant;
  /** Which run of the pair is GENERIC (the distributed /vmunix, or GENERIC built from source). */
  genericSide: 'a' | 'b';
  rows: KernelChangeRow[];
  notes: string[];
}

/** GENERIC: the image's /vmunix, or the kernel the installer built from the same sources. */
function isGeneric(result: Pick<ExperimentResult, 'kernel'>): boolean {
  const k = resultKernel(result);
  return k.name === '/vmunix' || k.variant?.name === 'generic';
}

/** The variant a result ran, when it is one of the installer's "4.3BSD without …" kernels (not a spring-1985
 *  one: what it takes back is not part of the paper's 4.2 → 4.3 change, so there is nothing to set beside it). */
function revertVariant(result: Pick<ExperimentResult, 'kernel'>): KernelVariant | null {
  const v = resultKernel(result).variant;
  return v && v.patches.length > 0 && isWithoutLabel(v.label) ? v : null;
}

const reverts = (v: KernelVariant | null, what: KernelVariant) => !!v && what.patches.every((p) => v.patches.includes(p));

/** §4.1.1's figure for `ls -l` of 600 files on a kernel with these caches, and the paper's words for it. */
function lsPaper(offsetCache: boolean, nameCache: boolean): { value: number; what: string } {
  const s = LS_L_600_FILES.systemSeconds;
  if (!offsetCache) return { value: s.noCache.value, what: 'before the per-process cache' };
  if (!nameCache) return { value: s.perProcessCache.value, what: 'per-process cache only' };
  return { value: s.bothCaches.value, what: 'both caches' };
}

const isLsRow = (r: RowResult) => r.step === 'ls' || r.step.startsWith('ls.');

const ours = (r: RowResult, figure: 'real' | 'sys'): number | null => (r.status === 'ok' && r.guest ? r.guest[figure] : null);

const change = (before: number | null, after: number | null): number | null =>
  before === null || after === null || before === 0 ? null : Math.round((1000 * (after - before)) / before) / 10;

/**
 * The paper's 4.2 → 4.3 change beside ours, when one run of the pair is a
 * "4.3BSD without …" variant and the other GENERIC; null otherwise, or when
 * no row they share is one the paper reports both ways.
 */
export function kernelChange(pair: ResultPair): KernelChange | null {
  const va = revertVariant(pair.a.result);
  const vb = revertVariant(pair.b.result);
  let genericSide: 'a' | 'b';
  if (vb && !va && isGeneric(pair.a.result)) genericSide = 'a';
  else if (va && !vb && isGeneric(pair.b.result)) genericSide = 'b';
  else return null;
  const variant = (genericSide === 'a' ? vb : va)!;
  const genericResult = genericSide === 'a' ? pair.a.result : pair.b.result;
  const noOffset = reverts(variant, NO_OFFSET_CACHE);
  const noName = reverts(variant, NO_NAME_CACHE);

  const rows: KernelChangeRow[] = [];
  for (const p of pair.rows) {
    const rowG = genericSide === 'a' ? p.a : p.b;
    const rowV = genericSide === 'a' ? p.b : p.a;
    if (isLsRow(rowG)) {
      // Each side's caches: the variant may lack either; nchsize 0 turns the name cache off on any kernel.
      const nameOn = (r: RowResult) => r.kernelSettings.nchsize !== 0;
      const before = lsPaper(!noOffset, !noName && nameOn(rowV));
      const after = lsPaper(true, nameOn(rowG));
      if (before.value === after.value) continue;
      const oursBefore = ours(rowV, 'sys');
      const oursAfter = ours(rowG, 'sys');
      rows.push({
        test: p.test, figure: 'sys', source: '§4.1.1', paperBeforeWhat: before.what, paperAfterWhat: after.what,
        paperBefore: before.value, paperAfter: after.value, paperChange: change(before.value, after.value)!,
        oursBefore, oursAfter, oursChange: change(oursBefore, oursAfter),
      });
      continue;
    }
    const papers = paperFigures(genericResult, rowG);
    const main = papers.find((x) => x.main && x.column === '4.3BSD' && x.comparable);
    const old = papers.find((x) => !x.main && x.column === '4.2BSD' && x.comparable);
    if (!main || !old) continue;
    for (const figure of ['real', 'sys'] as const) {
      const before = old[figure];
      const after = main[figure];
      if (before === undefined || after === undefined) continue;
      const oursBefore = ours(rowV, figure);
      const oursAfter = ours(rowG, figure);
      rows.push({
        test: p.test, figure, source: 'Table 2', paperBeforeWhat: '4.2BSD', paperAfterWhat: '4.3BSD',
        paperBefore: before, paperAfter: after, paperChange: change(before, after) ?? 0,
        oursBefore, oursAfter, oursChange: change(oursBefore, oursAfter),
      });
    }
  }
  if (rows.length === 0) return null;
  const notes = [
    `The paper’s change is everything that changed from 4.2BSD to 4.3BSD; ours is only what “${variant.label}” ` +
      `reverts (paper ${variant.paper}), so rows it does not touch change little here.`,
  ];
  if (rows.some((r) => r.source === 'Table 2' && r.paperBefore !== r.paperAfter)) {
    notes.push('Table 2’s figures are scaled to our count where our count differs.');
  }
  return { variant, genericSide, rows, notes };
}

const col = (key: string, label: string, group: string, unit: Column['unit'], numeric: boolean, title?: string): Column =>
  ({ key, label, group, unit, numeric, ...(title ? { title } : {}) });

const seconds = (x: number | null) => ({ text: x === null ? '—' : formatSeconds(x) });
const percent = (x: number | null) => ({ text: x === null ? '—' : `${signed(x, 1)}%`, className: x === null || x === 0 ? undefined : 'delta' });

/** The table of a kernel change: a row per row and figure, the paper's before, after and change, then ours. */
export function kernelChangeTable(k: KernelChange): ResultTable {
  const paper = 'Paper: 4.2 → 4.3';
  const ourGroup = `Ours: ${k.variant.name} → GENERIC`;
  const columns: Column[] = [
    col('test', 'Test', '', null, false),
    col('figure', 'Figure', '', null, false),
    col('paper.before', 'Before (s)', paper, 's', true, 'the paper’s 4.2BSD figure (§4.1.1: before the cache the variant lacks)'),
    col('paper.after', 'After (s)', paper, 's', true, 'the paper’s 4.3BSD figure'),
    col('paper.change', 'Change (%)', paper, '%', true, 'the paper’s change from 4.2BSD to 4.3BSD, in % of 4.2BSD’s'),
    col('ours.before', 'Without (s)', ourGroup, 's', true, k.variant.label),
    col('ours.after', 'GENERIC (s)', ourGroup, 's', true, '4.3BSD GENERIC'),
    col('ours.change', 'Change (%)', ourGroup, '%', true, 'ours from the variant to GENERIC, in % of the variant’s'),
  ];
  const rows: TableRow[] = k.rows.map((r) => ({
    test: r.test,
    status: r.oursBefore === null || r.oursAfter === null ? 'failed' : 'ok',
    failure: null,
    cells: [
      { text: r.test },
      { text: r.figure === 'real' ? 'Elapsed' : 'System' },
      { text: formatSeconds(r.paperBefore), title: `${r.source}, ${r.paperBeforeWhat}` },
      { text: formatSeconds(r.paperAfter), title: `${r.source}, ${r.paperAfterWhat}` },
      percent(r.paperChange),
      seconds(r.oursBefore),
      seconds(r.oursAfter),
      percent(r.oursChange),
    ],
  }));
  return { columns, rows, footnote: null, notes: k.notes };
}
