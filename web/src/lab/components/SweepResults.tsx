import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';

import { sweepJson } from '../../../../experiments/runner/sweep';
import {
  availableMeasures, defaultMeasure, findMeasure, sweepChart, sweepCsv, sweepFixedSettings, sweepOutcome, sweepTable,
} from '../../../../experiments/runner/sweepView';
import type { LabController } from '../controller';
import { chartsSvg, download, svgToPng } from '../exporting';
import { useAtom } from '../state/atom';
import { when } from './HistoryPanel';
import { ResultTable } from './ResultTable';

const SweepLineChart = lazy(() => import('./SweepChartView').then((m) => ({ default: m.SweepLineChart })));

const SOURCE = { run: 'this page’s last sweep', history: 'from your sweep history', file: 'from a file', link: 'from a link' } as const;

/**
 * The sweep shown: what was swept, a line chart of the chosen measure
 * against the first setting (a line per row, and per value of the second
 * setting; the paper's figures as diamonds), the table of every point,
 * exports (JSON as the command line writes it, CSV, the chart as SVG or
 * PNG), and the sweeps kept in this browser.
 */
export function SweepResults({ lab }: { lab: LabController }) {
  const shown = useAtom(lab.sweeps.shown);
  const measureId = useAtom(lab.sweeps.measure);
  const history = useAtom(lab.sweeps.history);
  const fileError = useAtom(lab.sweeps.fileError);
  const share = useAtom(lab.sweeps.share);
  const [exportError, setExportError] = useState<string | null>(null);
  const result = shown?.result ?? null;
  // A sweep opened from a link is what the page was opened for, but this panel is far down (a shared run has its
  // banner at the top instead): brought into view once per sweep opened.
  const panel = useRef<HTMLElement>(null);
  const broughtIntoView = useRef<unknown>(null);
  useEffect(() => {
    if (shown?.source !== 'link' || broughtIntoView.current === shown.result || !panel.current) return;
    broughtIntoView.current = shown.result;
    panel.current.scrollIntoView({ block: 'start' });
  }, [shown]);
  const measure = (measureId ? findMeasure(measureId) : undefined) ?? (result ? defaultMeasure(result) : undefined);
  // The measures some point has, and always the one shown (a sweep stopped before any point ended has none).
  const measures = useMemo(() => {
    const some = result ? availableMeasures(result) : [];
    return measure && !some.includes(measure) ? [measure, ...some] : some;
  }, [result, measure]);
  const chart = useMemo(() => (result && measure && result.axes.length > 0 ? sweepChart(result, measure) : null), [result, measure]);
  const table = useMemo(() => (result && measure ? sweepTable(result, measure) : null), [result, measure]);
  const fixed = useMemo(() => (result ? sweepFixedSettings(result) : []), [result]);
  const name = result ? `vaxlab-sweep-${result.experiment}-${result.axes.map((a) => a.setting).join('-')}` : 'vaxlab-sweep';
  const title = result && measure
    ? `${result.title}: ${measure.label} against ${result.axes.map((a) => a.setting).join(' and ')}`
    : '';

  const exportChart = async (kind: 'SVG' | 'PNG') => {
    const svgs = lab.charts.list(['sweep']);
    if (svgs.length === 0) return;
    try {
      const { text, width, height } = chartsSvg(svgs, title);
      if (kind === 'SVG') download(`${name}.svg`, text, 'image/svg+xml');
      else download(`${name}.png`, await svgToPng(text, width, height), 'image/png');
      setExportError(null);
    } catch (e) {
      setExportError(`${kind} export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return (
    <section ref={panel} className="panel sweep-results" aria-labelledby="sweep-results-title" data-testid="sweep-results">
      <div className="panel-head">
        <h2 id="sweep-results-title">Sweep results</h2>
        {shown ? <span className="hint">{SOURCE[shown.source]}</span> : null}
      </div>
      {fileError ? <p className="field-error" role="alert">{fileError}</p> : null}
      {result && measure && table ? (
        <>
          <div className="result-meta">
            <div className="result-title">{result.title}</div>
            <p data-testid="sweep-outcome" className={result.status === 'ok' ? '' : 'result-outcome failure'}>
              {result.axes.map((a) => `${a.setting} = ${a.labels.join(', ')}`).join(' × ')}: {sweepOutcome(result)}
              {shown?.hostSeconds !== undefined ? ` — ${shown.hostSeconds.toFixed(1)} s of host time on ${shown.jobs ?? 1} worker${shown.jobs === 1 ? '' : 's'}` : ''}.
            </p>
            {fixed.length ? (
              <p className="hint" data-testid="sweep-fixed">Every point: {fixed.join(', ')}.</p>
            ) : null}
            {shown?.source === 'link' && shown.omitted?.length ? (
              <p className="hint" data-testid="sweep-link-note">This link holds every point’s figures, without {shown.omitted.join(', ')}.</p>
            ) : null}
          </div>
          <div className="sweep-controls">
            <label htmlFor="sweep-measure">Measure</label>
            <select id="sweep-measure" data-testid="sweep-measure" value={measure.id} onChange={(e) => lab.sweeps.measure.set(e.target.value)}>
              {measures.map((m) => <option key={m.id} value={m.id}>{m.label}</option>)}
            </select>
          </div>
          {chart ? (
            <Suspense fallback={<div className="chart-loading">Loading the chart…</div>}>
              <SweepLineChart chart={chart} title={title} handle={lab.charts.ref('sweep')} />
            </Suspense>
          ) : null}
          <ResultTable table={table} caption="Every point of the sweep" />
          <div className="result-actions">
            <div className="exports" role="group" aria-label="Export the sweep">
              <span className="group-label">Export</span>
              <button type="button" data-testid="sweep-export-json" title="The sweep's result, as vaxlab sweep --json writes it"
                onClick={() => download(`${name}.json`, sweepJson(result), 'application/json')}>JSON</button>
              <button type="button" data-testid="sweep-export-csv" title="One line per point and row"
                onClick={() => download(`${name}.csv`, sweepCsv(result, measure), 'text/csv')}>CSV</button>
              <button type="button" data-testid="sweep-export-svg" onClick={() => void exportChart('SVG')}>Chart as SVG</button>
              <button type="button" data-testid="sweep-export-png" onClick={() => void exportChart('PNG')}>Chart as PNG</button>
              {exportError ? <span className="field-error">{exportError}</span> : null}
            </div>
            <div className="share">
              <button type="button" data-testid="sweep-permalink-button" onClick={() => void lab.copySweepLink()} aria-disabled={share.busy}
                title="A link that shows this sweep's chart and table in any browser, without running anything">
                Copy permalink
              </button>
              {share.url ? (
                <label className="permalink-field">
                  <span className="visually-hidden">Sweep permalink</span>
                  <input data-testid="sweep-permalink-url" readOnly value={share.url} onFocus={(e) => e.currentTarget.select()} />
                </label>
              ) : null}
              {share.message ? <span className="hint" role="status">{share.message}</span> : null}
            </div>
            <button type="button" className="quiet" onClick={() => lab.sweeps.close()}>Close</button>
          </div>
        </>
      ) : (
        <p className="muted">Choose a setting and its values under Sweep and press Run sweep; finished sweeps are kept below.</p>
      )}
      <div className="sweep-history">
        <h3>Kept sweeps</h3>
        {history.error ? <p className="hint">{history.error}</p> : null}
        <ul data-testid="sweep-history">
          {history.entries.length === 0 ? <li className="muted">No sweeps yet.</li> : null}
          {history.entries.map((h) => (
            <li key={h.id} className={shown?.historyId === h.id ? 'current' : undefined}>
              <button type="button" className="history-open" onClick={() => lab.sweeps.openHistory(h.id)}>
                <span className="experiment-id">{h.result.experiment}</span>
                <span>{h.result.axes.map((a) => `${a.setting}=${a.labels.join(',')}`).join(' × ')}</span>
                <span className={h.result.status === 'ok' ? 'num' : 'failure'}>{sweepOutcome(h.result)}</span>
                <time dateTime={h.savedAt}>{when(h.savedAt)}</time>
              </button>
              <button type="button" className="quiet" onClick={() => void lab.sweeps.deleteHistory(h.id)}
                aria-label={`Delete the ${h.result.experiment} sweep of ${when(h.savedAt)}`}>Delete</button>
            </li>
          ))}
        </ul>
        <label className="file-open">
          Open a sweep’s JSON (an export, or <code>vaxlab sweep --json</code> / <code>vaxlab merge</code>):{' '}
          <input type="file" accept=".json,application/json" data-testid="sweep-open-file" onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void f.text().then((t) => lab.sweeps.openFile(f.name, t));
            e.target.value = '';
          }} />
        </label>
      </div>
    </section>
  );
}
