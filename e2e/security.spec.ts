// The built page's security headers (vite preview serves what any static
// host should: README, "Serving the page"), and that the page works under
// its Content-Security-Policy: the wasm compiles, the worker starts, the
// image loads, nothing is refused.

import { expect, test, waitReady } from './lab';

test('the page is served with a strict CSP and the usual headers, and works under them', async ({ page }) => {
  const refused: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
  });
  const response = await page.goto('/');
  const h = response!.headers();
  expect(h['content-security-policy']).toContain("default-src 'self'");
  expect(h['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(h['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(h['content-security-policy']).not.toContain("'unsafe-eval'");
  expect(h['x-content-type-options']).toBe('nosniff');
  expect(h['x-frame-options']).toBe('DENY');
  expect(h['cross-origin-opener-policy']).toBe('same-origin');
  expect(h['cross-origin-embedder-policy']).toBe('require-corp');
  // Ready: the module worker started, the wasm compiled, the image fetched,
  // gunzipped and checked, all under the policy (the other specs run,
  // export and share under it too).
  await waitReady(page);
  expect(refused, 'nothing refused by the CSP').toEqual([]);
  // The shipped manifest names no path of the build machine.
  const manifest = await page.evaluate(async () => (await fetch('images/43bsd.json')).text());
  expect(manifest).not.toMatch(/"\/(work|home|root|tmp)\//);
});

test('the chunked disk image is sent as it is: typed as bytes, not compressed again', async ({ request }) => {
  const r = await request.get('/images/43bsd.dskz', { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
  expect(r.ok()).toBe(true);
  expect(r.headers()['content-type']).toBe('application/octet-stream');
  expect(r.headers()['content-encoding']).toBeUndefined();
  const body = await r.body();
  expect(body.subarray(0, 8).toString('latin1')).toBe('VAXDSKZ\0');
});
