// A result as a table, defined once: what each view shows (Table 2's
// micro-operations, paging, name translation), ours against the paper on
// each row's main figure, the difference, why a row failed; and two results
// side by side (B against A, each against the paper).  The command line
// renders the table as text (resultText.ts), the lab page as HTML
// (web/src/lab/components/ResultTable.tsx); neither lays out a result itself.
// Numbers are written here, alike everywhere (formatSeconds).  No DOM, no
// Node APIs.

import type { ExperimentResult, RowResult } from './result';

// ------------------------------------------------------------ ours against the paper

/** The figure a view compares first: elapsed time, except name translation (system time). */
export type Metric = 'elapsed' | 'system';

export function primaryMetric(result: Pick<ExperimentResult, 'view'>): Metric {
  return result.view === 'namecache' ? 'system' : 'elapsed';
}

export const METRIC_LABEL: Record<Metric, string> = { elapsed: 'elapsed time (s)', system: 'system time (s)' };

export interface Comparison {
  test: string;
  status: 'ok' | 'failed';
  iterations: number;
  metric: Metric;
  /** Ours in seconds; null when the row failed. */
  ours: number | null;
  /** The paper's, scaled to our count when it scales; null when the paper has none. */
  paper: number | null;
  /** Which column of the paper (e.g. 4.3BSD, 4.2BSD). */
  paperColumn: string | null;
  scaled: boolean;
  /** False when our count differs from the paper's and its figures do not scale (paging): no difference then. */
  comparable: boolean;
  difference: number | null;
  /** Difference in % of the paper's figure. */
  percent: number | null;
  failure: string | null;
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

function ours(r: RowResult, metric: Metric): number | null {
  if (r.status !== 'ok' || !r.guest) return null;
  return metric === 'system' ? r.guest.sys : r.guest.real;
}

function paperOf(r: RowResult, metric: Metric): number | null {
  const v = metric === 'system' ? r.paper?.system : r.paper?.elapsed;
  return v === undefined ? null : v;
}

export function compareRow(r: RowResult, metric: Metric): Comparison {
  const o = ours(r, metric);
  const p = paperOf(r, metric);
  const comparable = !r.paper || r.paper.scaled || r.paper.scale === 1;
  const difference = o === null || p === null || !comparable ? null : round(o - p, 3);
  return {
    test: r.test,
    status: r.status,
    iterations: r.iterations,
    metric,
    ours: o,
    paper: p,
    paperColumn: r.paper?.column ?? null,
    scaled: !!r.paper && r.paper.scaled && r.paper.scale !== 1,
    comparable,
    difference,
    percent: difference === null || !p ? null : round((100 * difference) / p, 1),
    failure: r.failure ? r.failure.message : null,
  };
}

/** Every row against the paper, on the view's main figure. */
export function compareWithPaper(result: ExperimentResult): Comparison[] {
  const metric = primaryMetric(result);
  return result.rows.map((r) => compareRow(r, metric));
}

// ------------------------------------------------------------ numbers and words

/**
 * Seconds as vaxlab writes them everywhere (the tables, the history, the
 * shared-run banner, the bar chart): 2 decimals below 10 s, 1 below 100 s,
 * none from there, so ours and the paper's are always written alike.
 */
export function secondsDigits(x: number): number {
  const a = Math.abs(x);
  return a < 9.995 ? 2 : a < 99.95 ? 1 : 0;
}

export function formatSeconds(x: number): string {
  return x.toFixed(secondsDigits(x));
}

/** A difference in seconds, signed, at the precision of the larger of the two figures. */
export function formatSecondsDiff(diff: number, scale: number): string {
  return signed(diff, secondsDigits(Math.max(Math.abs(diff), Math.abs(scale))));
}

/** x with its sign (+1.5, -0.3; a value that rounds to zero has none). */
export function signed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  if (Number(s) === 0) return (0).toFixed(digits);
  return x > 0 ? `+${s}` : s;
}

/** A failed row's failure as the tables say it: the runner's message ("kind: what happened") without the kind
 *  when what happened already says it ("stopped: stopped by the user" → "stopped by the user"). */
