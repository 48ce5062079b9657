// The production build served by `vite preview` for the page benchmarks
// (bench-web.ts, bench-suite.ts): started on a port of their own, answered
// before they open a browser, ended by the caller.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** Starts `vite preview` of `root`'s build on 127.0.0.1:`port` and waits (up to 30 s) until it answers. */
export async function startPreview(root: string, port: number): Promise<ChildProcess> {
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(join(root, 'node_modules/.bin/vite'), ['preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`vite preview exited ${child.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${base}/`)).ok) return child;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`vite preview did not answer on ${base}: ${stderr}`);
}
