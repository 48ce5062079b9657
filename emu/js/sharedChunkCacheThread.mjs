// A worker thread of sharedChunkCache.test.ts: its own wasm emulator opens
// the chunked image the test shares, with the shared chunk cache, reads
// every chunk in the order it is given (all threads at once), and answers
// the SHA-256 of what it read.  A worker does not inherit the parent's
// TypeScript loader, so it registers tsx first (as sweepThread.mjs does).
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { loadVaxNode } = await import('./vaxNode.ts');
const api = await loadVaxNode();
const { file, cache, order, chunkBytes } = workerData;
const image = api.vax780.openSharedChunked(new Uint8Array(file), cache);
const chunks = [];
// Wait for the go, so that every thread reads at once.
parentPort.once('message', () => {
  for (const i of order) chunks[i] = image.read(i * chunkBytes, Math.min(chunkBytes, image.size - i * chunkBytes));
  const hash = createHash('sha256');
  for (const c of chunks) hash.update(c);
  image.dispose();
  parentPort.postMessage(hash.digest('hex'));
});
parentPort.postMessage('ready');