export function failureText(failure: RowResult['failure']): string {
  if (!failure) return 'failed';
  const prefix = `${failure.kind}: `;
  const rest = failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : null;
  return rest !== null && rest.toLowerCase().startsWith(failure.kind.toLowerCase()) ? rest : failure.message;
}

/** How a run that did not finish ended, in words (null when every row is ok): "Stopped by the user during csw:
 *  1 of 29 rows done" (`steps`: how many rows the experiment has, when known), or "2 of 5 rows failed". */
export function runOutcome(result: ExperimentResult, steps?: number): string | null {
  const rows = result.rows;
  const failed = rows.filter((r) => r.status !== 'ok');
  if (failed.length === 0 && (steps === undefined || rows.length >= steps)) return null;
  const stopped = failed.find((r) => r.failure?.kind === 'stopped' && /by the user/.test(r.failure.message));
  const total = Math.max(steps ?? rows.length, rows.length);
  if (stopped) return `Stopped by the user during ${stopped.test}: ${rows.length - failed.length} of ${total} rows done`;
  return `${failed.length} of ${total} row${total === 1 ? '' : 's'} failed${rows.length < total ? `, ${total - rows.length} not run` : ''}`;
}

// ------------------------------------------------------------ the table

export interface Column {
  /** The header, with its unit in parentheses when it has one: "Ours (s)". */
  label: string;
  /** The unit of the column's figures: seconds, milliseconds, percent; null for counts, names and words. */
  unit: 's' | 'ms' | '%' | null;
  numeric: boolean;
  /** What the column is, in a sentence (a tooltip on the page, a legend under the text table). */
  title?: string;
  /** Starts the paper's group of columns (drawn with a rule). */
  paper?: boolean;
}

export interface Cell {
  text: string;
  /** How the figure compares: 'close' (within 10% of the other), 'far', 'delta' (B − A), 'failure'. */
  className?: string;
  title?: string;
}

export interface TableRow {
  test: string;
  status: 'ok' | 'failed';
  failure: string | null;
  cells: Cell[];
}

export interface ResultTable {
  columns: Column[];
  rows: TableRow[];
  /** What the * on the paper's figures means (shown next to the table), or null. */
  footnote: string | null;
  notes: string[];
}

/** PFST is shown for rows with at least this many page faults (the paper:
 *  "test runs that had a statistically significant number of random page faults"). */
export const PFST_MIN_FAULTS = 1000;

const DASH = '—';
const fx = (x: number | null | undefined, d = 1): Cell => ({ text: x === null || x === undefined ? DASH : x.toFixed(d) });
/** Seconds, by formatSeconds. */
const secs = (x: number | null | undefined): Cell => ({ text: x === null || x === undefined ? DASH : formatSeconds(x) });
const int = (x: number | null | undefined): Cell => ({ text: x === null || x === undefined ? DASH : Math.round(x).toLocaleString('en-US') });
const pct = (x: number | null | undefined, digits = 1): Cell => ({ text: x === null || x === undefined ? DASH : `${x.toFixed(digits)}%` });

function diffCells(c: Comparison): Cell[] {
  return [
    { text: c.difference === null ? DASH : formatSecondsDiff(c.difference, Math.max(c.ours ?? 0, c.paper ?? 0)) },
    {
      text: c.percent === null ? DASH : `${signed(c.percent, 0)}%`,
      className: c.percent === null ? undefined : Math.abs(c.percent) <= 10 ? 'close' : 'far',
    },
  ];
}

function statusCell(r: RowResult): Cell {
  if (r.status === 'ok') return { text: 'ok' };
  const text = failureText(r.failure);
  return { text, className: 'failure', title: r.failure && r.failure.message !== text ? r.failure.message : undefined };
}

/** The paper's figure for a row (scaled ones starred, with the paper's own figure in the tooltip). */
export function paperCell(c: Comparison, r: RowResult): Cell {
  if (c.paper === null) return { text: DASH, title: 'the paper has no figure for this row' };
  const p = r.paper;
  const title = c.scaled && p
    ? `the paper’s ${formatSeconds(c.paper / p.scale)} s for ${p.iterations.toLocaleString('en-US')} iterations, scaled to our ${r.iterations.toLocaleString('en-US')}`
    : undefined;
  return { text: `${formatSeconds(c.paper)}${c.scaled ? '*' : ''}`, title };
}

