import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from './lab/components/App';
import { browserLab, type LabStats } from './lab/controller';
import './style.css';

declare global {
  interface Window {
    /** For scripts/bench-web.ts (and the browser's console): what the lab is doing, and how fast. */
    __vaxlab?: { stats(): LabStats };
  }
}

const lab = browserLab();
lab.start();
window.__vaxlab = { stats: () => lab.stats() };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App lab={lab} />
  </StrictMode>,
);
