import { useState } from 'react';

import { resultJson, type ExperimentResult } from '../../../../experiments/runner/result';
import { comparisonCsv, type RunComparison } from '../compare';
import type { LabController } from '../controller';
import { chartsSvg, download, svgToPng } from '../exporting';
import { exportName, resultCsv } from '../results';
import { useAtom } from '../state/atom';

/** The result's exports (JSON, CSV, the charts as SVG and PNG) and its permalink. */
export function ResultActions({ lab, result, pair, title }: {
  lab: LabController;
  result: ExperimentResult;
  pair: RunComparison | null;
  /** The exported charts' heading. */
  title: string;
}) {
  const share = useAtom(lab.shown.share);
  const [exportError, setExportError] = useState<string | null>(null);

  const exportCharts = async (kind: 'SVG' | 'PNG') => {
    try {
      const { text, width, height } = chartsSvg(lab.charts.list(), title);
      if (kind === 'SVG') download(`${exportName(result)}.svg`, text, 'image/svg+xml');
      else download(`${exportName(result)}.png`, await svgToPng(text, width, height), 'image/png');
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
        <button type="button" data-testid="export-svg" onClick={() => void exportCharts('SVG')}>Charts as SVG</button>
        <button type="button" data-testid="export-png" onClick={() => void exportCharts('PNG')}>Charts as PNG</button>
        {exportError ? <span className="field-error">{exportError}</span> : null}
      </div>
      <div className="share">
        <button type="button" data-testid="permalink-button" onClick={() => void lab.shown.copyPermalink()} disabled={share.busy}
          title={pair
            ? 'A link to the run shown (B) only: a comparison has no link of its own. Share both runs’ links, or the CSV.'
            : 'A link that shows this result in any browser, without running anything'}>
          {pair ? 'Copy permalink (B)' : 'Copy permalink'}
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
