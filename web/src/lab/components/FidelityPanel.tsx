import { useMemo } from 'react';

import { kernelByName } from '../../../../experiments/kernels/variants';
import { PAGING_KERNEL_VARIANT, PAPER_KERNEL_VARIANT } from '../../../../experiments/runner/experiments';
import { FREE_MEMORY_PROBE_KB } from '../../../../experiments/runner/fidelity';
import { kernelLabel } from '../compare';
import { experimentById, MAX_PAGE_SEEDS } from '../config';
import type { LabController } from '../controller';
import { fidelityReport, type FidelityCandidate, type FidelityPart, type ProbeSweepCandidate } from '../fidelityView';
import { useAtom, useAtomSelect } from '../state/atom';
import { isRunning } from '../state/runs';

/** How many seeds the figures stand on: a run of one seed is one draw of the disks' phase and the clock's, which the
 *  README's figures (3 and 5 seeds) are not (the Seeds setting). */
function seedsWords(seeds: number): string {
  return seeds === 1 ? 'one seed (Seeds sets more)' : `each row the median of ${seeds} seeds`;
}
import { when } from './HistoryPanel';
import { ResultTable } from './ResultTable';

/** Table 2's default kernel in words. */
const PAPER_KERNEL_LABEL = `“${kernelByName(PAPER_KERNEL_VARIANT)?.label ?? PAPER_KERNEL_VARIANT}”`;
/** Tables 7 and 8's default kernel in words (like-4.2: 4.3BSD, never called 4.2BSD). */
const PAGING_KERNEL_LABEL = `“${kernelByName(PAGING_KERNEL_VARIANT)?.label ?? PAGING_KERNEL_VARIANT}”`;

const TITLES: Record<FidelityPart['key'], string> = {
  table2: 'Table 2: the micro-operations',
  table7: 'Table 7: paging',
  table8: 'Table 8: page fault service time',
  namecache: 'Name cache (§4.1.1): ls -l',
};

/**
 * "How close are we?": `npx vaxlab fidelity` in the page, from the runs it
 * has (this page's, links', the history's), each table from the newest run
 * made as the paper ran it (fidelityView.ts decides; this only renders).
 * A table with no such run offers to run its experiment at the paper's settings.
 */