/** The footnote for the * of scaled figures: with the paper's own figure when there is one row. */
export function scaledFootnote(result: ExperimentResult): string | null {
  const metric = primaryMetric(result);
  const scaled = result.rows.filter((r) => r.paper && r.paper.scaled && r.paper.scale !== 1);
  if (scaled.length === 0) return null;
  const what = metric === 'system' ? 'system time' : 'time';
  if (scaled.length === 1 && result.rows.length === 1) {
    const r = scaled[0]!;
    const p = r.paper!;
    const v = metric === 'system' ? p.system : p.elapsed;
    if (v !== undefined) {
      return `* The paper’s ${what} for its ${p.iterations.toLocaleString('en-US')} iterations, ${formatSeconds(v / p.scale)} s, ` +
        `scaled to our ${r.iterations.toLocaleString('en-US')} (× ${Number(p.scale.toPrecision(3))}).`;
    }
  }
  return `* The paper’s ${what} for its own iteration count, scaled to ours (it timed larger counts).`;
}

/** A result's table, laid out by its view. */
export function resultTable(result: ExperimentResult): ResultTable {
  const metric = primaryMetric(result);
  const notes: string[] = [];
  if (result.view === 'paging') {
    const columns: Column[] = [
      { label: 'Test', unit: null, numeric: false },
      { label: 'Real (s)', unit: 's', numeric: true }, { label: 'User (s)', unit: 's', numeric: true },
      { label: 'Sys (s)', unit: 's', numeric: true },
      { label: 'Faults', unit: null, numeric: true, title: 'page-ins over the command (cnt.v_pgin)' },
      {
        label: 'PFST (ms)', unit: 'ms', numeric: true,
        title: `page fault service time: sys / faults (shown with at least ${PFST_MIN_FAULTS.toLocaleString('en-US')} faults)`,
      },
      { label: 'Paper real (s)', unit: 's', numeric: true, paper: true }, { label: 'User (s)', unit: 's', numeric: true },
      { label: 'Sys (s)', unit: 's', numeric: true }, { label: 'Faults', unit: null, numeric: true },
      { label: 'PFST (ms)', unit: 'ms', numeric: true, title: 'Table 8’s page fault service time (its figure / 100, in ms)' },
      { label: 'Real diff (s)', unit: 's', numeric: true }, { label: 'Real diff (%)', unit: '%', numeric: true },
      { label: 'Status', unit: null, numeric: false },
    ];
    const rows = result.rows.map((r): TableRow => {
      const c = compareRow(r, metric);
      const ok = r.status === 'ok' && r.guest;
      const faults = ok ? r.derived?.pageFaults : undefined;
      return {
        test: r.test, status: r.status, failure: c.failure,
        cells: [
          { text: r.test },
          secs(ok ? r.guest!.real : null), secs(ok ? r.guest!.user : null), secs(ok ? r.guest!.sys : null),
          int(faults), fx(faults !== undefined && faults >= PFST_MIN_FAULTS ? r.derived?.pfstMs : null, 2),
          secs(r.paper?.elapsed), secs(r.paper?.user), secs(r.paper?.system), int(r.paper?.pageFaults), fx(r.derived?.paperPfstMs, 2),
          ...diffCells(c), statusCell(r),
        ],
      };
    });
    notes.push(`The paper's columns: ${result.rows.find((r) => r.paper)?.paper?.source ?? 'Table 7'}, ${result.rows.find((r) => r.paper)?.paper?.column ?? '4.2BSD'}.`);
    if (result.rows.some((r) => r.paper && r.paper.scale !== 1)) {
      notes.push('Our counts are reduced: the paper’s figures are for its own counts and are not comparable.');
    }
    return { columns, rows, footnote: null, notes };
  }
  if (result.view === 'namecache') {
    const columns: Column[] = [
      { label: 'Step', unit: null, numeric: false },
      { label: 'nchsize', unit: null, numeric: true, title: 'read back from the running kernel' },
      { label: 'Sys (s)', unit: 's', numeric: true }, { label: 'User (s)', unit: 's', numeric: true },
      { label: 'Real (s)', unit: 's', numeric: true },
      { label: 'Hits', unit: null, numeric: true }, { label: 'Misses', unit: null, numeric: true },
      { label: 'Hit rate', unit: '%', numeric: true },
      { label: 'Offset hits', unit: null, numeric: true, title: 'found by the per-process directory offset cache (ncs_pass2)' },
      { label: 'Paper sys (s)', unit: 's', numeric: true, paper: true },
      { label: 'Paper’s case', unit: null, numeric: false, title: 'which of §4.1.1’s figures: which caches the paper’s kernel had' },
      { label: 'Sys diff (s)', unit: 's', numeric: true }, { label: 'Sys diff (%)', unit: '%', numeric: true },
      { label: 'Status', unit: null, numeric: false },
    ];
    const rows = result.rows.map((r): TableRow => {
      const c = compareRow(r, metric);
      const ok = r.status === 'ok' && r.guest;
      const t = r.totals ?? {};
      const nch = r.readback?.nchsize;
      const rate = t['namei.hitRate'];
      return {
        test: r.test, status: r.status, failure: c.failure,
        cells: [
          { text: r.test },
          { text: nch === undefined || nch === null ? DASH : String(nch) },
          secs(ok ? r.guest!.sys : null), secs(ok ? r.guest!.user : null), secs(ok ? r.guest!.real : null),
          int(ok ? t['namei.hits'] : null), int(ok ? t['namei.misses'] : null),
          { text: ok && rate !== undefined ? `${rate.toFixed(1)}%` : DASH },
          int(ok ? t['namei.pass2'] : null),
          { ...paperCell(c, r), title: r.paper ? `${r.paper.source}: ${r.paper.column}` : 'the paper has no figure for this step' },
          { text: r.paper?.system !== undefined ? r.paper.column : DASH },
          ...diffCells(c), statusCell(r),
        ],
      };
    });
    notes.push('Hits and misses: the kernel’s nchstats over the command. The paper gives only ls -l’s system time.');
    return { columns, rows, footnote: scaledFootnote(result), notes };
  }
  const column = result.rows.find((r) => r.paper)?.paper?.column ?? '4.3BSD';
  const columns: Column[] = [
    { label: 'Test', unit: null, numeric: false },
    { label: 'Iterations', unit: null, numeric: true },
    { label: 'Ours (s)', unit: 's', numeric: true, title: 'elapsed (real) seconds by the guest’s /bin/time' },
    { label: `Paper ${column} (s)`, unit: 's', numeric: true, paper: true },
    { label: 'Difference (s)', unit: 's', numeric: true },
    { label: 'Difference (%)', unit: '%', numeric: true },
    { label: 'Status', unit: null, numeric: false },
  ];
  const rows = result.rows.map((r): TableRow => {
    const c = compareRow(r, metric);
    return {
      test: r.test, status: r.status, failure: c.failure,
      cells: [{ text: r.test }, int(r.iterations), secs(c.ours), paperCell(c, r), ...diffCells(c), statusCell(r)],
    };
  });
  return { columns, rows, footnote: scaledFootnote(result), notes };
}

