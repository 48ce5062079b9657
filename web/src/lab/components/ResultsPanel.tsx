import { lazy, Suspense, useMemo, useState } from 'react';

import type { LabController, LabState } from '../controller';
import { chartsSvg, download, svgToPng } from '../exporting';
import {
  compare, exportName, formatSeconds, METRIC_LABEL, paperLegend, primaryMetric, resultCsv, resultJsonText, resultTable,
} from '../results';

const ResultsBarChart = lazy(() => import('./ChartViews').then((m) => ({ default: m.ResultsBarChart })));

const SOURCE_TEXT = { run: 'this page’s last run', permalink: 'a shared run (from its link)', history: 'from your history' } as const;

export function ResultsPanel({ state, lab }: { state: LabState; lab: LabController }) {
  const view = state.view;
  const result = view?.shared.result ?? null;
  const table = useMemo(() => (result ? resultTable(result) : null), [result]);
  const barRows = useMemo(
    () =>
      result
        ? compare(result).map((r) => ({ test: r.test, ours: r.ours, paper: r.comparable ? r.paper : null, percent: r.percent }))
        : [],
    [result],
  );
  const metric = result ? primaryMetric(result) : 'elapsed';

  const [exportError, setExportError] = useState<string | null>(null);
  const running = lab.running;

  const chartSvgs = (): SVGSVGElement[] =>
    [...document.querySelectorAll<SVGSVGElement>('[data-testid="counter-chart"], [data-testid="results-bar-chart"]')];

  const exportSvg = () => {
    if (!result) return;
    try {
      const { text } = chartsSvg(chartSvgs(), `vaxlab: ${result.title}`);
      download(`${exportName(result)}.svg`, text, 'image/svg+xml');
      setExportError(null);
    } catch (e) {
      setExportError(`SVG export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const exportPng = async () => {
    if (!result) return;
    try {
      const { text, width, height } = chartsSvg(chartSvgs(), `vaxlab: ${result.title}`);
      download(`${exportName(result)}.png`, await svgToPng(text, width, height), 'image/png');
      setExportError(null);
    } catch (e) {
      setExportError(`PNG export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  // A few rows: the table and the bar chart side by side (when the panel is wide enough), the chart narrower.
  const compact = !!result && result.rows.length <= 4 && result.view !== 'paging';

  return (
    <section className="panel results" aria-labelledby="results-title">
      <div className="panel-head">
        <h2 id="results-title">Results</h2>
        {view ? <span className="hint">{SOURCE_TEXT[view.source]}</span> : null}
      </div>

      {!result ? (
        <p className="muted">{running ? 'The results appear when the run finishes.' : 'Pick an experiment and press Run. Finished runs are kept in the history below.'}</p>
      ) : (
        <>
          <div className="result-meta">
            <div className="result-title">{result.title}</div>
            <dl>
              <div><dt>Machine</dt><dd>VAX-11/{result.machine.cpu} model ({result.machine.nsPerInstruction} ns/instruction), {result.machine.memoryMB} MB, {result.machine.boot}-user</dd></div>
              <div><dt>Parameters</dt><dd>{Object.entries(result.parameters).map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}</dd></div>
              <div><dt>Kernel variables</dt><dd>{Object.entries(result.kernelSettings).map(([k, v]) => `${k}=${v}`).join(', ') || 'as distributed'}</dd></div>
              {result.image ? <div><dt>Image</dt><dd>{result.image.name}{result.image.sha256 ? ` (sha256 ${result.image.sha256.slice(0, 12)}…)` : ''}</dd></div> : null}
              {view?.hostSeconds !== undefined ? <div><dt>Host time</dt><dd>{formatSeconds(view.hostSeconds)} s</dd></div> : null}
            </dl>
          </div>

          <div className={compact ? 'result-body compact' : 'result-body'}>
            <div className="result-table-box">
              <div className="table-wrap">
                <table data-testid="result-table" className="result-table" aria-describedby={table!.footnote ? 'results-footnote' : undefined}>
                  <caption className="visually-hidden">Ours against the paper, per row</caption>
                  <thead>
                    <tr>
                      {table!.columns.map((c, i) => (
                        <th key={i} scope="col" className={`${c.numeric ? 'num' : ''}${c.paper ? ' paper-start' : ''}`} title={c.title}>
                          {c.label}
                        </th>
                      ))}
                    </tr>
                  </thead>
                  <tbody>
                    {table!.rows.map((r, i) => (
                      <tr key={`${r.test}-${i}`} data-testid="result-row" className={r.status === 'ok' ? '' : 'failed'}>
                        {r.cells.map((cell, j) =>
                          j === 0 ? (
                            <th key={j} scope="row">{cell.text}</th>
                          ) : (
                            <td
                              key={j} title={cell.title}
                              className={[table!.columns[j]?.numeric ? 'num' : '', table!.columns[j]?.paper ? 'paper-start' : '', cell.className ?? '']
                                .filter(Boolean).join(' ') || undefined}
                            >
                              {cell.text}
                            </td>
                          ),
                        )}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {table!.footnote ? <p className="table-footnote" id="results-footnote">{table!.footnote}</p> : null}
              {table!.notes.map((n) => <p key={n} className="hint">{n}</p>)}
              <p className="hint">{result.compare}</p>
            </div>

            <Suspense fallback={<div className="chart-loading">Loading the chart…</div>}>
              <ResultsBarChart
                rows={barRows} yLabel={METRIC_LABEL[metric]} paperLabel={paperLegend(result)}
                title={`${METRIC_LABEL[metric]} per row, ours against the paper: ${result.title}`}
              />
            </Suspense>
          </div>

          <div className="result-actions">
            <div className="exports" role="group" aria-label="Export">
              <span className="group-label">Export</span>
              <button type="button" data-testid="export-json" onClick={() => download(`${exportName(result)}.json`, resultJsonText(result), 'application/json')}>JSON</button>
              <button type="button" data-testid="export-csv" onClick={() => download(`${exportName(result)}.csv`, resultCsv(result), 'text/csv')}>CSV</button>
              <button type="button" data-testid="export-svg" onClick={exportSvg}>Charts as SVG</button>
              <button type="button" data-testid="export-png" onClick={() => void exportPng()}>Charts as PNG</button>
              {exportError ? <span className="field-error">{exportError}</span> : null}
            </div>
            <div className="share">
              <button type="button" data-testid="permalink-button" onClick={() => void lab.copyPermalink()} disabled={state.share.busy}>
                Copy permalink
              </button>
              {state.share.url ? (
                <label className="permalink-field">
                  <span className="visually-hidden">Permalink</span>
                  <input data-testid="permalink-url" readOnly value={state.share.url} onFocus={(e) => e.currentTarget.select()} />
                </label>
              ) : null}
              {state.share.message ? <span className="hint" role="status">{state.share.message}</span> : null}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
