// Playwright configuration for the end-to-end tests (e2e/README.md):
// Debian's Chromium, headless, against the production build served by
// `vite preview` (which sends the COOP/COEP headers of vite.config.ts).
//
//   npm run test:e2e                  builds web/dist, then runs the tests
//   E2E_NO_BUILD=1 npm run test:e2e   uses the web/dist already there (scripts/test.sh)

import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
// Not vite's default 4173, so a preview someone else left running is not tested by mistake.
const port = Number(process.env.E2E_PORT ?? 4179);
// Two runs at once (another port) must not clean each other's output.
const suffix = process.env.E2E_PORT ? `-${port}` : '';
const vite = 'node_modules/.bin/vite';
const preview = `${vite} preview --host 127.0.0.1 --port ${port} --strictPort`;

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: `../test-results/e2e${suffix}`,
  // One browser at a time: every page runs the emulator in a worker, and the
  // machines here have 2 cores.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 120_000,
  // A guard against a hung suite, not a speed target: the suite takes 5-8 min on a quiet 2-core machine, and
  // 12 min was overrun (with every test passing) at load averages of 6-13 from other jobs on the same cores.
  globalTimeout: 20 * 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list'], ['html', { outputFolder: `../playwright-report${suffix}`, open: 'never' }]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: process.env.E2E_NO_BUILD ? preview : `${vite} build --logLevel warn && ${preview}`,
    cwd: repoRoot,
    url: `http://127.0.0.1:${port}/`,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
