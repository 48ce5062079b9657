import { lazy, Suspense, useMemo, useState } from 'react';

import { resultJson } from '../../../../experiments/runner/result';
import {
  comparisonTable, formatSeconds, METRIC_LABEL, primaryMetric, resultTable, runOutcome,
} from '../../../../experiments/runner/resultView';
import {
  candidateFor, compareBlocker, compareCandidates, compareRuns, comparisonBars, comparisonCsv, configLine,
  formatConfigDiff, originText, shortFigure, type RunRef,
} from '../compare';
import { experimentById } from '../config';
import type { LabController, LabState } from '../controller';
import { chartsSvg, download, svgToPng } from '../exporting';
import { exportName, resultBars, resultCsv } from '../results';
import { when } from './HistoryPanel';
import { ResultTable } from './ResultTable';

const ResultsBarChart = lazy(() => import('./ChartViews').then((m) => ({ default: m.ResultsBarChart })));

const SOURCE_TEXT = { run: 'this page’s last run', permalink: 'a shared run (from its link)', history: 'from your history' } as const;

export function ResultsPanel({ state, lab }: { state: LabState; lab: LabController }) {
  const view = state.view;
  const result = view?.shared.result ?? null;
  const shown = view?.shared ?? null;
  // Compared with another run (A; the shown one is B) when one is chosen and it can be.
  const against = state.comparison;
  const blocker = useMemo(() => (shown && against ? compareBlocker(shown, against.shared) : null), [shown, against]);
  const pair = useMemo(() => (shown && against && !blocker ? compareRuns(against.shared, shown) : null), [shown, against, blocker]);
  const candidates = useMemo(
    () => (shown ? compareCandidates(shown, state.sessionRuns, state.history.entries, when) : []),
    [shown, state.sessionRuns, state.history.entries],
  );
  const table = useMemo(() => (pair ? comparisonTable(pair) : result ? resultTable(result) : null), [pair, result]);
  const bars = useMemo(() => (pair ? comparisonBars(pair) : result ? resultBars(result) : null), [pair, result]);
  const metric = pair ? pair.metric : result ? primaryMetric(result) : 'elapsed';
  const selected = pair ? candidateFor(candidates, against) : undefined;
  const sessionCandidates = candidates.filter((c) => c.group === 'session');
  const historyCandidates = candidates.filter((c) => c.group === 'history');
  const pick = (key: string) => {
    const c = candidates.find((x) => x.key === key);
    if (c) lab.compareWith(c.ref);
    else lab.clearComparison();
  };
  const entry = view?.historyId ? state.history.entries.find((h) => h.id === view.historyId) : undefined;
  const shownRef: RunRef | null = view && view.source !== 'run'
    ? { shared: view.shared, source: view.source, at: entry?.savedAt }
    : null;
  // A run stopped or failed says so above its rows (not only in a row's status).
  const outcome = useMemo(() => (result ? runOutcome(result, experimentById(result.experiment)?.steps.length) : null), [result]);
  // The exported charts' heading: the experiment, and its parameters when not the paper's (a reduced count).
  const changedParameters = result
    ? Object.entries(result.parameters).filter(([k, v]) => experimentById(result.experiment)?.parameters[k] !== v).map(([k, v]) => `${k}=${v}`)
    : [];
  const chartTitle = result
    ? `vaxlab: ${result.title}${pair ? ` (${formatConfigDiff(pair.diff)})` : changedParameters.length ? ` (${changedParameters.join(', ')})` : ''}`
    : '';

  const [exportError, setExportError] = useState<string | null>(null);
  const running = lab.running;

  const chartSvgs = (): SVGSVGElement[] =>
    [...document.querySelectorAll<SVGSVGElement>('[data-testid="counter-chart"], [data-testid="results-bar-chart"]')];

  const exportSvg = () => {
    if (!result) return;
    try {
      const { text } = chartsSvg(chartSvgs(), chartTitle);
      download(`${exportName(result)}.svg`, text, 'image/svg+xml');
      setExportError(null);
    } catch (e) {
      setExportError(`SVG export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const exportPng = async () => {
    if (!result) return;
    try {
      const { text, width, height } = chartsSvg(chartSvgs(), chartTitle);
      download(`${exportName(result)}.png`, await svgToPng(text, width, height), 'image/png');
      setExportError(null);
    } catch (e) {
      setExportError(`PNG export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  // A few rows: the table and the bar chart side by side (when the panel is wide enough), the chart narrower.
  const compact = !!result && result.rows.length <= 4 && result.view !== 'paging' && !pair;
  // Two runs of a few rows: the table is too wide to share the line; the chart is kept narrower below it.
  const few = !!pair && pair.rows.length <= 4;

  return (
    <section className="panel results" aria-labelledby="results-title">
      <div className="panel-head">
        <h2 id="results-title">Results</h2>
        {view ? <span className="hint">{SOURCE_TEXT[view.source]}{pair ? ', compared with another run' : ''}</span> : null}
      </div>

      {!result ? (
        <p className="muted">{running ? 'The results appear when the run finishes.' : 'Pick an experiment and press Run. Finished runs are kept in the history below.'}</p>
      ) : (
        <>
          <div className="result-meta">
            <div className="result-title">{result.title}</div>
            {outcome ? <p className="result-outcome failure" data-testid="result-outcome">{outcome}.</p> : null}
            {pair ? null : <dl>
              <div><dt>Machine</dt><dd>VAX-11/{result.machine.cpu} model ({result.machine.nsPerInstruction} ns/instruction), {result.machine.memoryMB} MB, {result.machine.boot}-user</dd></div>
              <div><dt>Parameters</dt><dd>{Object.entries(result.parameters).map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}</dd></div>
              <div><dt>Kernel variables</dt><dd>{Object.entries(result.kernelSettings).map(([k, v]) => `${k}=${v}`).join(', ') || 'as distributed'}</dd></div>
              {result.image ? <div><dt>Image</dt><dd>{result.image.name}{result.image.sha256 ? ` (sha256 ${result.image.sha256.slice(0, 12)}…)` : ''}</dd></div> : null}
              {view?.hostSeconds !== undefined ? <div><dt>Host time</dt><dd>{formatSeconds(view.hostSeconds)} s</dd></div> : null}
            </dl>}
          </div>

          <div className="compare-bar">
            <label htmlFor="compare-select">Compare with…</label>
            <select
              id="compare-select" data-testid="compare-select" value={selected?.key ?? ''} onChange={(e) => pick(e.target.value)}
              disabled={candidates.length === 0 && !against}
              title={candidates.length === 0
                ? 'No other run of this experiment (or of one sharing its rows) yet: change a setting and run it again, or open the history.'
                : 'Show this run (B) against another (A): their times side by side, B − A, and what differs in their settings.'}
            >
              <option value="">{candidates.length === 0 ? 'no other run to compare with yet' : pair ? 'nothing (only the paper)' : 'choose a run…'}</option>
              {sessionCandidates.length ? (
                <optgroup label="Runs of this page">
                  {sessionCandidates.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
                </optgroup>
              ) : null}
              {historyCandidates.length ? (
                <optgroup label="History">
                  {historyCandidates.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
                </optgroup>
              ) : null}
            </select>
            {against ? (
              <button type="button" data-testid="compare-clear" onClick={() => lab.clearComparison()}>Clear comparison</button>
            ) : null}
            {against && blocker ? <span className="hint" data-testid="compare-blocked">Not compared: {blocker}</span> : null}
          </div>

          {pair ? (
            <div className="compare-summary" data-testid="compare-summary">
              <p className="compare-diff" data-testid="compare-diff">
                <span className="compare-diff-head">{pair.diff.length ? 'Differs in' : 'Settings'}</span> {formatConfigDiff(pair.diff)}
              </p>
              <ul className="compare-runs">
                <li>
                  <span className="key-swatch key-a" aria-hidden="true" />
                  <strong>A</strong>
                  <span>{originText(pair.a === against?.shared ? against : { shared: pair.a, source: 'history' }, when)}: {configLine(pair.a)}; {shortFigure(pair.a.result)}</span>
                </li>
                <li>
                  <span className="key-swatch key-b" aria-hidden="true" />
                  <strong>B</strong>
                  <span>
                    {shownRef ? originText(shownRef, when) : 'this page’s last run'}
                    {view?.hostSeconds !== undefined ? ` (${formatSeconds(view.hostSeconds)} s of host time)` : ''}: {configLine(pair.b)}; {shortFigure(pair.b.result)}
                  </span>
                </li>
              </ul>
            </div>
          ) : null}

          <div className={`result-body${compact ? ' compact' : ''}${few ? ' few' : ''}`}>
            <div className="result-table-box">
              <ResultTable table={table!} caption={pair ? 'Run A, run B and the paper, per row' : 'Ours against the paper, per row'} />
              <p className="hint">{result.compare}</p>
              {pair ? <p className="hint">B − A: B’s time minus A’s, in seconds and in % of A’s; each run against the paper at its own count.</p> : null}
            </div>

            <Suspense fallback={<div className="chart-loading">Loading the chart…</div>}>
              <ResultsBarChart
                data={bars!} yLabel={METRIC_LABEL[metric]}
                title={pair
                  ? `${METRIC_LABEL[metric]} per row, ${pair.labels.a} and ${pair.labels.b} against the paper: ${result.title}`
                  : `${METRIC_LABEL[metric]} per row, ours against the paper: ${result.title}`}
              />
            </Suspense>
          </div>

          <div className="result-actions">
            <div className="exports" role="group" aria-label="Export">
              <span className="group-label">Export</span>
              <button type="button" data-testid="export-json" onClick={() => download(`${exportName(result)}.json`, resultJson(result), 'application/json')}
                title={pair ? 'The result of the run shown (B), as the command line writes it; the CSV has both runs' : 'The result, as the command line writes it'}>
                JSON{pair ? ' (B)' : ''}
              </button>
              <button type="button" data-testid="export-csv"
                onClick={() => download(`${exportName(result)}${pair ? '-compared' : ''}.csv`, pair ? comparisonCsv(pair) : resultCsv(result), 'text/csv')}
                title={pair ? 'Every row of A and of B (column run), with B − A on the rows they share' : 'One line per row'}>
                CSV{pair ? ' (A and B)' : ''}
              </button>
              <button type="button" data-testid="export-svg" onClick={exportSvg}>Charts as SVG</button>
              <button type="button" data-testid="export-png" onClick={() => void exportPng()}>Charts as PNG</button>
              {exportError ? <span className="field-error">{exportError}</span> : null}
            </div>
            <div className="share">
              <button type="button" data-testid="permalink-button" onClick={() => void lab.copyPermalink()} disabled={state.share.busy}
                title={pair
                  ? 'A link to the run shown (B) only: a comparison has no link of its own. Share both runs’ links, or the CSV.'
                  : 'A link that shows this result in any browser, without running anything'}>
                {pair ? 'Copy permalink (B)' : 'Copy permalink'}
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
