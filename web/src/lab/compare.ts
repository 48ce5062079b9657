// Two runs side by side: "toggle on vs off", "4.3 vs 4.2", "780 vs 750".
// The run shown in Results is B; the run it is compared with (picked from
// the history or from this page's earlier runs) is A.  Pure functions, no
// DOM: which runs can be compared, what differs in their configuration
// (machine, image, kernel variables, parameters), and the bar chart and CSV
// of the pair.  Their rows aligned and their table are the runner's
// (experiments/runner/resultView.ts: pairResults, comparisonTable), as for a
// single result.  Differences are B − A, in seconds and in % of A.

import type { ExperimentResult } from '../../../experiments/runner/result';
import {
  alignRows, changeSentence, compareRow, formatSeconds, pairResults, primaryMetric, type ResultPair,
} from '../../../experiments/runner/resultView';
import { TOGGLES } from '../../../experiments/runner/toggles';
import { PAGING_KERNEL_VARIANT, PAPER_KERNEL_VARIANT } from '../../../experiments/runner/experiments';
import { DISTRIBUTED_KERNEL_NAME, kernelByName, type KernelVariant } from '../../../experiments/kernels/variants';
import type { BarData } from './charts/barChart';
import type { HistoryEntry } from './history';
import type { SharedRun } from './permalink';
import { CSV_COLUMNS, csvCell, csvRowValues, type CsvValue, paperLegend } from './results';

// ------------------------------------------------------------ runs

/** A run to compare with, and where it comes from. */
export interface RunRef {
  shared: SharedRun;
  /** A run of this page (this session), an entry of the history, a permalink. */
  source: 'session' | 'history' | 'permalink';
  /** When it finished or was saved (ISO 8601), when known. */
  at?: string;
  historyId?: string;
}

/** A run finished in this page. */
export interface SessionRun {
  shared: SharedRun;
  /** ISO 8601. */
  at: string;
}

const fingerprints = new WeakMap<SharedRun, string>();

/**
 * What makes a result this result: its settings and every row's figures.
 * Runs are deterministic (two runs with the same settings give the same
 * result, byte for byte), so equal fingerprints mean nothing to compare,
 * whether it is the same run saved twice or a run repeated.
 */
export function runFingerprint(shared: SharedRun): string {
  let f = fingerprints.get(shared);
  if (f === undefined) {
    const r = shared.result;
    f = JSON.stringify([
      shared.experiment, r.experiment, r.machine, r.image, r.kernel ?? null, r.parameters, r.kernelSettings,
      r.rows.map((row) => [row.step, row.test, row.status, row.iterations, row.guest?.real, row.guest?.user, row.guest?.sys,
        row.emulator?.instructions, row.failure?.message ?? null]),
    ]);
    fingerprints.set(shared, f);
  }
  return f;
}

export function sameRun(a: SharedRun, b: SharedRun): boolean {
  return a === b || runFingerprint(a) === runFingerprint(b);
}

// ------------------------------------------------------------ what can be compared

/** Why `other` cannot be compared with the run shown, or null when it can. */
export function compareBlocker(shown: SharedRun | null, other: SharedRun): string | null {
  if (!shown) return 'Show a result first (run an experiment or open one), then compare it with this run.';
  if (sameRun(shown, other)) return 'This is the result shown (or the same settings run again: the same result).';
  if (alignRows(other.result, shown.result).rows.length === 0) {
    return `No rows in common with the result shown (${shown.experiment}): compare runs of the same experiment, or of experiments that share rows.`;
  }
  return null;
}

// ------------------------------------------------------------ configuration

export type SettingKind = 'experiment' | 'image' | 'build' | 'machine' | 'kernel' | 'parameter';

/** The kernel a result booted: a variant the installer built (its name as `vaxlab run --kernel` and the page
 *  record it: "no-name-cache: 4.3BSD without …"), another file, or the image's /vmunix (no kernel field, or
 *  "vmunix: …" where the experiment boots a variant by default: Table 2, Tables 7 and 8). */
