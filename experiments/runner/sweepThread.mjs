// The entry of a sweep's worker thread through tsx (sweepNode.ts), when it
// does not start from the bundle (threadBundle.ts: VAXLAB_THREAD_LOADER=tsx,
// or a bundle that could not be built): a worker does not inherit the
// parent's TypeScript loader, so it registers tsx itself, as
// scripts/vaxlab.mjs does, and then runs sweepThread.ts.
import { register } from 'tsx/esm/api';

register();
await import('./sweepThread.ts');
