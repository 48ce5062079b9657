import { useState } from 'react';

import { resultJson, type ExperimentResult } from '../../../../experiments/runner/result';
import type { ResultTable } from '../../../../experiments/runner/resultView';
import { comparisonCsv, type RunComparison } from '../compare';
import type { LabController } from '../controller';
import { chartsSvg, download, svgToPng } from '../exporting';
import { exportName, resultCsv } from '../results';
import { useAtom } from '../state/atom';

/** The result's exports (JSON, CSV, the charts and the table as SVG and PNG) and its permalink. */
export function ResultActions({ lab, result, pair, title, caption, table }: {
  lab: LabController;
  result: ExperimentResult;
  pair: RunComparison | null;
  /** The exported charts' heading, and the lines under it (which run, row, settings, when). */
  title: string;
  caption: string[];
  /** The table shown, exported under the charts. */
  table: ResultTable;
}) {
  const share = useAtom(lab.shown.share);
  const [exportError, setExportError] = useState<string | null>(null);

  const exportCharts = async (kind: 'SVG' | 'PNG') => {
    try {
      const { text, width, height } = chartsSvg(lab.charts.list(), title, caption, table);
      const stem = `${exportName(result)}${pair ? '-compared' : ''}`;
      if (kind === 'SVG') download(`${stem}.svg`, text, 'image/svg+xml');
      else download(`${stem}.png`, await svgToPng(text, width, height), 'image/png');
      setExportError(null);
    } catch (e) {
      setExportError(`${kind} export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  return (
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
        <button type="button" data-testid="export-svg" onClick={() => void exportCharts('SVG')}
          title="The charts and the table in one SVG, with what they show: the experiment, its settings, the counters’ row, when it ran">
          SVG
        </button>
        <button type="button" data-testid="export-png" onClick={() => void exportCharts('PNG')}
          title="The charts and the table in one PNG, with what they show: the experiment, its settings, the counters’ row, when it ran">
          PNG
        </button>
        {exportError ? <span className="field-error">{exportError}</span> : null}
      </div>
      <div className="share">
        {/* Not disabled while the link is made: a disabled button would drop the keyboard focus to the page. */}
        <button type="button" data-testid="permalink-button" onClick={() => void lab.copyPermalink()} aria-disabled={share.busy}
          title={pair
            ? 'A link that shows both runs compared (A and B), in any browser, without running anything'
            : 'A link that shows this result in any browser, without running anything'}>
          {pair ? 'Copy permalink (A and B)' : 'Copy permalink'}
        </button>
        {share.url ? (
          <label className="permalink-field">
            <span className="visually-hidden">Permalink</span>
            <input data-testid="permalink-url" readOnly value={share.url} onFocus={(e) => e.currentTarget.select()} />
          </label>
        ) : null}
        {share.message ? <span className="hint" role="status">{share.message}</span> : null}
      </div>
    </div>
  );
}
