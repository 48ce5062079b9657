import { lazy, Suspense, useCallback, useMemo, useRef } from 'react';

import { COUNTERS, type CounterDef } from '../../../../experiments/runner/counters';
import type { ChartComparison, ChartCounterNames } from '../charts/counterChart';
import { compareBlocker, compareRuns } from '../compare';
import { experimentById } from '../config';
import type { LabController } from '../controller';
import { chartPanels, counterDef, counterName } from '../counterNames';
import { runRowSeries, type Series, SeriesBuilder, seriesFromResult } from '../results';
import { useAtom } from '../state/atom';
import { watchedWorker, workerChoiceText, type PoolCountersState } from '../state/poolCounters';
import { isRunning, type RunState } from '../state/runs';
import type { ViewState } from '../state/shown';
import type { CounterChoice } from '../state/ui';

const CounterChart = lazy(() => import('./ChartViews').then((m) => ({ default: m.CounterChart })));

const PREFERRED = ['cpu.us', 'cpu.sy', 'cpu.id', 'faults.sy', 'faults.cs', 'hw.mips'];

/** The experiment's own choice of counters (ExperimentSpec.counters), else a general one. */
export function defaultCounters(defs: readonly CounterDef[], experimentId: string | undefined): string[] {
  const ids = new Set(defs.map((c) => c.id));
  const spec = experimentId ? experimentById(experimentId) : undefined;
  for (const list of [spec?.counters ?? [], PREFERRED]) {
    const chosen = list.filter((id) => ids.has(id));
    if (chosen.length > 0) return chosen;
  }
  return defs.slice(0, 3).map((c) => c.id);
}

interface Source {
  experiment: string;
  rows: string[];
  row: number;
  series: Series | null;
  version: number;
  live: boolean;
  /** Live from the pool's workers: the worker drawn, and each worker's choice as named. */
  pool?: { worker: number; label: string; running: boolean; choices: string[]; run: boolean };
}

/** Whose counters the chart draws: what the pool's workers run (live), the run of this page (live while it runs),
 *  or the result shown. */
function source(view: ViewState | null, run: RunState | null, pool: PoolCountersState | null, counters: CounterChoice,
  builder: SeriesBuilder): Source | null {
  // A run spread over the pool while it runs (once it has ended, its result's series), or a sweep.
  if (pool && (pool.owner.kind === 'sweep' || (isRunning(run) && run!.runId === pool.owner.runId))) {
    const worker = watchedWorker(pool, counters.worker);
    const w = pool.workers[worker]!;
    return {
      experiment: pool.experiment, rows: [workerChoiceText(w, worker)], row: 0, series: w.series, version: -2 - pool.version, live: true,
      pool: { worker, label: w.label, running: w.running, choices: pool.workers.map(workerChoiceText), run: pool.owner.kind === 'run' },
    };
  }
  if (run && (!view || view.source === 'run')) {
    const spec = experimentById(run.experiment);
    const rows = run.result ? run.result.rows.map((r) => r.test) : (spec?.steps.map((s) => s.label) ?? []);
    const live = isRunning(run);
    const current = run.progress ? run.progress.step - 1 : 0;
    const row = counters.row ?? (live ? current : 0);
    const series = builder.get(run.samples, row);
    return {
      experiment: run.experiment, rows, row, series: live ? series : runRowSeries(series, run.result, row),
      version: run.samplesVersion * 1000 + row, live,
    };
  }
  if (view) {
    const rows = view.shared.result.rows.map((r) => r.test);
    const row = Math.min(counters.row ?? 0, Math.max(0, rows.length - 1));
    return {
      experiment: view.shared.experiment, rows, row, series: seriesFromResult(view.shared.result, row), version: row,
      live: false,
    };
  }
  return null;
}

/** What source() depends on, so it is recomputed only when that changes. */
function sourceKey(view: ViewState | null, run: RunState | null, pool: PoolCountersState | null, counters: CounterChoice): unknown[] {
  return [view, run?.runId, run?.samplesVersion, run?.status, run?.progress?.step, run?.result, pool, counters.row, counters.worker];
}

/** What the panel says while it draws a worker of the pool's counters. */
function poolNote(p: NonNullable<Source['pool']>): string {
  const n = p.choices.length;
  const what = p.label ? `${p.label}${p.running ? '' : ' (ended)'}` : 'starting';
  return `Live from worker ${p.worker + 1} of ${n}: ${what}.` +
    (n > 1 ? ' Each worker runs a unit of its own (a step, or one seed of it): Watch chooses whose counters are drawn.' : '') +
    (p.run ? ' When the run ends, each row’s counters are its result’s.' : '');
}

/** The counter picker's groups, in words. */
const GROUP_NAMES: Record<string, string> = {
  procs: 'Processes (vmstat procs)',
  memory: 'Memory (vmstat memory)',
  paging: 'Paging (vmstat page)',
  faults: 'Interrupts, system calls, context switches (vmstat faults)',
  cpu: 'CPU time (vmstat cpu)',
  disk: 'Disks (iostat)',
  namecache: 'Name cache (vmstat -s)',
  hardware: 'The emulator’s hardware model',
};

