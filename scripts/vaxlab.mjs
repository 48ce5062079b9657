#!/usr/bin/env node
// `npx vaxlab ...`: runs scripts/vaxlab.ts (TypeScript, through tsx).
import { register } from 'tsx/esm/api';

register();
await import('./vaxlab.ts');
