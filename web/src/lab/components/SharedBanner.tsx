import { useEffect, useRef } from 'react';

import { kernelLabel } from '../compare';
import { adoptShared, experimentById, initialForm } from '../config';
import type { LabController } from '../controller';
import { useAtom, useAtomSelect } from '../state/atom';
import { isRunning } from '../state/runs';
import { machineWords, resultSummary } from '../results';
import { when } from './HistoryPanel';

/**
 * Over the lab when it shows a run that was not made here (a permalink, or
 * an entry of the history): what it is, when and on what machine it ran, its
 * figure, and Run again.  It takes the focus when it opens (a history entry
 * is opened from the bottom of the page).
 */
export function SharedBanner({ lab }: { lab: LabController }) {
  const view = useAtom(lab.shown.view);
  const history = useAtom(lab.history.history);
  const running = useAtomSelect(lab.runs.run, isRunning);
  const ready = useAtom(lab.link.machine).phase === 'ready';
  const against = useAtom(lab.comparison.against);
  const heading = useRef<HTMLHeadingElement>(null);
  const key = view && view.source !== 'run' ? `${view.source}:${view.historyId ?? ''}:${view.shared.result.title}` : null;
  useEffect(() => {
    if (!key) return;
    heading.current?.focus({ preventScroll: true });
    if (window.scrollY > 0) window.scrollTo({ top: 0, behavior: 'smooth' });
  }, [key]);
  if (!view || view.source === 'run') return null;

  const { shared } = view;
  const r = shared.result;
  const entry = view.historyId ? history.entries.find((h) => h.id === view.historyId) : undefined;
  const params = Object.entries(r.parameters).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ');
  const kernel = Object.entries(r.kernelSettings).map(([k, v]) => `${k}=${v}`).join(', ');
  const failed = r.rows.filter((row) => row.status !== 'ok').length;
  // What Run again could not take from it (said before it is pressed, and again after).
  const dropped = adoptShared(shared, initialForm()).dropped;

  return (
    <section className="shared-banner" aria-labelledby="shared-title">
      <div className="shared-text">
        <p className="eyebrow">
          {view.source === 'permalink'
            ? against?.source === 'permalink' ? 'Two runs compared, opened from their link: this is B' : 'A shared run, opened from its link'
            : entry?.interrupted ? 'A run from your history, cut short' : 'A run from your history'}
          {entry ? <>, saved <time dateTime={entry.savedAt}>{when(entry.savedAt)}</time></> : null}
        </p>
        <h2 id="shared-title" ref={heading} tabIndex={-1}>
          <code className="experiment-chip">{shared.experiment}</code> {r.title}
        </h2>
        <p className="shared-machine" data-testid="shared-machine">
          {machineWords(r.machine)}{params ? `; ${params}` : ''}; kernel {kernelLabel(r)}; kernel variables {kernel || 'as distributed'}
        </p>
        <p className="shared-figure">
          {entry?.interrupted
            ? `Cut short: ${r.rows.length} of ${experimentById(r.experiment)?.steps.length ?? r.rows.length} rows done`
            : r.status === 'ok' || failed < r.rows.length ? `Ours: ${resultSummary(r)}` : 'The run failed.'}
          {failed > 0 ? <span className="failure"> ({failed} row{failed === 1 ? '' : 's'} failed)</span> : null}
        </p>
        <p className="hint">
          Shown as it was recorded: nothing was run in this browser. Run again runs it here with the same settings
          {shared.ranAt ? ` (it ran ${when(shared.ranAt)})` : ''}.
          {shared.reduction ? ` ${shared.reduction.note}` : ''}
        </p>
        {dropped.length ? (
          <p className="hint failure" data-testid="run-again-dropped">
            Run again here would leave out what this lab cannot set: {dropped.join('; ')}.
          </p>
        ) : null}
      </div>
      <div className="shared-actions">
        <button type="button" className="primary" data-testid="run-again-button" onClick={() => lab.runAgain()}
          disabled={running || !ready}
          title={running ? 'An experiment is running' : !ready ? 'The machine is not ready yet' : 'Run it here with the same settings'}>
          Run again
        </button>
        <button type="button" className="quiet" onClick={() => lab.closeView()}>Close</button>
      </div>
    </section>
  );
}
