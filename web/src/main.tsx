// The page's entry: it starts the lab worker at once (earlyWorker.ts: the
// emulator and the disk image load from now on, beside the page's own code),
// loads the rest of the page (app.tsx, its own chunk: asked for first, so
// its download starts as early as before) and hands it the worker.
import { startLabWorker } from './earlyWorker';

const app = import('./app');
const started = startLabWorker(`${import.meta.env.BASE_URL}images/`);
void app.then(({ mount }) => mount(started));