export function resultKernel(result: Pick<ExperimentResult, 'kernel'>): { name: string; variant: KernelVariant | null } {
  if (!result.kernel) return { name: '/vmunix', variant: null };
  const name = result.kernel.name.split(':')[0]!.trim();
  if (name === DISTRIBUTED_KERNEL_NAME && !result.kernel.sha256) return { name: '/vmunix', variant: null };
  return { name, variant: kernelByName(name) ?? null };
}

/** Why an experiment boots a variant by default, by the variant: what the kernel chooser's first option adds to
 *  its label (`option`), what its info line says when that one is chosen (`why`), and what a result's Kernel line
 *  adds (`result`).  Each table boots the lab's closest kernel to the paper's column it is compared with; like-4.2
 *  is 4.3BSD, never called 4.2BSD nor the paper's kernel. */
interface OwnKernelWords {
  option: string;
  why: string;
  result: string;
}

const OWN_KERNEL_WORDS: Readonly<Record<string, OwnKernelWords>> = {
  [PAPER_KERNEL_VARIANT]: {
    option: 'the paper’s kernel',
    why: ' Table 2 boots it by default: the CSRG SCCS history dates the paper’s 4.3BSD before 27 May 1985, when fork, ' +
      'exec and exit still scanned every open-file slot, and so before the text cache of 9 November 1985: a ' +
      'program’s text was released at its last exit (Tables 7 and 8 boot like-4.2, the name cache the ' +
      'distributed /vmunix).',
    result: ': the paper’s kernel as the CSRG history dates it, this experiment’s default',
  },
  [PAGING_KERNEL_VARIANT]: {
    option: 'the lab’s closest to the paper’s 4.2 column',
    why: ' Tables 7 and 8 and their paging rows boot it by default: the paper compares paging with its 4.2BSD and ' +
      '4.1BSD columns only, 4.2BSD itself cannot be run here, and this is the lab’s closest kernel to that column — ' +
      'still 4.3BSD, with every 4.3 improvement the paper describes taken back (Table 2 boots the paper’s 4.3BSD as ' +
      'the CSRG history dates it, the name cache the distributed /vmunix).',
    result: ': this experiment’s default, the lab’s closest kernel to the paper’s 4.2BSD column',
  },
};

/** The words for an experiment's own default variant (undefined for one with none to add). */
export function ownKernelWords(name: string): OwnKernelWords | undefined {
  return Object.hasOwn(OWN_KERNEL_WORDS, name) ? OWN_KERNEL_WORDS[name] : undefined;
}

/** What the result's Kernel line adds when a run booted its experiment's own default variant (by name): why it
 *  is the default. */
export function defaultKernelNote(name: string): string {
  return ownKernelWords(name)?.result ?? ': this experiment’s default';
}

/** A result's kernel in words: "4.3BSD" (the image's /vmunix) or the variant's label ("4.3BSD without …"). */
export function kernelLabel(result: Pick<ExperimentResult, 'kernel' | 'image'>): string {
  const k = resultKernel(result);
  if (!result.kernel) return imageLabel(result.image ?? null);
  if (k.name === '/vmunix') return imageLabel(result.image ?? null);
  return k.variant ? k.variant.label : `kernel ${k.name}`;
}

/** One setting that differs: how each run had it, as words ("cpu=750", "nchsize=154 (GENERIC)"). */
export interface SettingDiff {
  name: string;
  kind: SettingKind;
  a: string;
  b: string;
}

/** The kernel's own value of a variable nobody set, from toggles.ts: "154 (GENERIC)", "computed at boot". */
export function kernelDefault(name: string): string | null {
  const t = TOGGLES.find((x) => x.name === name && x.kind === 'kernel');
  if (!t) return null;
  const named = /^([A-Z][A-Za-z_]*): (\d+)\b/.exec(t.defaultNote);
  if (named) return `${named[2]} (${named[1]})`;
  const plain = /^(\d+)\b/.exec(t.defaultNote);
  if (plain) return `${plain[1]} (default)`;
  if (/^computed at boot/.test(t.defaultNote)) return 'computed at boot';
  return null;
}

