import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

import type { WorkerMessage } from './emulator/vax.worker';
import './style.css';

type State = WorkerMessage | { type: 'starting' };

function EmulatorStatus() {
  const [state, setState] = useState<State>({ type: 'starting' });

  useEffect(() => {
    const worker = new Worker(new URL('./emulator/vax.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<WorkerMessage>) => setState(e.data);
    worker.onerror = (e: ErrorEvent) => setState({ type: 'error', message: e.message || 'worker failed to start' });
    return () => worker.terminate();
  }, []);

  if (state.type === 'starting' || state.type === 'loading') {
    return <p data-testid="emu-status">Loading the emulator (WebAssembly) in a worker…</p>;
  }
  if (state.type === 'error') {
    return (
      <p data-testid="emu-status" className="error">
        The emulator did not load or run: {state.message}
      </p>
    );
  }
  const r = state.result;
  const rows: [string, string][] = [
    ['Physical memory', `${r.memoryBytes} bytes (${(r.memoryBytes / 1048576).toFixed(0)} MB)`],
    ['Program written and read back', r.readBackOk ? `yes (${r.programBytes} bytes at 0x200)` : 'NO: mismatch'],
    ['Stop reason', r.stopDetail ? `${r.stopReason} — ${r.stopDetail}` : r.stopReason],
    ['Instructions executed', r.instructions],
    ['R0', `${r.r0} (the program moves ${r.expectedR0} into it)`],
    ['PC', r.pc],
    ['PSL', r.psl],
    ['State digest', r.digest],
    ['Load / run time', `${state.loadMs.toFixed(1)} ms / ${state.runMs.toFixed(2)} ms`],
  ];
  return (
    <table data-testid="emu-status">
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th>{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function App() {
  return (
    <main>
      <h1>vaxlab</h1>
      <p>
        A VAX-11/780 emulator running in your browser. The lab is under construction: for now this page only
        checks the plumbing. A Web Worker loads the emulator, creates a machine, writes{' '}
        <code>MOVL #^X12345678, R0 ; HALT</code> at physical address 0x200, runs it from there and reports what
        happened.
      </p>
      <h2>Emulator status</h2>
      <EmulatorStatus />
      <p className="note">
        Cross-origin isolated: {String(globalThis.crossOriginIsolated ?? false)}
      </p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