// ------------------------------------------------------------ two results

export interface AlignedRow {
  /** The step id (or the test label when the steps' ids differ). */
  key: string;
  test: string;
  a: RowResult;
  b: RowResult;
}

export interface Alignment {
  /** In B's order. */
  rows: AlignedRow[];
  /** Test labels of the rows only one run has. */
  onlyA: string[];
  onlyB: string[];
}

/**
 * The rows of A and B that measure the same thing: the same step id (steps'
 * ids are unique within an experiment and name the same command across
 * experiments: table2's "syscall" is the syscall experiment's), else the
 * same test label when it names one row on each side.
 */
export function alignRows(a: ExperimentResult, b: ExperimentResult): Alignment {
  const usedA = new Set<number>();
  const pairs: (AlignedRow | null)[] = b.rows.map(() => null);
  const byStep = new Map<string, number>();
  a.rows.forEach((r, i) => {
    if (r.step && !byStep.has(r.step)) byStep.set(r.step, i);
  });
  b.rows.forEach((rb, j) => {
    const i = rb.step ? byStep.get(rb.step) : undefined;
    if (i !== undefined && !usedA.has(i)) {
      usedA.add(i);
      pairs[j] = { key: rb.step, test: rb.test, a: a.rows[i]!, b: rb };
    }
  });
  const count = (rows: RowResult[], test: string) => rows.filter((r) => r.test === test).length;
  b.rows.forEach((rb, j) => {
    if (pairs[j] || count(b.rows, rb.test) !== 1 || count(a.rows, rb.test) !== 1) return;
    const i = a.rows.findIndex((r) => r.test === rb.test);
    if (i < 0 || usedA.has(i)) return;
    usedA.add(i);
    pairs[j] = { key: rb.test, test: rb.test, a: a.rows[i]!, b: rb };
  });
  return {
    rows: pairs.filter((p): p is AlignedRow => p !== null),
    onlyA: a.rows.filter((_, i) => !usedA.has(i)).map((r) => r.test),
    onlyB: b.rows.filter((_, j) => !pairs[j]).map((r) => r.test),
  };
}