export function FidelityPanel({ lab }: { lab: LabController }) {
  const sessionRuns = useAtom(lab.shown.sessionRuns);
  const linkRuns = useAtom(lab.shown.linkRuns);
  const history = useAtom(lab.history.history);
  const sweepHistory = useAtom(lab.sweeps.history);
  const shownSweep = useAtom(lab.sweeps.shown);
  const running = useAtomSelect(lab.runs.run, isRunning) || lab.running;
  const ready = useAtom(lab.link.machine).phase === 'ready';
  const parts = useMemo(() => {
    const candidates: FidelityCandidate[] = [
      ...sessionRuns.map((s) => ({ shared: s.shared, at: s.at, origin: `this page’s run of ${when(s.at)}` })),
      ...linkRuns.map((s) => ({ shared: s.shared, at: s.shared.ranAt ?? s.at, origin: 'a shared run (from its link)' })),
      ...history.entries.filter((h) => !h.interrupted).map((h) => ({ shared: h.run, at: h.savedAt, origin: `your history, saved ${when(h.savedAt)}` })),
    ];
    // Table 7's free-memory probes from a kept sweep: the one shown (a file's or a link's too), then the history's.
    const sweeps: ProbeSweepCandidate[] = [
      ...(shownSweep ? [{ result: shownSweep.result, origin: shownSweep.source === 'history' || shownSweep.source === 'run' ? 'your sweeps' : `the sweep shown (from a ${shownSweep.source})` }] : []),
      ...sweepHistory.entries.map((e) => ({ result: e.result, origin: `your sweeps, saved ${when(e.savedAt)}` })),
    ];
    return fidelityReport(candidates, sweeps);
  }, [sessionRuns, linkRuns, history.entries, sweepHistory.entries, shownSweep]);

  return (
    <section className="panel fidelity" aria-labelledby="fidelity-title" data-testid="fidelity-panel">
      <div className="panel-head">
        <h2 id="fidelity-title">How close are we?</h2>
        <span className="hint">ours against the paper, table by table, as <code>npx vaxlab fidelity</code> prints it</span>
      </div>
      <div className="hint fidelity-how">
        <p>
          Each table is read from the newest run made as the paper ran it: its machine, and the kernel closest to the
          paper’s column that the table is compared with.
        </p>
        <ul>
          <li>Table 2, against the paper’s 4.3BSD column: {PAPER_KERNEL_LABEL}, the paper’s kernel as the CSRG
            history dates it ({PAPER_KERNEL_VARIANT}); the run may be divided.</li>
          <li>Tables 7 and 8, against the paper’s 4.2BSD column: {PAGING_KERNEL_LABEL} ({PAGING_KERNEL_VARIANT}).</li>
          <li>The name cache: the distributed /vmunix, with the experiment’s own counts.</li>
        </ul>
        <p>
          The median and largest |error| count the held-out rows only; the rows the timing model was fitted on
          (calibration) are shown apart.
        </p>
      </div>
      {parts.map((p) => (
        <div className="fidelity-part" key={p.key} data-testid={`fidelity-part-${p.key}`}>
          <h3>{TITLES[p.key]}</h3>
          {p.source && p.table && p.view ? (
            <>
              <p className="hint" data-testid={`fidelity-source-${p.key}`}>
                From {p.source.origin}{p.divisor ? ` (counts divided by ${p.divisor}, figures scaled to the paper’s)` : ''}: {p.table.heading};
                kernel: <span data-testid={`fidelity-kernel-${p.key}`}>{kernelLabel(p.source.shared.result)}</span>;{' '}
                {seedsWords(p.source.shared.result.machine.spinSeeds ?? 1)}.
              </p>
              <ul className="fidelity-summary" data-testid={`fidelity-summary-${p.key}`}>
                {p.summary.length ? p.summary.map((s) => <li key={s}>{s}</li>) : <li>No held-out row to sum up.</li>}
              </ul>
              <details className="fidelity-rows">
                <summary>Rows ({p.table.rows.length})</summary>
                <ResultTable table={p.view} testId={`fidelity-${p.key}`} caption={`${TITLES[p.key]}: ours against the paper`} />
              </details>
            </>
          ) : (
            <p className="fidelity-missing" data-testid={`fidelity-missing-${p.key}`}>
              No run of <code>{p.experiment}</code> as the paper ran it here yet{p.key === 'table8' ? ' (Table 8 is read from Table 7’s run)' : ''}.{' '}
              {p.key === 'table8' ? null : (
                <button type="button" className="quiet small" data-testid={`fidelity-run-${p.key}`} disabled={running || !ready}
                  onClick={() => lab.runAsThePaperRan(p.experiment)}>
                  Run {p.experiment} as the paper ran it ({experimentById(p.experiment)?.steps.length ?? 0} steps)
                </button>
              )}
            </p>
          )}
          {p.freeMemorySweep ? (
            <p className="hint" data-testid="fidelity-free-memory">
              A paging row where the walk just stops fitting in memory moves with free memory more than with its seeds:
              see how far for {p.freeMemorySweep.experiment}, the row furthest from the paper, with the buffer cache
              {' '}{FREE_MEMORY_PROBE_KB} KB either side of the kernel’s own.{' '}
              <button type="button" className="quiet small" data-testid="fidelity-sweep-free-memory" disabled={running || !ready}
                onClick={() => lab.sweepSettingOf(p.freeMemorySweep!.experiment, p.freeMemorySweep!.setting, p.freeMemorySweep!.values,
                  p.freeMemorySweep!.measure)}>
                Sweep {p.freeMemorySweep.experiment} over bufpages {p.freeMemorySweep.values.join(', ')} KB
              </button>
            </p>
          ) : null}
          {p.probesFrom ? (
            <p className="hint" data-testid="fidelity-probes-source">
              The column “{FREE_MEMORY_PROBE_KB} KB less / more free” is from {p.probesFrom}: the same run with the buffer
              cache {FREE_MEMORY_PROBE_KB} KB larger and smaller, as <code>npx vaxlab fidelity</code> probes every row.
            </p>
          ) : p.probeSweep ? (
            <p className="hint" data-testid="fidelity-probe-offer">
              To see how far free memory moves every counted row, run {p.probeSweep.experiment} twice more with the buffer
              cache {FREE_MEMORY_PROBE_KB} KB smaller and larger than the kernel’s own
              {p.probeSweep.seeds > 1 ? `, with the run’s seeds 1..${p.probeSweep.seeds}` : ''}
              {p.probeSweep.notHere ? (
                <>: the page runs at most {MAX_PAGE_SEEDS} seeds, so make the sweep with
                  {' '}<code>{p.probeSweep.notHere.command}</code> and open the file under Sweep results.</>
              ) : <>{' '}
                <button type="button" className="quiet small" data-testid="fidelity-probe-free-memory" disabled={running || !ready}
                  onClick={() => lab.sweepSettingOf(p.probeSweep!.experiment, p.probeSweep!.setting, p.probeSweep!.values, p.probeSweep!.measure,
                    p.probeSweep!.seeds)}>
                  Sweep {p.probeSweep.experiment} over bufpages {p.probeSweep.values.join(', ')} KB ({p.probeSweep.steps} steps
                  {p.probeSweep.seeds > 1 ? `, ${p.probeSweep.seeds} seeds each` : ''})
                </button></>}
            </p>
          ) : null}
          {p.passedOver.length ? (
            <p className="hint" data-testid={`fidelity-passed-${p.key}`}>Passed over (not as the paper ran it): {p.passedOver.join('; ')}.</p>
          ) : null}
        </div>
      ))}
    </section>
  );
}
