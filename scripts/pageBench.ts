// What the page benchmarks (bench-web.ts, bench-suite.ts, bench-estimate.ts)
// share: the production build served by `vite preview` on a port of their own
// (answered before they open a browser, ended by the caller), Debian's
// Chromium, headless, and a tap on the worker's messages.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, type Browser } from '@playwright/test';

/** Debian's Chromium (or $CHROMIUM), headless, as the e2e tests run it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
    headless: true,
  });
}

/**
 * A script for the page to run before its own (context.addInitScript): every
 * Worker the page makes passes its messages to `onMessage`, a body of plain
 * JavaScript (tsx's helpers do not exist in the page) that sees the message
 * `m`, an object, and `t`, performance.now() (ms since navigation) when it
 * came.  `setup` runs first (it declares what onMessage records), `after`
 * once the Worker is wrapped.
 */
export function workerMessageTap(setup: string, onMessage: string, after = ''): string {
  return `(() => {
  ${setup}
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(url, opts) {
      super(url, opts);
      this.addEventListener('message', (e) => {
        const m = e.data;
        if (!m || typeof m !== 'object') return;
        const t = performance.now();
        ${onMessage}
      });
    }
  };
  ${after}
})();`;
}

/** Starts `vite preview` of `root`'s build (web/dist, or outDir) on 127.0.0.1:`port` and waits (up to 30 s) until
 *  it answers. */
export async function startPreview(root: string, port: number, outDir?: string): Promise<ChildProcess> {
  const base = `http://127.0.0.1:${port}`;
  const args = ['preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort', ...(outDir ? ['--outDir', outDir] : [])];
  const child = spawn(join(root, 'node_modules/.bin/vite'), args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
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

/** Every process below root (its children, theirs, ...), from /proc's parent links, parents before children. */
export function descendantPids(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** Chromium's renderer processes under pid, and their resident sizes (KB). */
export function rendererRss(root: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const c of descendantPids(root)) {
    try {
      if (!readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${c}/status`, 'utf8'));
      if (m) out.set(c, Number(m[1]));
    } catch {
      // gone
    }
  }
  return out;
}