/** The system on a disk image, from its name (43bsd.dsk.gz: 4.3BSD). */
export function imageLabel(image: ExperimentResult['image']): string {
  if (!image) return 'image not recorded';
  const m = /^4(\d)bsd/i.exec(image.name);
  return m ? `4.${m[1]}BSD` : `image ${image.name}`;
}

/** Machine fields that follow from others or only describe them. */
const DERIVED_MACHINE = new Set(['nsPerInstruction', 'memoryNote', 'direct', 'spinSeeds']);
// The seeds as the result's machine has them (DERIVED_MACHINE): how often each step was measured, not what ran.
const CONFIG_KNOWN = new Set(['cpu', 'memoryMB', 'set', 'parameters', 'kernel', 'spinSeeds']);
const KERNEL_ORDER = TOGGLES.filter((t) => t.kind === 'kernel').map((t) => t.name);

type Scalar = string | number | boolean;
const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** A machine knob with named values (disk: rp06, eagle, ideal): its names, value i being names[i]. */
function choicesOf(name: string): readonly string[] | null {
  const t = TOGGLES.find((x) => x.name === name) as { choices?: readonly string[] } | undefined;
  return Array.isArray(t?.choices) ? t.choices : null;
}

/** A knob's value as its name when it has named values (disk 1: eagle). */
function knobValue(name: string, v: Scalar): Scalar {
  const choices = choicesOf(name);
  return choices && typeof v === 'number' && choices[v] !== undefined ? choices[v] : v;
}

/**
 * What a machine knob a result leaves out was: a knob with named values is
 * recorded only when it is not its default (disk: rp06; spin: drifting), the
 * one its toggle's default note starts with.
 */
function machineDefault(name: string): string | null {
  const t = TOGGLES.find((x) => x.name === name && x.kind === 'machine');
  const choices = choicesOf(name);
  const named = t && choices ? choices.find((c) => t.defaultNote.startsWith(c)) : undefined;
  return named ?? null;
}

/** A run's machine settings: the result's machine (cpu, memoryMB, boot, and any knob added later), then the config's other scalars. */
function machineSettings(shared: SharedRun): Map<string, Scalar> {
  const out = new Map<string, Scalar>();
  for (const [k, v] of Object.entries(shared.result.machine)) {
    if (!DERIVED_MACHINE.has(k) && isScalar(v)) out.set(k, knobValue(k, v));
  }
  for (const [k, v] of Object.entries(shared.config as unknown as Record<string, unknown>)) {
    if (!CONFIG_KNOWN.has(k) && !out.has(k) && isScalar(v)) out.set(k, knobValue(k, v));
  }
  return out;
}

function machineWords(name: string, v: Scalar | undefined): string {
  if (v !== undefined) return `${name}=${String(v)}`;
  const d = machineDefault(name);
  return d ? `${name}=${d} (default)` : `${name} not recorded`;
}

function kernelWords(name: string, value: number | undefined): string {
  if (value !== undefined) return `${name}=${value}`;
  const d = kernelDefault(name);
  if (d === null) return `${name} as distributed`;
  return /^\d/.test(d) ? `${name}=${d}` : `${name} ${d}`;
}

function machineOrder(name: string): number {
  return name === 'cpu' ? 0 : name === 'memoryMB' ? 1 : 2;
}

