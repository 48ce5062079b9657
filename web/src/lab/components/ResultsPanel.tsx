import { lazy, Suspense, useMemo } from 'react';

import {
  comparisonTable, formatSeconds, METRIC_LABEL, primaryMetric, resultTable, runOutcome,
} from '../../../../experiments/runner/resultView';
import {
  compareBlocker, compareCandidates, compareRuns, comparisonBars, defaultKernelNote, exportCaption, formatConfigDiff, kernelLabel, resultKernel,
} from '../compare';
import { experimentById } from '../config';
import type { LabController } from '../controller';
import { exportTitle, machineWords, resultBars } from '../results';
import { withCode } from './withCode';
import { useAtom, useAtomSelect } from '../state/atom';
import { isRunning } from '../state/runs';
import { kernelChange, kernelChangeTable } from '../kernelChange';
import { CompareBar, CompareSummary } from './CompareViews';
import { when } from './HistoryPanel';
import { ResultActions } from './ResultActions';
import { ResultTable } from './ResultTable';

const ResultsBarChart = lazy(() => import('./ChartViews').then((m) => ({ default: m.ResultsBarChart })));

const SOURCE_TEXT = { run: 'this page’s last run', permalink: 'a shared run (from its link)', history: 'from your history' } as const;

/**
 * The result shown (a run of this page, a link's or the history's): what
 * ran, ours against the paper as a table and a bar chart, compared with
 * another run when one is chosen (then A, B and B − A), exports and the
 * permalink.
 */
