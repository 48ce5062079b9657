import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const repoRoot = fileURLToPath(new URL('.', import.meta.url));

// Cross-origin isolation (SharedArrayBuffer, Atomics) for dev and preview.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  root: 'web',
  plugins: [react()],
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
    headers: isolationHeaders,
  },
  worker: {
    format: 'es',
  },
});