export interface PairRow extends AlignedRow {
  /** Each run against the paper (scaled to its own count), on the comparison's metric. */
  ca: Comparison;
  cb: Comparison;
  /** B − A in seconds, and in % of A; null when either failed. */
  diff: number | null;
  percent: number | null;
}

/** Two results side by side: B (the one shown) against A.  R carries each result with whatever its caller keeps with it. */
export interface ResultPair<R extends { result: ExperimentResult } = { result: ExperimentResult }> {
  a: R;
  b: R;
  /** B's: elapsed time, or system time for name translation. */
  metric: Metric;
  alignment: Alignment;
  rows: PairRow[];
  /** Each run by what distinguishes it ("A: cpu=750"), for the columns and legends. */
  labels: { a: string; b: string };
}

export function pairResults<R extends { result: ExperimentResult }>(a: R, b: R, labels: { a: string; b: string }): ResultPair<R> {
  const metric = primaryMetric(b.result);
  const alignment = alignRows(a.result, b.result);
  const rows = alignment.rows.map((p): PairRow => {
    const ca = compareRow(p.a, metric);
    const cb = compareRow(p.b, metric);
    const diff = ca.ours === null || cb.ours === null ? null : round(cb.ours - ca.ours, 3);
    return { ...p, ca, cb, diff, percent: diff === null || !ca.ours ? null : round((100 * diff) / ca.ours, 1) };
  });
  return { a, b, metric, alignment, rows, labels };
}

function vsPaper(c: Comparison): Cell {
  if (c.percent === null) return { text: DASH };
  return { text: `${signed(c.percent, 0)}%`, className: Math.abs(c.percent) <= 10 ? 'close' : 'far' };
}

function pairStatus(p: PairRow): Cell {
  if (p.a.status === 'ok' && p.b.status === 'ok') return { text: 'ok' };
  // Only the run(s) that failed: "B: time limit".
  const said = ([['A', p.a], ['B', p.b]] as const).filter(([, r]) => r.status !== 'ok')
    .map(([which, r]) => `${which}: ${failureText(r.failure)}`);
  return { text: said.join('; '), className: 'failure' };
}

