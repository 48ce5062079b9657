import { lazy, Suspense, useCallback, useMemo } from 'react';

import { COUNTERS, type CounterDef } from '../../../../experiments/runner/counters';
import { experimentById } from '../config';
import type { LabController, LabState } from '../controller';
import { seriesFromResult, seriesFromSamples, type Series } from '../results';

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
}

function source(state: LabState): Source | null {
  const { view, run, counters } = state;
  if (run && (!view || view.source === 'run')) {
    const spec = experimentById(run.experiment);
    const rows = run.result ? run.result.rows.map((r) => r.test) : (spec?.steps.map((s) => s.label) ?? []);
    const live = run.status === 'starting' || run.status === 'running' || run.status === 'stopping';
    const current = run.progress ? run.progress.step - 1 : 0;
    const row = counters.row ?? (live ? current : 0);
    return {
      experiment: run.experiment, rows, row, series: seriesFromSamples(run.samples, row),
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
function sourceKey(state: LabState): unknown[] {
  const { view, run, counters } = state;
  return [view, run?.runId, run?.samplesVersion, run?.status, run?.progress?.step, run?.result, counters.row];
}

export function CounterPanel({ state, lab }: { state: LabState; lab: LabController }) {
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const src = useMemo(() => source(state), sourceKey(state));
  // Counters the data has but this page does not know (a link from a newer lab) still show, by id.
  const defs = useMemo(() => {
    const known = new Map(COUNTERS.map((c) => [c.id, c]));
    for (const id of Object.keys(src?.series?.values ?? {})) {
      if (!known.has(id)) known.set(id, { id, label: id, unit: '', group: 'other', description: '', source: 'kernel' });
    }
    return [...known.values()];
  }, [src?.series]);
  const selected = state.counters.selected ?? defaultCounters(defs, src?.experiment ?? state.form.experimentId);
  // Labels are vmstat's columns ("sy" is both faults and cpu): the legend adds the group where that is ambiguous.
  const chosenDefs = useMemo(() => {
    const chosen = defs.filter((c) => selected.includes(c.id));
    const count = new Map<string, number>();
    for (const c of chosen) count.set(c.label, (count.get(c.label) ?? 0) + 1);
    return chosen.map((c) => ({ ...c, label: (count.get(c.label) ?? 0) > 1 ? `${c.group} ${c.label}` : c.label }));
  }, [defs, selected]);
  const colourIndex = useCallback((id: string) => Math.max(0, defs.findIndex((c) => c.id === id)), [defs]);
  const groups = useMemo(() => {
    const g = new Map<string, CounterDef[]>();
    for (const c of defs) g.set(c.group, [...(g.get(c.group) ?? []), c]);
    return [...g];
  }, [defs]);

  const toggle = (id: string, on: boolean) => {
    const next = on ? [...selected, id] : selected.filter((s) => s !== id);
    lab.setCounterSelection(defs.filter((c) => next.includes(c.id)).map((c) => c.id));
  };

  const emptyText = !src
    ? 'Run an experiment to see its counters.'
    : src.live
      ? 'Counters appear once the timed command runs (one sample per virtual second).'
      : 'No counters were recorded for this row.';

  return (
    <section className="panel counters" aria-labelledby="counters-title">
      <div className="panel-head">
        <h2 id="counters-title">Counters{src?.live ? <span className="live">live</span> : null}</h2>
        {src && src.rows.length > 1 ? (
          <label className="inline">
            Row{' '}
            <select value={src.row} onChange={(e) => lab.setCounterRow(Number(e.target.value))}>
              {src.rows.map((r, i) => (
                <option key={`${r}-${i}`} value={i}>{i + 1}. {r}</option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      <details className="counter-picker">
        <summary>
          Choose counters <span className="muted">({selected.length} of {defs.length} shown)</span>
        </summary>
        <div className="counter-choice">
        {groups.map(([group, list]) => (
          <fieldset key={group}>
            <legend>{group}</legend>
            {list.map((c) => (
              <label key={c.id} className="check" title={c.description}>
                <input type="checkbox" checked={selected.includes(c.id)} onChange={(e) => toggle(c.id, e.target.checked)}
                  data-counter={c.id} />
                <span className={`swatch series-${colourIndex(c.id) % 10}`} aria-hidden="true" />
                {c.label} <span className="unit">({c.unit || 'no unit'})</span>
              </label>
            ))}
          </fieldset>
        ))}
        </div>
      </details>
      <Suspense fallback={<div className="chart-loading">Loading the chart…</div>}>
        <CounterChart
          series={src?.series ?? null}
          counters={chosenDefs}
          colourIndex={colourIndex}
          emptyText={emptyText}
          version={src?.version ?? -1}
          title={`Counters over virtual time${src ? ` for ${src.rows[src.row] ?? ''}` : ''}`}
        />
      </Suspense>
    </section>
  );
}
