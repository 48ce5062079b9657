#!/usr/bin/env bash
# Everything that must pass before a change lands.  Runs all steps (unless
# setup fails), then prints a summary; exits non-zero if any step failed.
#
#   1. setup       scripts/setup.sh --no-build: missing packages, npm ci
#   2. build       make -C emu native wasm; the worker threads' bundle (esbuild,
#                  cached); the 4.3BSD image (installer, cached); make again,
#                  profile-guided, trained on that image (cached)
#   3. emu         make -C emu test: C tests, native and ASan/UBSan builds
#   4. node        node --test (TypeScript via tsx): every *.test.{ts,mjs} under
#                  web/src, emu/js, emu/wasm, emu/tests, installer, experiments and scripts;
#                  then the boot (RP06 and RA81), EVKAA and supervisor (EVKAE)
#                  tests on the ASan/UBSan machine
#   5. typecheck   tsc --noEmit
#   6. web build   vite build
#   7. e2e         Playwright + Debian's chromium against that build (vite
#                  preview): e2e/*.spec.ts; skipped, saying why, without the
#                  4.3BSD image (the page cannot boot without it)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

names=()
results=()
times=()
failed=0
jobs=$(nproc 2>/dev/null || echo 4)

run_step() { # name command...
  local name=$1; shift
  printf '\n===== %s: %s\n' "$name" "$*"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  names+=("$name")
  times+=("$((SECONDS - t0))s")
  if [ $rc -eq 0 ]; then results+=("PASS"); else results+=("FAIL (exit $rc)"); failed=1; fi
  return $rc
}
skip_step() { names+=("$1"); results+=("SKIPPED"); times+=("-"); }

node_tests() {
  local files=()
  while IFS= read -r f; do files+=("$f"); done < <(
    find web/src emu/js emu/wasm emu/tests installer experiments scripts \( -name node_modules -o -name dist \) -prune -o \
      -type f \( -name '*.test.ts' -o -name '*.test.mjs' \) -print 2>/dev/null | sort)
  if [ ${#files[@]} -eq 0 ]; then echo "no Node test files found"; return 0; fi
  printf '  %s\n' "${files[@]}"
  node --import tsx --test --test-reporter=spec "${files[@]}"
}

if run_step "setup (packages, npm ci)" bash scripts/setup.sh --no-build; then
  run_step "build: make -C emu native wasm" make -C emu -j"$jobs" native wasm
  # The runner's worker threads as plain JavaScript (no tsx per thread);
  # rebuilt only when its sources changed.
  run_step "build: worker threads' bundle" node --import tsx scripts/build-thread-bundle.ts
  # The lab's 4.3BSD image (the experiment runner's tests need its
  # programs); cached by the inputs' hashes, so usually instant.
  dist="${VAXLAB_DIST:-../shared/bsd/4.3BSD}"
  if [ -f "$dist/SHA256SUMS" ]; then
    run_step "build: the 4.3BSD image (installer)" node --import tsx installer/install.ts
    # The profile-guided build trains on that image (emu/Makefile), so on a
    # fresh tree the first make was plain and this one trains and
    # recompiles the library and the module; otherwise it does nothing.
    run_step "build: profile-guided make" make -C emu -j"$jobs" native wasm
  else
    echo "no 4.3BSD distribution in $dist: the image is not built; tests that need it say they are skipped"
    skip_step "build: the 4.3BSD image (installer)"
    skip_step "build: profile-guided make (no image)"
  fi
  run_step "emu: make -C emu test (native + asan)" make -C emu -j"$jobs" test
  run_step "node tests (incl. wasm == native)" node_tests
  # The boot and diagnostic tests again, on the machine built with ASan and
  # UBSan: a real 4.3BSD boot from the RP06 and from the RA81 (the UDA50),
  # panics, pastes, EVKAA, and DEC's VMB and Diagnostic Supervisor running
  # EVKAE and EVKAD (compatibility mode) under the sanitizers (LeakSanitizer included: the machine frees
  # what it allocates).
  run_step "asan: boot + DEC diagnostics, ASan machine" env VAXLAB_VAX780=emu/build/asan/vax780 \
    VAXLAB_DIAG_PROGRAMS=EVKAE,EVKAD node --import tsx --test --test-reporter=spec emu/tests/system/boot.test.ts \
    emu/tests/system/boot-ra81.test.ts emu/tests/system/evkaa.test.ts emu/tests/system/diag.test.ts
  run_step "typecheck: tsc --noEmit (+ e2e)" bash -c "node_modules/.bin/tsc --noEmit -p tsconfig.json && node_modules/.bin/tsc --noEmit -p e2e/tsconfig.json"
  if run_step "web build: vite build" node_modules/.bin/vite build --logLevel warn; then
    if [ -f web/public/images/43bsd.dsk.gz ]; then
      run_step "e2e: playwright (chromium)" env E2E_NO_BUILD=1 node_modules/.bin/playwright test -c e2e/playwright.config.ts
    else
      echo "e2e: skipped: no 4.3BSD image (web/public/images/43bsd.dsk.gz), so the page cannot boot; npm run image builds it"
      skip_step "e2e: playwright (no 4.3BSD image)"
    fi
  else
    skip_step "e2e: playwright (web build failed)"
  fi
else
  for s in "build: make -C emu native wasm" "build: worker threads' bundle" "build: the 4.3BSD image (installer)" \
           "build: profile-guided make" "emu: make -C emu test (native + asan)" \
           "node tests (incl. wasm == native)" "asan: boot + DEC diagnostics, ASan machine" "typecheck: tsc --noEmit (+ e2e)" "web build: vite build" "e2e: playwright (chromium)"; do
    skip_step "$s"
  done
fi

printf '\n===== summary\n'
for i in "${!names[@]}"; do
  printf '  %-42s %-16s %s\n' "${names[$i]}" "${results[$i]}" "${times[$i]}"
done
npass=0; nfail=0
for r in "${results[@]}"; do
  case "$r" in PASS) npass=$((npass + 1)) ;; SKIPPED) ;; *) nfail=$((nfail + 1)) ;; esac
done
if [ $failed -eq 0 ]; then
  printf '\nALL PASSED\n'
else
  printf '\nFAILED\n'
fi
printf 'steps: %d passed, %d failed\n' "$npass" "$nfail"
exit $failed