/** What differs between A and B, in the order experiment, image, machine, kernel variables, parameters. */
export function configDiff(a: SharedRun, b: SharedRun): SettingDiff[] {
  const ra = a.result;
  const rb = b.result;
  const out: SettingDiff[] = [];
  if (ra.experiment !== rb.experiment) out.push({ name: 'experiment', kind: 'experiment', a: ra.experiment, b: rb.experiment });

  const ia = imageLabel(ra.image);
  const ib = imageLabel(rb.image);
  if (ia !== ib) out.push({ name: 'image', kind: 'image', a: ia, b: ib });
  else if (ra.image && rb.image && ra.image.sha256 && rb.image.sha256 && ra.image.sha256 !== rb.image.sha256) {
    out.push({ name: 'image', kind: 'image', a: `${ia} image ${ra.image.sha256.slice(0, 8)}…`, b: `${ib} image ${rb.image.sha256.slice(0, 8)}…` });
  }

  const ka0 = resultKernel(ra);
  const kb0 = resultKernel(rb);
  if (ka0.name !== kb0.name || (ra.kernel?.sha256 ?? '') !== (rb.kernel?.sha256 ?? '')) {
    out.push({ name: 'kernel', kind: 'build', a: `kernel=${ka0.name}`, b: `kernel=${kb0.name}` });
  }

  const ma = machineSettings(a);
  const mb = machineSettings(b);
  const machineNames = [...new Set([...ma.keys(), ...mb.keys()])].sort((x, y) => machineOrder(x) - machineOrder(y) || x.localeCompare(y));
  for (const name of machineNames) {
    const va = ma.get(name) ?? machineDefault(name) ?? undefined;
    const vb = mb.get(name) ?? machineDefault(name) ?? undefined;
    if (va === vb) continue;
    out.push({ name, kind: 'machine', a: machineWords(name, ma.get(name)), b: machineWords(name, mb.get(name)) });
  }

  const ka = ra.kernelSettings ?? {};
  const kb = rb.kernelSettings ?? {};
  const kernelNames = [...new Set([...Object.keys(ka), ...Object.keys(kb)])].sort((x, y) => {
    const ix = KERNEL_ORDER.indexOf(x);
    const iy = KERNEL_ORDER.indexOf(y);
    return (ix < 0 ? 999 : ix) - (iy < 0 ? 999 : iy) || x.localeCompare(y);
  });
  for (const name of kernelNames) {
    if (ka[name] === kb[name]) continue;
    out.push({ name, kind: 'kernel', a: kernelWords(name, ka[name]), b: kernelWords(name, kb[name]) });
  }

  const pa = ra.parameters ?? {};
  const pb = rb.parameters ?? {};
  for (const name of [...new Set([...Object.keys(pa), ...Object.keys(pb)])].sort()) {
    if (pa[name] === pb[name]) continue;
    out.push({
      name, kind: 'parameter',
      a: pa[name] === undefined ? `no ${name}` : `${name}=${pa[name]}`,
      b: pb[name] === undefined ? `no ${name}` : `${name}=${pb[name]}`,
    });
  }
  return out;
}

/** Each run's side of the difference, as a line: { a: 'cpu=750, nchsize=0', b: 'cpu=780, nchsize=154 (GENERIC)' }. */
export function diffSides(diff: SettingDiff[]): { a: string; b: string } | null {
  if (diff.length === 0) return null;
  return { a: diff.map((d) => d.a).join(', '), b: diff.map((d) => d.b).join(', ') };
}

/** The difference spelled out: "A: nchsize=0 · B: nchsize=154 (GENERIC)", or that there is none. */
export function formatConfigDiff(diff: SettingDiff[]): string {
  const sides = diffSides(diff);
  return sides ? `A: ${sides.a} · B: ${sides.b}` : 'A and B have the same settings.';
}

/** Names for the legend and the columns: each run by what distinguishes it ("A: cpu=750"). */
export function runLabels(diff: SettingDiff[]): { a: string; b: string } {
  const sides = diffSides(diff);
  return sides ? { a: `A: ${sides.a}`, b: `B: ${sides.b}` } : { a: 'A (same settings)', b: 'B (same settings)' };
}

/** A run's whole configuration in one line: "VAX-11/780, 5 MB, 4.3BSD; iterations=1000; kernel variables as
 *  distributed" ("variables": the kernel itself, perhaps a variant, is named before them). */