/** The table of two results: A, B, B − A, the paper, each run against the paper. */
export function comparisonTable(c: ResultPair): ResultTable {
  const { a, b } = { a: c.a.result, b: c.b.result };
  const short = c.metric === 'system' ? ' sys' : '';
  const counts = c.rows.some((p) => p.a.iterations !== p.b.iterations);
  const showCounts = counts || b.view === 'table2';
  const column = c.rows.find((p) => p.b.paper)?.b.paper?.column ?? '4.3BSD';
  const extra: { label: string; unit: Column['unit']; title: string; cell: (r: RowResult) => Cell }[] =
    b.view === 'paging'
      ? [{ label: 'Faults', unit: null, title: 'page-ins over the command (cnt.v_pgin)', cell: (r) => int(r.status === 'ok' ? r.derived?.pageFaults : null) }]
      : b.view === 'namecache'
        ? [{ label: 'Hit rate', unit: '%', title: 'name cache hits in % of lookups (nchstats)', cell: (r) => pct(r.status === 'ok' ? r.totals?.['namei.hitRate'] : null) }]
        : [];
  const columns: Column[] = [
    { label: 'Test', unit: null, numeric: false },
    ...(showCounts
      ? counts
        ? [{ label: 'Iterations A', unit: null, numeric: true }, { label: 'Iterations B', unit: null, numeric: true }]
        : [{ label: 'Iterations', unit: null, numeric: true }]
      : []),
    { label: `A${short} (s)`, unit: 's', numeric: true, title: `${c.labels.a}: ${METRIC_LABEL[c.metric]}` },
    { label: `B${short} (s)`, unit: 's', numeric: true, title: `${c.labels.b}: ${METRIC_LABEL[c.metric]}` },
    { label: 'B − A (s)', unit: 's', numeric: true, title: 'B’s time minus A’s' },
    { label: 'B − A (%)', unit: '%', numeric: true, title: 'B’s time minus A’s, in % of A’s' },
    ...extra.flatMap((x): Column[] => [
      { label: `${x.label} A`, unit: x.unit, numeric: true, title: x.title, paper: false },
      { label: `${x.label} B`, unit: x.unit, numeric: true, title: x.title },
    ]),
    {
      label: `Paper ${column} (s)`, unit: 's', numeric: true, paper: true,
      title: counts ? 'the paper’s figure, scaled to B’s count when it scales' : undefined,
    },
    { label: 'A vs paper', unit: '%', numeric: true, title: 'A against the paper’s figure scaled to A’s count, in %' },
    { label: 'B vs paper', unit: '%', numeric: true, title: 'B against the paper’s figure scaled to B’s count, in %' },
    { label: 'Status', unit: null, numeric: false },
  ];
  const rows = c.rows.map((p): TableRow => {
    const paper = p.cb.comparable ? paperCell(p.cb, p.b) : { text: DASH, title: 'our count differs from the paper’s and its figures do not scale' };
    const failure = [p.a.failure?.message, p.b.failure?.message].filter(Boolean).join('; ') || null;
    return {
      test: p.test,
      status: p.a.status === 'ok' && p.b.status === 'ok' ? 'ok' : 'failed',
      failure,
      cells: [
        { text: p.test },
        ...(showCounts ? (counts ? [int(p.a.iterations), int(p.b.iterations)] : [int(p.b.iterations)]) : []),
        secs(p.ca.ours), secs(p.cb.ours),
        { text: p.diff === null ? DASH : formatSecondsDiff(p.diff, Math.max(p.ca.ours ?? 0, p.cb.ours ?? 0)), className: 'delta' },
        { text: p.percent === null ? DASH : `${signed(p.percent, 1)}%`, className: 'delta' },
        ...extra.flatMap((x) => [x.cell(p.a), x.cell(p.b)]),
        paper, vsPaper(p.ca), vsPaper(p.cb), pairStatus(p),
      ],
    };
  });
  const notes: string[] = [];
  if (c.alignment.onlyB.length) notes.push(`Only in B, not compared: ${c.alignment.onlyB.join(', ')}.`);
  if (c.alignment.onlyA.length) notes.push(`Only in A, not compared: ${c.alignment.onlyA.join(', ')}.`);
  if (counts) {
    notes.push('A and B ran different counts: B − A compares their times as measured; the paper’s column is scaled to B’s count, and each run is against the paper at its own count.');
  }
  if (a.view !== b.view) notes.push(`A is a ${a.view} result and B a ${b.view} one: both are compared on B’s ${METRIC_LABEL[c.metric]}.`);
  return { columns, rows, footnote: scaledFootnote(b), notes };
}