export function CounterPanel({ lab }: { lab: LabController }) {
  const view = useAtom(lab.shown.view);
  const run = useAtom(lab.runs.run);
  const pool = useAtom(lab.sweeps.live.state);
  const against = useAtom(lab.comparison.against);
  const counters = useAtom(lab.ui.counters);
  const experimentId = useAtom(lab.form.form).experimentId;
  const builder = useRef(new SeriesBuilder()).current;
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const src = useMemo(() => source(view, run, pool, counters, builder), sourceKey(view, run, pool, counters));
  // Counters the data has but this page does not know (a link from a newer lab) still show, by id.
  const defs = useMemo(() => {
    const known = new Map(COUNTERS.map((c) => [c.id, c]));
    for (const id of Object.keys(src?.series?.values ?? {})) {
      if (!known.has(id)) known.set(id, counterDef(id));
    }
    return [...known.values()];
    // The ids only change when the series does (a live series grows in place, with the same ids).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [src?.series, Object.keys(src?.series?.values ?? {}).length]);
  const selected = counters.selected ?? defaultCounters(defs, src?.experiment ?? experimentId);
  const selectedKey = selected.join(' ');
  const panels = useMemo(() => chartPanels(defs.filter((c) => selected.includes(c.id))),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [defs, selectedKey]);
  const names = useMemo<ChartCounterNames>(() => Object.fromEntries(defs.map((c) => [c.id, counterName(c)])), [defs]);
  const colourIndex = useCallback((id: string) => Math.max(0, defs.findIndex((c) => c.id === id)), [defs]);
  const groups = useMemo(() => {
    const g = new Map<string, CounterDef[]>();
    for (const c of defs) g.set(c.group, [...(g.get(c.group) ?? []), c]);
    return [...g];
  }, [defs]);

  const toggle = (id: string, on: boolean) => {
    const next = on ? [...selected, id] : selected.filter((s) => s !== id);
    lab.ui.setCounterSelection(defs.filter((c) => next.includes(c.id)).map((c) => c.id));
  };

  // Two runs compared (not while one runs): A's aligned row drawn over B's.
  const compare = useMemo<ChartComparison | null>(() => {
    if (!view || !against || src?.live || compareBlocker(view.shared, against.shared) !== null) return null;
    const pair = compareRuns(against.shared, view.shared);
    const b = view.shared.result.rows[src?.row ?? 0];
    const aligned = pair.rows.find((p) => p.b === b);
    if (!aligned) return null;
    const aIndex = against.shared.result.rows.indexOf(aligned.a);
    return { series: seriesFromResult(against.shared.result, aIndex), labelA: pair.labels.a, labelB: pair.labels.b };
  }, [view, against, src?.live, src?.row]);

  const emptyText = !src
    ? 'Run an experiment to see its counters here, live.'
    : src.live
      ? 'Counters appear once the timed command runs.'
      : 'No counters were recorded for this row.';
  const points = src?.series?.t.length ?? 0;

  return (
    <section className="panel counters" aria-labelledby="counters-title">
      <div className="panel-head">
        <h2 id="counters-title">Counters{src?.live ? <span className="live">live</span> : null}</h2>
        <span className="hint">
          {src && points > 0 ? `${points.toLocaleString('en-US')} sample${points === 1 ? '' : 's'} over virtual time` : 'vmstat’s figures over the timed command'}
        </span>
        {src?.pool && src.pool.choices.length > 1 ? (
          <label className="inline">
            Watch{' '}
            <select data-testid="counter-worker" value={counters.worker ?? ''}
              onChange={(e) => lab.ui.setCounterWorker(e.target.value === '' ? null : Number(e.target.value))}>
              <option value="">the first worker running (now worker {src.pool.worker + 1})</option>
              {src.pool.choices.map((c, i) => (
                <option key={i} value={i}>{c}</option>
              ))}
            </select>
          </label>
        ) : src && src.rows.length > 1 ? (
          <label className="inline">
            Row{' '}
            <select value={src.row} onChange={(e) => lab.ui.setCounterRow(Number(e.target.value))}>
              {src.rows.map((r, i) => (
                <option key={`${r}-${i}`} value={i}>{i + 1}. {r}</option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      {src?.pool ? <p className="hint pool-note" data-testid="counter-live-note">{poolNote(src.pool)}</p> : null}
      <details className="counter-picker">
        <summary>
          Choose counters <span className="muted">({selected.length} of {defs.length} shown)</span>
        </summary>
        <div className="counter-choice">
          {groups.map(([group, list]) => (
            <fieldset key={group}>
              <legend>{GROUP_NAMES[group] ?? group}</legend>
              {list.map((c) => {
                const n = counterName(c);
                return (
                  <label key={c.id} className="check" title={c.description}>
                    <input type="checkbox" checked={selected.includes(c.id)} onChange={(e) => toggle(c.id, e.target.checked)}
                      data-counter={c.id} />
                    <span className={`swatch series-${colourIndex(c.id) % 10}`} aria-hidden="true" />
                    {n.name} <span className="unit">{n.unit} · {n.column}</span>
                  </label>
                );
              })}
            </fieldset>
          ))}
        </div>
      </details>
      <Suspense fallback={<div className="chart-loading">Loading the chart…</div>}>
        <CounterChart
          series={src?.series ?? null}
          panels={panels}
          names={names}
          colourIndex={colourIndex}
          emptyText={emptyText}
          version={src?.version ?? -1}
          title={`Counters over virtual time${src ? ` for ${src.rows[src.row] ?? ''}` : ''}${compare ? `, ${compare.labelB} (solid) and ${compare.labelA} (dashed)` : ''}: ${panels.map((p) => p.title).join('; ')}`}
          handle={lab.charts.ref('counters')}
          compare={compare}
        />
      </Suspense>
    </section>
  );
}
