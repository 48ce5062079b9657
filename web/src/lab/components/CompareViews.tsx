import { changeSentence, formatSeconds } from '../../../../experiments/runner/resultView';
import type { SharedRun } from '../permalink';
import {
  candidateFor, configLine, formatConfigDiff, originText, shortFigure, type CompareCandidate, type RunComparison, type RunRef,
} from '../compare';
import type { Comparison } from '../state/comparison';
import { when } from './HistoryPanel';

/** "Compare with…": the runs the shown one can be compared with, and why not when the chosen one cannot. */
export function CompareBar({ comparison, candidates, against, pair, blocker, onSwap }: {
  comparison: Comparison;
  candidates: CompareCandidate[];
  against: RunRef | null;
  pair: RunComparison | null;
  blocker: string | null;
  /** A and B change places. */
  onSwap: () => void;
}) {
  const selected = pair ? candidateFor(candidates, against) : undefined;
  const sessionCandidates = candidates.filter((c) => c.group === 'session');
  const historyCandidates = candidates.filter((c) => c.group === 'history');
  const linkCandidates = candidates.filter((c) => c.group === 'link');
  const pick = (key: string) => {
    const c = candidates.find((x) => x.key === key);
    if (c) comparison.compareWith(c.ref);
    else comparison.clear();
  };
  return (
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
        {linkCandidates.length ? (
          <optgroup label="Shared runs opened here">
            {linkCandidates.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
          </optgroup>
        ) : null}
        {historyCandidates.length ? (
          <optgroup label="History">
            {historyCandidates.map((c) => <option key={c.key} value={c.key}>{c.label}</option>)}
          </optgroup>
        ) : null}
      </select>
      {pair ? (
        <button type="button" data-testid="compare-swap" onClick={onSwap} title="Show A as the run, compared with B: the two change places">
          Swap A and B
        </button>
      ) : null}
      {against ? (
        <button type="button" data-testid="compare-clear" onClick={() => comparison.clear()}>Clear comparison</button>
      ) : null}
      {against && blocker ? <span className="hint" data-testid="compare-blocked">Not compared: {blocker}</span> : null}
    </div>
  );
}

/** Two runs compared: what differs in their settings, what changed most, and where each comes from. */
export function CompareSummary({ pair, against, shownRef, hostSeconds }: {
  pair: RunComparison;
  against: RunRef | null;
  /** The shown run (B) as a reference, null for a run of this page. */
  shownRef: RunRef | null;
  hostSeconds: number | undefined;
}) {
  return (
    <div className="compare-summary" data-testid="compare-summary">
      <p className="compare-diff" data-testid="compare-diff">
        <span className="compare-diff-head">{pair.diff.length ? 'Differs in' : 'Settings'}</span> {formatConfigDiff(pair.diff)}
      </p>
      <p className="compare-change" data-testid="compare-change">{changeSentence(pair)}</p>
      <ul className="compare-runs">
        <li>
          <span className="key-swatch key-a" aria-hidden="true" />
          <strong>A</strong>
          <span>
            {originText(pair.a === against?.shared ? against : { shared: pair.a, source: 'history' }, when)}
            {against?.source === 'session' ? '' : ranAt(pair.a)}: {configLine(pair.a)}; {shortFigure(pair.a.result)}
          </span>
        </li>
        <li>
          <span className="key-swatch key-b" aria-hidden="true" />
          <strong>B</strong>
          <span>
            {shownRef ? originText(shownRef, when) : 'this page’s last run'}{shownRef?.source === 'session' ? '' : ranAt(pair.b)}
            {hostSeconds !== undefined ? ` (${formatSeconds(hostSeconds)} s of host time)` : ''}: {configLine(pair.b)}; {shortFigure(pair.b.result)}
          </span>
        </li>
      </ul>
    </div>
  );
}

/** ", ran 21/11/2026, 12:00:00" when the run says when it ran. */
function ranAt(run: SharedRun): string {
  return run.ranAt ? `, ran ${when(run.ranAt)}` : '';
}
