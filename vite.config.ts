import { fileURLToPath } from 'node:url';
import { defineConfig, type PluginOption } from 'vite';
import react from '@vitejs/plugin-react';

const repoRoot = fileURLToPath(new URL('.', import.meta.url));

// Cross-origin isolation (SharedArrayBuffer, Atomics) for dev and preview.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

// What the built page needs and nothing more (README, "Serving the page"):
// its own scripts and the WebAssembly they compile ('wasm-unsafe-eval'), its
// module workers, fetches of its own images, inline styles (React's style
// attributes, xterm.js), data: and blob: images for the PNG export; no
// plugins, no framing, no other origin.  The dev server's hot reload injects
// inline scripts, so it gets only the isolation headers.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS = {
  ...isolationHeaders,
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** The chunked disk image (.dskz) as what it is, bytes already compressed: without a type the preview server
 *  takes it for text and gzips its 4.5 MB again on every request (hundreds of ms of its CPU, and the page's to
 *  undo it) before the page can start; so typed, it goes as it is (and the page checks its SHA-256). */
const chunkedImageType: PluginOption = {
  name: 'vaxlab-chunked-image-type',
  configurePreviewServer(server) {
    server.middlewares.use((req, res, next) => {
      if (/\.dskz(\?|$)/.test(req.url ?? '')) res.setHeader('Content-Type', 'application/octet-stream');
      next();
    });
  },
  configureServer(server) {
    server.middlewares.use((req, res, next) => {
      if (/\.dskz(\?|$)/.test(req.url ?? '')) res.setHeader('Content-Type', 'application/octet-stream');
      next();
    });
  },
};

export default defineConfig({
  root: 'web',
  plugins: [react(), chunkedImageType],
  build: {
    outDir: 'dist', // relative to root: web/dist
    emptyOutDir: true,
    target: 'es2022',
  },
  server: {
    headers: isolationHeaders,
    // The worker imports the Emscripten output from emu/build/wasm/.
    fs: { allow: [repoRoot] },
  },
  preview: {
    headers: SECURITY_HEADERS,
  },
  worker: {
    format: 'es',
  },
});