export function ResultsPanel({ lab }: { lab: LabController }) {
  const view = useAtom(lab.shown.view);
  const against = useAtom(lab.comparison.against);
  const history = useAtom(lab.history.history);
  const sessionRuns = useAtom(lab.shown.sessionRuns);
  const linkRuns = useAtom(lab.shown.linkRuns);
  const counterChoice = useAtom(lab.ui.counters);
  const running = useAtomSelect(lab.runs.run, isRunning);
  const result = view?.shared.result ?? null;
  const shown = view?.shared ?? null;
  // Compared with another run (A; the shown one is B) when one is chosen and it can be.
  const blocker = useMemo(() => (shown && against ? compareBlocker(shown, against.shared) : null), [shown, against]);
  const pair = useMemo(() => (shown && against && !blocker ? compareRuns(against.shared, shown) : null), [shown, against, blocker]);
  const candidates = useMemo(
    () => (shown ? compareCandidates(shown, sessionRuns, history.entries, when, linkRuns) : []),
    [shown, sessionRuns, history.entries, linkRuns],
  );
  const table = useMemo(() => (pair ? comparisonTable(pair) : result ? resultTable(result) : null), [pair, result]);
  const bars = useMemo(() => (pair ? comparisonBars(pair) : result ? resultBars(result) : null), [pair, result]);
  // A kernel variant against GENERIC: the paper's 4.2 → 4.3 change beside ours.
  const kernelTable = useMemo(() => {
    const k = pair ? kernelChange(pair) : null;
    return k ? { k, table: kernelChangeTable(k) } : null;
  }, [pair]);
  // A run stopped, failed or cut short says so above its rows (not only in a row's status).
  const interrupted = !!view?.historyId && !!history.entries.find((h) => h.id === view.historyId)?.interrupted;
  const outcome = useMemo(
    () => (result ? runOutcome(result, experimentById(result.experiment)?.steps.length, interrupted) : null),
    [result, interrupted],
  );

  if (!view || !result || !table || !bars) {
    return (
      <section className="panel results" aria-labelledby="results-title">
        <div className="panel-head"><h2 id="results-title">Results</h2></div>
        <p className="muted">{running ? 'The results appear when the run finishes.' : 'Pick an experiment and press Run. Finished runs are kept in the history below.'}</p>
      </section>
    );
  }
  const metric = pair ? pair.metric : primaryMetric(result);
  const entry = view.historyId ? history.entries.find((h) => h.id === view.historyId) : undefined;
  // A narrow table (two runs of one row: a row per figure): the table and the bar chart side by side (when the
  // panel is wide enough); a few rows: the chart kept narrower below the table.
  const compact = table.columns.length <= 7;
  const few = !compact && table.rows.length <= 4;
  const counterRow = result.rows[Math.min(counterChoice.row ?? 0, result.rows.length - 1)]?.test ?? null;
  const caption = exportCaption(view.shared, pair, counterRow, entry?.savedAt);

  return (
    <section className="panel results" aria-labelledby="results-title">
      <div className="panel-head">
        <h2 id="results-title">Results</h2>
        <span className="hint">{SOURCE_TEXT[view.source]}{pair ? ', compared with another run' : ''}</span>
      </div>

      <div className="result-meta">
        <div className="result-title">{result.title}</div>
        {outcome ? <p className="result-outcome failure" data-testid="result-outcome">{outcome}.</p> : null}
        {pair ? null : <dl>
          <div><dt>Machine</dt><dd data-testid="result-machine">{machineWords(result.machine)}</dd></div>
          <div><dt>Parameters</dt><dd>{Object.entries(result.parameters).map(([k, v]) => `${k}=${v}`).join(', ') || 'none'}</dd></div>
          <div><dt>Kernel</dt><dd data-testid="result-kernel">{kernelLabel(result)}{resultKernel(result).name === '/vmunix'
            ? ', /vmunix as distributed'
            : ` (${resultKernel(result).name}${result.kernel?.sha256 ? `, sha256 ${result.kernel.sha256.slice(0, 12)}…` : ''})`}
            {experimentById(result.experiment)?.kernel === resultKernel(result).name ? defaultKernelNote(resultKernel(result).name) : ''}</dd></div>
          <div><dt>Kernel variables</dt><dd>{Object.entries(result.kernelSettings).map(([k, v]) => `${k}=${v}`).join(', ') || 'as distributed'}</dd></div>
          {result.image ? <div><dt>Image</dt><dd>{result.image.name}{result.image.sha256 ? ` (sha256 ${result.image.sha256.slice(0, 12)}…)` : ''}</dd></div> : null}
          {view.hostSeconds !== undefined ? <div><dt>Host time</dt><dd>{formatSeconds(view.hostSeconds)} s</dd></div> : null}
        </dl>}
      </div>

      <CompareBar comparison={lab.comparison} candidates={candidates} against={against} pair={pair} blocker={blocker}
        onSwap={() => lab.swapComparison()} />
      {pair ? <CompareSummary pair={pair} against={against} shownRef={lab.shown.shownRef(entry?.savedAt)} hostSeconds={view.hostSeconds} /> : null}

      <div className={`result-body${compact ? ' compact' : ''}${few ? ' few' : ''}`}>
        <div className="result-table-box">
          <ResultTable table={table} caption={pair ? 'Run A, run B and the paper, per row' : 'Ours against the paper, per row'} />
          <p className="hint" data-testid="result-compare">{withCode(result.compare)}</p>
          {pair ? <p className="hint">B − A: B’s time minus A’s, in seconds and in % of A’s; each run against the paper at its own count.</p> : null}
        </div>

        <Suspense fallback={<div className="chart-loading">Loading the chart…</div>}>
          <ResultsBarChart
            data={bars} yLabel={METRIC_LABEL[metric]} handle={lab.charts.ref('results')}
            title={pair
              ? `${METRIC_LABEL[metric]} per row, ${pair.labels.a} and ${pair.labels.b} against the paper: ${result.title}`
              : `${METRIC_LABEL[metric]} per row, ours against the paper: ${result.title}`}
          />
        </Suspense>
      </div>

      {kernelTable ? (
        <section className="kernel-change" data-testid="kernel-change" aria-labelledby="kernel-change-title">
          <h3 id="kernel-change-title">The paper’s 4.2 → 4.3 change beside ours</h3>
          <p className="hint">
            {kernelTable.k.genericSide === 'a' ? 'B' : 'A'} ran {kernelTable.k.variant.label} (paper {kernelTable.k.variant.paper});{' '}
            {kernelTable.k.genericSide === 'a' ? 'A' : 'B'} ran GENERIC. Both changes read toward 4.3BSD: the paper’s from its 4.2BSD
            figures to its 4.3BSD ones, ours from the variant to GENERIC.
          </p>
          <ResultTable table={kernelTable.table} testId="kernel-change" caption="The paper’s 4.2BSD and 4.3BSD figures and their change, beside ours from the variant to GENERIC" />
        </section>
      ) : null}

      <ResultActions lab={lab} result={result} pair={pair} table={table}
        title={exportTitle(result, experimentById(result.experiment)?.parameters, pair ? formatConfigDiff(pair.diff) : null)} caption={caption} />
    </section>
  );
}
