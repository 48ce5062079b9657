import { lazy, Suspense, useEffect, useState } from 'react';

import type { LabController } from '../controller';
import { useAtom, useAtomSelect } from '../state/atom';
import { CounterPanel } from './CounterPanel';
import { ExperimentPicker } from './ExperimentPicker';
import { FidelityPanel } from './FidelityPanel';
import { Header } from './Header';
import { HistoryPanel } from './HistoryPanel';
import { ResultsPanel } from './ResultsPanel';
import { RunPanel } from './RunPanel';
import { SettingsPanel } from './SettingsPanel';
import { SharedBanner } from './SharedBanner';
import { SweepPanel } from './SweepPanel';
import { SweepResults } from './SweepResults';
import { TerminalPanel } from './TerminalPanel';

const XtermView = lazy(() => import('./XtermView'));
const ProfilePanel = lazy(() => import('./ProfilePanel'));

/**
 * The lab's layout.  Wide: the experiments in a sidebar; the run and the
 * settings on the left, the console and the live counters on the right;
 * then the results and the history.  Narrow: one column, with the run, the
 * console and the counters before the settings.  A shared or history run
 * puts its banner, results and counters first.
 */
export function App({ lab }: { lab: LabController }) {
  const tab = useAtom(lab.ui.tab);
  const view = useAtom(lab.shown.view);
  // Only whether there is a run: the run itself changes many times a second while it goes (its panels follow it).
  const hasRun = useAtomSelect(lab.runs.run, (run) => run !== null);
  const permalinkError = useAtom(lab.shown.permalinkError);
  const machine = useAtom(lab.link.machine);
  const theme = useAtom(lab.ui.theme);
  // The Terminal tab is mounted the first time it is shown, then kept (hidden) so its screen survives.
  const [terminalMounted, setTerminalMounted] = useState(false);
  useEffect(() => {
    if (tab === 'terminal') setTerminalMounted(true);
  }, [tab]);

  // Escape stops a run (not in the Terminal tab, where the guest gets it).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || lab.ui.tab.get() !== 'lab' || !lab.running) return;
      const target = e.target as Element | null;
      if (target?.closest?.('[data-testid="terminal"], select')) return;
      e.preventDefault();
      lab.stop();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [lab]);

  const shared = !!view && view.source !== 'run';
  const counters = <CounterPanel key="counters" lab={lab} />;
  const consolePanel = (
    <section key="console" className="panel console-panel" aria-labelledby="console-title">
      <div className="panel-head">
        <h2 id="console-title">Console</h2>
        <span className="hint">
          {shared && !hasRun ? 'a shared run keeps no console output' : 'the machine’s console during a run (read-only)'}
        </span>
      </div>
      <Suspense fallback={<div className="xterm-host loading" data-testid="console">Loading the console…</div>}>
        <XtermView stream={lab.runs.console} testId="console" label="Experiment console output" theme={theme} fontSize={12}
          onResize={(cols) => {
            lab.runs.console.columns = cols;
          }} />
      </Suspense>
    </section>
  );
  const columns = (
    <div key="columns" className="columns">
      <div className="col col-left">
        <RunPanel lab={lab} />
        <SettingsPanel lab={lab} />
        <SweepPanel lab={lab} />
      </div>
      <div className="col col-right">
        {consolePanel}
        {shared ? null : counters}
      </div>
    </div>
  );
  const results = <ResultsPanel key="results" lab={lab} />;
  // The Profile view, when the shown run was profiled (loaded with its code then).
  const profiled = !!view?.shared.result.rows.some((r) => r.profile !== undefined);
  const profile = profiled ? (
    <Suspense key="profile" fallback={<div className="panel">Loading the profile…</div>}>
      <ProfilePanel lab={lab} />
    </Suspense>
  ) : null;
  const history = <HistoryPanel key="history" lab={lab} />;
  const fidelity = <FidelityPanel key="fidelity" lab={lab} />;
  const sweeps = <SweepResults key="sweeps" lab={lab} />;

  return (
    <>
      <a className="skip-link" href="#main">Skip to the lab</a>
      <Header lab={lab} />
      {permalinkError ? (
        <div className="alert" role="alert" data-testid="permalink-error">
          <p><strong>This link could not be opened.</strong> {permalinkError}</p>
          <button type="button" onClick={() => lab.shown.dismissPermalinkError()}>Dismiss</button>
        </div>
      ) : null}
      {machine.phase === 'error' ? (
        <div className="alert" role="alert">
          <p><strong>The emulator is not available.</strong> {machine.message}</p>
        </div>
      ) : null}
      <main id="main">
        <div id="panel-lab" role="tabpanel" aria-labelledby="tab-lab" hidden={tab !== 'lab'} className="lab-layout">
          <ExperimentPicker lab={lab} />
          <div className={shared ? 'workspace shared' : 'workspace'}>
            {shared
              ? [<SharedBanner key="banner" lab={lab} />, results, profile, counters, columns, sweeps, fidelity, history]
              : [columns, results, profile, sweeps, fidelity, history]}
          </div>
        </div>
        <div id="panel-terminal" role="tabpanel" aria-labelledby="tab-terminal" hidden={tab !== 'terminal'}>
          {terminalMounted ? <TerminalPanel lab={lab} visible={tab === 'terminal'} /> : null}
        </div>
      </main>
      <footer className="footer">
        <p>
          The emulator runs in a Web Worker in this page; all times are the emulated machine’s virtual time, the same on any
          computer. Paper: M. K. McKusick, S. J. Leffler, M. J. Karels, “Measuring and Improving the Performance of Berkeley
          UNIX”, 1985.
        </p>
      </footer>
    </>
  );
}