export function configLine(shared: SharedRun): string {
  const r = shared.result;
  const extra = [...machineSettings(shared)].filter(([k]) => k !== 'cpu' && k !== 'memoryMB' && k !== 'boot').map(([k, v]) => `${k}=${String(v)}`);
  const machine = [`VAX-11/${r.machine.cpu}`, `${r.machine.memoryMB} MB`, ...extra, kernelLabel(r)].join(', ');
  const params = Object.entries(r.parameters).map(([k, v]) => `${k}=${v}`).join(', ');
  const kernel = Object.entries(r.kernelSettings).map(([k, v]) => `${k}=${v}`).join(', ');
  return `${machine}; ${params || 'no parameters'}; kernel variables ${kernel || 'as distributed'}`;
}

// ------------------------------------------------------------ the pair

/** Two runs side by side (resultView.ts's pair of their results), and what differs in their settings. */
export interface RunComparison extends ResultPair<SharedRun> {
  diff: SettingDiff[];
}

export function compareRuns(a: SharedRun, b: SharedRun): RunComparison {
  const diff = configDiff(a, b);
  return { ...pairResults(a, b, runLabels(diff)), diff };
}

// ------------------------------------------------------------ chart and CSV (the table: resultView.ts comparisonTable)

/** The grouped bar chart of a comparison: A, B and the paper per row, B against A in % above each group. */
export function comparisonBars(c: RunComparison): BarData {
  const paper = c.rows.map((p) => (p.cb.comparable ? p.cb.paper : null));
  const withPaper = paper.some((v) => v !== null);
  return {
    series: [
      { key: 'a', label: c.labels.a },
      { key: 'b', label: c.labels.b },
      ...(withPaper ? [{ key: 'paper', label: paperLegend(c.b.result) }] : []),
    ],
    rows: c.rows.map((p, i) => ({
      test: p.test,
      values: [p.ca.ours, p.cb.ours, ...(withPaper ? [paper[i]!] : [])],
      percent: p.percent,
    })),
    percentMeaning: 'B against A: B’s time minus A’s, in % of A’s',
    markMissing: [0, 1],
    percentLegend: '% above each group: B vs A',
  };
}

export const COMPARISON_CSV_COLUMNS = ['run', 'run_settings', ...CSV_COLUMNS, 'b_minus_a_s', 'b_minus_a_percent'] as const;

/**
 * Both runs in one CSV: every row of A, then every row of B, each with the
 * columns of a single result's CSV after `run` (A or B) and `run_settings`
 * (what distinguishes it); B's rows that have a row of A to compare with
 * also carry B − A.  RFC 4180 quoting, CRLF line ends.
 */
