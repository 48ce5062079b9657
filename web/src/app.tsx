import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import type { EarlyWorker } from './earlyWorker';
import { App } from './lab/components/App';
import { browserLab, type LabStats } from './lab/controller';
import './style.css';

declare global {
  interface Window {
    /** For scripts/bench-web.ts and the e2e tests (and the browser's console): what the lab is doing, and how
     *  fast; and everything the experiment console or the terminal was sent (the last 512 KB, escapes and all). */
    __vaxlab?: { stats(): LabStats; text(which: 'console' | 'terminal'): string };
  }
}

/** The page, over the worker main.tsx started (or the reason it could not). */
export function mount(started: { early: EarlyWorker | null; error: string | null }): void {
  const lab = browserLab(started);
  lab.start();
  window.__vaxlab = {
    stats: () => lab.stats(),
    text: (which) => (which === 'terminal' ? lab.terminal.output : lab.runs.console).contents,
  };

  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App lab={lab} />
    </StrictMode>,
  );
}
