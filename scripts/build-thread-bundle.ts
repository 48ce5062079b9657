// Builds the worker threads' bundle (experiments/runner/threadBundle.ts) when
// its sources changed since it was built; run by scripts/setup.sh and
// scripts/test.sh (npm run build:threads).  Exit 1 with the reason when it
// cannot be built.
//
//   node --import tsx scripts/build-thread-bundle.ts

import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ensureBundle, SWEEP_THREAD_BUNDLE } from '../experiments/runner/threadBundle';

const out = relative(process.cwd(), SWEEP_THREAD_BUNDLE.out);
const r = await ensureBundle(SWEEP_THREAD_BUNDLE);
if (r.bundle === null) {
  process.stderr.write(`build-thread-bundle: ${out}: ${r.error}\n`);
  process.exit(1);
}
if (r.built) {
  console.log(`${out}: built, ${r.built.reason}: ${r.built.inputs} sources, ${(r.built.bytes / 1024).toFixed(0)} KB`);
} else {
  console.log(`${out}: up to date (${relative(process.cwd(), fileURLToPath(r.bundle))} matches its sources)`);
}
