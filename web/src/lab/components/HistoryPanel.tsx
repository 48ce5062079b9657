import type { LabController, LabState } from '../controller';
import { resultSummary } from '../results';

export function when(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Finished runs kept in this browser (IndexedDB): open one (no run), or delete it. */
export function HistoryPanel({ state, lab }: { state: LabState; lab: LabController }) {
  const view = state.view;
  return (
    <section className="panel history" aria-labelledby="history-title">
      <div className="panel-head">
        <h2 id="history-title">History</h2>
        <span className="hint">runs kept in this browser; open one to see it again without running it</span>
      </div>
      {state.history.error ? <p className="hint">{state.history.error}</p> : null}
      <ul data-testid="history-list">
        {state.history.entries.length === 0 ? <li className="muted">No runs yet.</li> : null}
        {state.history.entries.map((h) => {
          const r = h.run.result;
          return (
            <li key={h.id} className={view?.historyId === h.id ? 'current' : ''}>
              <button type="button" className="history-open" onClick={() => lab.openHistory(h.id)}
                aria-current={view?.historyId === h.id ? 'true' : undefined}>
                <span className="experiment-id">{h.run.experiment}</span>
                <span>VAX-11/{r.machine.cpu}, {r.machine.memoryMB} MB{Object.keys(r.kernelSettings).length ? ', patched kernel' : ''}</span>
                <span className={r.status === 'ok' ? 'num' : 'failure'}>{r.status === 'ok' ? resultSummary(r) : 'failed'}</span>
                <time dateTime={h.savedAt}>{when(h.savedAt)}</time>
              </button>
              <button type="button" className="quiet" aria-label={`Delete the ${h.run.experiment} run of ${when(h.savedAt)}`}
                onClick={() => void lab.deleteHistory(h.id)}>
                Delete
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
