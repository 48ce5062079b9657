import { lazy, Suspense, useEffect, useState } from 'react';

import type { LabController } from '../controller';
import { useStore } from '../store';
import { ConfigurePanel } from './ConfigurePanel';
import { CounterPanel } from './CounterPanel';
import { ExperimentPicker } from './ExperimentPicker';
import { Header } from './Header';
import { ResultsPanel } from './ResultsPanel';
import { TerminalPanel } from './TerminalPanel';

const XtermView = lazy(() => import('./XtermView'));

export function App({ lab }: { lab: LabController }) {
  const state = useStore(lab.store);
  // The Terminal tab is mounted the first time it is shown, then kept (hidden) so its screen survives.
  const [terminalMounted, setTerminalMounted] = useState(false);
  useEffect(() => {
    if (state.tab === 'terminal') setTerminalMounted(true);
  }, [state.tab]);

  return (
    <>
      <a className="skip-link" href="#main">Skip to the lab</a>
      <Header state={state} lab={lab} />
      {state.permalinkError ? (
        <div className="alert" role="alert" data-testid="permalink-error">
          <p><strong>This link could not be opened.</strong> {state.permalinkError}</p>
          <button type="button" onClick={() => lab.dismissPermalinkError()}>Dismiss</button>
        </div>
      ) : null}
      {state.machine.phase === 'error' ? (
        <div className="alert" role="alert">
          <p><strong>The emulator is not available.</strong> {state.machine.message}</p>
        </div>
      ) : null}
      <main id="main">
        <div id="panel-lab" role="tabpanel" aria-labelledby="tab-lab" hidden={state.tab !== 'lab'} className="lab-layout">
          <ExperimentPicker state={state} lab={lab} />
          <div className="workspace">
            <div className="top-row">
              <ConfigurePanel state={state} lab={lab} />
              <section className="panel console-panel" aria-labelledby="console-title">
                <div className="panel-head">
                  <h2 id="console-title">Console</h2>
                  <span className="hint">the machine’s console while the experiment runs (read-only)</span>
                </div>
                <Suspense fallback={<div className="xterm-host loading" data-testid="console">Loading the console…</div>}>
                  <XtermView stream={lab.console} testId="console" label="Experiment console output" theme={state.theme} fontSize={12} />
                </Suspense>
              </section>
            </div>
            <CounterPanel state={state} lab={lab} />
            <ResultsPanel state={state} lab={lab} />
          </div>
        </div>
        <div id="panel-terminal" role="tabpanel" aria-labelledby="tab-terminal" hidden={state.tab !== 'terminal'}>
          {terminalMounted ? <TerminalPanel state={state} lab={lab} visible={state.tab === 'terminal'} /> : null}
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
