import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from './lab/components/App';
import { LabController } from './lab/controller';
import './style.css';

const lab = new LabController();
lab.start();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App lab={lab} />
  </StrictMode>,
);
