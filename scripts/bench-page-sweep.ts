// A sweep in the page on several workers (npm run bench:page-sweep): the
// sweep's host time as the page reports it, how the pool workers' machines
// started (the sweep panel's sweep-machines, when the build has it), and
// the page's renderer's peak RSS while it runs (the pool's Web Workers live
// in it; sampled every 100 ms), in headless Debian Chromium against the
// production build, for one or more checkouts in turn, round after round
// (A B A B), so that a change in the machine's load hits both alike:
//
//   node --import tsx scripts/bench-page-sweep.ts [--rounds N] [--jobs N] [--setting divisor] [--values 20,40] [ROOT ...]
//
// ROOT: a checkout whose web/dist (and images) to serve; default this one.
// The sweep: table2 over --values of its divisor (29 units a point), or of
// another --setting (hz: each point's machine boots, reading its chunks of
// the pack) with the divisor at 40, on --jobs workers (default 2).

import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { launchChromium, rendererRss, startPreview } from './pageBench';

const args = process.argv.slice(2);
let rounds = 2;
let jobs = 2;
let values = '20,40';
let setting = 'divisor';
const roots: string[] = [];
while (args.length > 0) {
  const a = args.shift()!;
  if (a === '--rounds') rounds = Number(args.shift());
  else if (a === '--jobs') jobs = Number(args.shift());
  else if (a === '--values') values = args.shift()!;
  else if (a === '--setting') setting = args.shift()!;
  else roots.push(a);
}
if (roots.length === 0) roots.push(fileURLToPath(new URL('..', import.meta.url)));

const load = () => execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' ');
console.log(`table2${setting !== 'divisor' ? ' (divisor 40)' : ''} swept over ${setting}=${values} on ${jobs} workers, ${new Date().toISOString().slice(0, 16)}Z, load ${load()}`);

const browser = await launchChromium();
try {
  for (let round = 1; round <= rounds; round++) {
    for (const [n, root] of roots.entries()) {
      const port = 4432 + n; // beside E2E_PORT 4431
      const server = await startPreview(root, port);
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        await page.goto(`http://127.0.0.1:${port}/`);
        await page.getByTestId('machine-status').filter({ hasText: /ready/i }).waitFor({ timeout: 60_000 });
        await page.getByTestId('experiment-table2').click();
        if (setting !== 'divisor') await page.getByTestId('param-divisor').fill('40');
        await page.getByTestId('sweep-setting-0').selectOption(setting);
        await page.getByTestId('sweep-values-0').fill(values);
        await page.getByTestId('sweep-jobs').fill(String(jobs));
        let peakKB = 0;
        const sample = setInterval(() => {
          for (const kb of rendererRss(process.pid).values()) peakKB = Math.max(peakKB, kb);
        }, 100);
        const t0 = performance.now();
        await page.getByTestId('sweep-run').click();
        const status = page.getByTestId('sweep-status');
        await status.filter({ hasText: /^(Finished|Stopped)/ }).waitFor({ timeout: 600_000 });
        const wall = (performance.now() - t0) / 1000;
        clearInterval(sample);
        const said = (await status.textContent()) ?? '';
        const machines = page.getByTestId('sweep-machines');
        const starts = (await machines.count()) > 0 ? (await machines.textContent()) ?? '' : '(this build does not say)';
        console.log(`round ${round} ${root}: ${wall.toFixed(1)} s from Run to done (${said.trim()}); renderer peak RSS ` +
          `${(peakKB / 1024).toFixed(0)} MB; load ${load()}; ${starts}`);
      } finally {
        await context.close();
        server.kill();
      }
    }
  }
} finally {
  await browser.close();
}
