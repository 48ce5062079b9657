// The entry of a sweep's worker thread (sweepNode.ts): a worker does not
// inherit the parent's TypeScript loader, so it registers tsx itself, as
// scripts/vaxlab.mjs does, and then runs sweepThread.ts.
import { register } from 'tsx/esm/api';

register();
await import('./sweepThread.ts');