export function comparisonCsv(c: RunComparison): string {
  const lines = [COMPARISON_CSV_COLUMNS.join(',')];
  const settings = diffSides(c.diff);
  const byB = new Map(c.rows.map((p) => [p.b, p]));
  const emit = (which: 'A' | 'B', result: ExperimentResult, label: string) => {
    for (const r of result.rows) {
      const p = which === 'B' ? byB.get(r) : undefined;
      const cells: CsvValue[] = [which, label, ...csvRowValues(r, c.metric), p?.diff, p?.percent];
      lines.push(cells.map(csvCell).join(','));
    }
  };
  emit('A', c.a.result, settings ? settings.a : 'same settings');
  emit('B', c.b.result, settings ? settings.b : 'same settings');
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The lines under an exported chart's heading that say what it shows: the
 * settings (each run's, when two are compared), the row whose counters are
 * drawn, when the run ran (or was saved), and what changed most.
 */
export function exportCaption(shown: SharedRun, pair: RunComparison | null, counterRow: string | null, savedAt?: string): string[] {
  const date = (iso: string | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : null);
  const ran = (run: SharedRun, fallback?: string) => {
    const d = date(run.ranAt ?? fallback);
    return d ? `, ran ${d}` : '';
  };
  const lines = pair
    ? [`A: ${configLine(pair.a)}${ran(pair.a)}.`, `B: ${configLine(pair.b)}${ran(pair.b, savedAt)}.`, changeSentence(pair)]
    : [`Settings: ${configLine(shown)}${ran(shown, savedAt)}.`];
  if (counterRow !== null && shown.result.rows.length > 1) lines.push(`Counters: row ${counterRow}.`);
  return lines;
}

// ------------------------------------------------------------ what to compare with

export interface CompareCandidate {
  /** Unique among the candidates: session:N, link:N or history:ID. */
  key: string;
  ref: RunRef;
  group: 'session' | 'link' | 'history';
  label: string;
}

/** A result's main figure, short: "0.35 s", or "3 of 3 rows ok". */
export function shortFigure(result: ExperimentResult): string {
  const metric = primaryMetric(result);
  const ok = result.rows.map((r) => compareRow(r, metric)).filter((c) => c.ours !== null);
  if (result.rows.length === 1) return ok[0] ? `${formatSeconds(ok[0].ours!)} s` : 'failed';
  return `${ok.length} of ${result.rows.length} rows ok`;
}

/**
 * The runs the shown one can be compared with: this page's runs (newest
 * first; the newest is "the previous run"), the runs links opened in this
 * page brought, then the history's, leaving out the shown result itself,
 * results already listed (a run of this page is also in the history) and
 * results with no row in common.  Each is described by how it differs from
 * the shown run.
 */
export function compareCandidates(
  shown: SharedRun,
  session: readonly SessionRun[],
  history: readonly HistoryEntry[],
  when: (iso: string) => string,
  links: readonly SessionRun[] = [],
): CompareCandidate[] {
  const out: CompareCandidate[] = [];
  const seen = new Set<string>([runFingerprint(shown)]);
  const describe = (run: SharedRun) => {
    const sides = diffSides(configDiff(run, shown));
    const differs = sides ? sides.a : 'same settings';
    return `${run.experiment} · ${differs} · ${shortFigure(run.result)}`;
  };
  session.forEach((s, i) => {
    const f = runFingerprint(s.shared);
    if (seen.has(f) || compareBlocker(shown, s.shared) !== null) return;
    seen.add(f);
    const first = !out.some((c) => c.group === 'session');
    out.push({
      key: `session:${i}`, group: 'session', ref: { shared: s.shared, source: 'session', at: s.at },
      label: `${first ? 'Previous run' : `Run of ${when(s.at)}`} — ${describe(s.shared)}`,
    });
  });
  links.forEach((s, i) => {
    const f = runFingerprint(s.shared);
    if (seen.has(f) || compareBlocker(shown, s.shared) !== null) return;
    seen.add(f);
    out.push({
      key: `link:${i}`, group: 'link', ref: { shared: s.shared, source: 'permalink', at: s.at },
      label: `Shared run${s.shared.ranAt ? ` of ${when(s.shared.ranAt)}` : ''} — ${describe(s.shared)}`,
    });
  });
  for (const h of history) {
    const f = runFingerprint(h.run);
    if (seen.has(f) || compareBlocker(shown, h.run) !== null) continue;
    seen.add(f);
    out.push({
      key: `history:${h.id}`, group: 'history', ref: { shared: h.run, source: 'history', at: h.savedAt, historyId: h.id },
      label: `${when(h.savedAt)}${h.interrupted ? ' (interrupted)' : ''} — ${describe(h.run)}`,
    });
  }
  return out;
}

/** The candidate that is `ref` (the same result), if listed. */
export function candidateFor(candidates: readonly CompareCandidate[], ref: RunRef | null): CompareCandidate | undefined {
  if (!ref) return undefined;
  return candidates.find((c) => sameRun(c.ref.shared, ref.shared));
}

/** Where a run of the comparison comes from, in words. */
export function originText(ref: RunRef, when: (iso: string) => string): string {
  const at = ref.at ? when(ref.at) : null;
  switch (ref.source) {
    case 'session': return at ? `a run of this page, finished ${at}` : 'a run of this page';
    case 'history': return at ? `from your history, saved ${at}` : 'from your history';
    case 'permalink': return 'a shared run (from its link)';
  }
}
