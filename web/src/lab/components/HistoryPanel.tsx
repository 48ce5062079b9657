import { compareBlocker, kernelLabel, resultKernel, sameRun } from '../compare';
import { experimentById } from '../config';
import type { HistoryEntry } from '../history';
import type { LabController } from '../controller';
import { useAtom } from '../state/atom';
import { resultSummary } from '../results';

/** How an entry's run went, in a few words: its figure, "stopped", "failed", "interrupted: 3 of 29 rows", "running…". */
function entryStatus(h: HistoryEntry, live: boolean): string {
  const r = h.run.result;
  const steps = experimentById(r.experiment)?.steps.length ?? r.rows.length;
  if (h.interrupted) return `${live ? 'running' : 'interrupted'}: ${r.rows.length} of ${steps} row${steps === 1 ? '' : 's'} done`;
  if (r.status === 'ok') return resultSummary(r);
  return r.rows.some((x) => x.failure?.kind === 'stopped') ? 'stopped' : 'failed';
}

export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Brings the Results panel into view, its top under the sticky top bar (style.css, scroll-padding-top): Compare is
 *  pressed down here, the comparison shows up there. */
function showResults(): void {
  const reduce = typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
  document.getElementById('results-title')?.closest('section')?.scrollIntoView({ block: 'start', behavior: reduce ? 'auto' : 'smooth' });
}

/** Finished runs kept in this browser (IndexedDB): open one (no run), compare the shown run with it, or delete it. */
export function HistoryPanel({ lab }: { lab: LabController }) {
  const view = useAtom(lab.shown.view);
  const history = useAtom(lab.history.history);
  const against = useAtom(lab.comparison.against);
  const running = useAtom(lab.history.running);
  const shown = view?.shared ?? null;
  return (
    <section className="panel history" aria-labelledby="history-title">
      <div className="panel-head">
        <h2 id="history-title">History</h2>
        <span className="hint">runs kept in this browser; open one to see it again without running it, or compare the result shown with it</span>
      </div>
      {history.error ? <p className="hint">{history.error}</p> : null}
      {history.note ? <p className="hint" data-testid="history-note">{history.note}</p> : null}
      <ul data-testid="history-list">
        {history.entries.length === 0 ? <li className="muted">No runs yet.</li> : null}
        {history.entries.map((h) => {
          const r = h.run.result;
          const blocker = compareBlocker(shown, h.run);
          // The run the shown one is compared with (A), or the shown one itself (B).
          const isA = !!against && !blocker && sameRun(against.shared, h.run);
          const isB = !!shown && sameRun(shown, h.run);
          const classes = [view?.historyId === h.id ? 'current' : '', isA ? 'compared' : ''].filter(Boolean).join(' ');
          return (
            <li key={h.id} className={classes || undefined}>
              <button type="button" className="history-open" onClick={() => lab.openHistory(h.id)}
                aria-current={view?.historyId === h.id ? 'true' : undefined}>
                <span className="experiment-id">{h.run.experiment}</span>
                <span>VAX-11/{r.machine.cpu}, {r.machine.memoryMB} MB{Object.keys(r.kernelSettings).length ? ', patched kernel' : ''}
                  {(r.machine.spinSeeds ?? 1) > 1 ? `, ${r.machine.spinSeeds} seeds` : ''}
                  {r.kernel ? <>, <span className="history-kernel" data-testid="history-kernel" title={kernelLabel(r)}>
                    kernel {resultKernel(r).name}</span></> : null}
                </span>
                <span className={h.interrupted ? 'failure interrupted' : r.status === 'ok' ? 'num' : 'failure'} data-testid="history-status">
                  {entryStatus(h, running.has(h.id))}
                </span>
                <time dateTime={h.savedAt}>{when(h.savedAt)}</time>
              </button>
              {isA || (isB && against) ? (
                <span className={`run-key ${isA ? 'key-a' : 'key-b'}`} title={isA ? 'A: the run the shown one is compared with' : 'B: the run shown'}>
                  {isA ? 'A' : 'B'}
                </span>
              ) : null}
              <button type="button" className="quiet" data-testid="history-compare" disabled={!!blocker || isA}
                aria-label={`Compare the result shown with the ${h.run.experiment} run of ${when(h.savedAt)}`}
                title={blocker ?? (isA ? 'Compared: this run is A in Results' : 'Compare the result shown (B) with this run (A) in Results')}
                onClick={() => {
                  lab.compareWithHistory(h.id);
                  showResults();
                }}>
                {isA ? 'Compared' : 'Compare'}
              </button>
              <button type="button" className="quiet" aria-label={`Delete the ${h.run.experiment} run of ${when(h.savedAt)}`}
                onClick={() => void lab.history.delete(h.id)}>
                Delete
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
