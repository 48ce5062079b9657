#!/usr/bin/env bash
# npm start: install/build everything, print a report, then serve the page.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh

echo
echo "===== vaxlab report"
printf '  %-12s %s\n' node "$(node -v)" npm "$(npm -v 2>/dev/null)" \
  gcc "$(gcc -dumpfullversion 2>/dev/null)" \
  emcc "$(NODE_PATH=/usr/share/nodejs emcc --version 2>/dev/null | head -n1 | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1)" \
  chromium "$( (chromium --version 2>/dev/null || echo 'not installed') | head -n1)"
# The files themselves (emu/build/vax780 is a link to native/vax780); the page fetches the chunked image, .dskz.
for f in emu/build/native/libvax.a emu/build/vax780 emu/build/wasm/vax.mjs emu/build/wasm/vax.wasm web/public/images/43bsd.dsk.gz web/public/images/43bsd.dskz; do
  if [ -f "$f" ]; then printf '  %-40s %s bytes\n' "$f" "$(stat -L -c %s "$f")"; else printf '  %-40s MISSING\n' "$f"; fi
done
node --import tsx scripts/report.ts || echo "  (the wasm emulator did not run; see above)"

echo
echo "===== web build (vite build)"
node_modules/.bin/vite build --logLevel warn
echo "  web/dist built"

echo
echo "===== starting the dev server (Ctrl-C to stop); open the URL below"
exec node_modules/.bin/vite --port "${PORT:-5173}" ${HOST:+--host "$HOST"}
