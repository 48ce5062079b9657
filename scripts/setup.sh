#!/usr/bin/env bash
# Installs whatever is missing and builds the emulator (native + wasm).
# Idempotent: run it as often as you like; it only does what is needed.
#
#   scripts/setup.sh [--no-build] [--no-chromium]
#
# - Debian packages (via apt-get, only when running as root; otherwise it
#   says what to run): build-essential if gcc/make are missing, emscripten
#   if emcc is missing, chromium (for the end-to-end tests) if missing.
# - npm dependencies via `npm ci` when node_modules is missing or older than
#   package.json / package-lock.json.
# - make -C emu native wasm, the worker threads' bundle (esbuild; rebuilt only
#   when its sources changed), the 4.3BSD image (installer/install.ts; cached),
#   then make again: the profile-guided build, trained on that image (cached).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=1
want_chromium=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    --no-chromium) want_chromium=0 ;;
    *) echo "usage: scripts/setup.sh [--no-build] [--no-chromium]" >&2; exit 2 ;;
  esac
done

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }
apt_updated=0
apt_log=$(mktemp -t vaxlab-apt.XXXXXX)
trap 'rm -f "$apt_log"' EXIT
apt_try() { # apt-get arguments...; output goes to a log shown only on failure; the status is apt-get's
  if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@" >"$apt_log" 2>&1; then
    tail -n 40 "$apt_log" >&2
    return 1
  fi
}
apt_run() { apt_try "$@" || die "apt-get $* failed"; }
apt_install() {
  if [ $apt_updated -eq 0 ]; then
    log "apt-get update"
    apt_run update
    apt_updated=1
  fi
  log "apt-get install -y $*"
  apt_run install -y "$@"
}
# For what the build can do without (the module's newer compiler, the profile
# tools): a failed install is a warning, and make falls back and says why.
apt_install_optional() { # what-it-is package...
  local what=$1
  shift
  if [ $apt_updated -eq 0 ]; then
    log "apt-get update"
    apt_try update || { log "WARNING: apt-get update failed; going on without $what"; return 0; }
    apt_updated=1
  fi
  log "apt-get install -y $*"
  apt_try install -y "$@" || log "WARNING: apt-get install $* failed; going on without $what (emu/Makefile falls back and says so)"
}

# --- Node ----------------------------------------------------------------
command -v node >/dev/null || die "node not found: install Node.js 20.19 or newer"
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  die "Node $(node -v) is too old: Vite needs Node 20.19 or newer"
fi

# --- C toolchain -----------------------------------------------------------
if ! command -v gcc >/dev/null || ! command -v make >/dev/null; then
  if is_root; then
    apt_install build-essential
  else
    die "gcc/make missing: run as root:  apt-get install build-essential"
  fi
fi

# --- Emscripten (Debian's package, 3.1.6) ------------------------------------
if ! command -v emcc >/dev/null; then
  if is_root; then
    log "emcc missing: installing Debian's emscripten (~1 GB with clang, lld, binaryen)"
    apt_install emscripten
  else
    die "emcc missing: run as root:  apt-get update && apt-get install -y emscripten"
  fi
  command -v emcc >/dev/null || die "emscripten installed but emcc still not on PATH"
fi

# --- clang-19 (the WebAssembly module's compiler) ---------------------------
# emu/Makefile compiles the module's C objects with Debian's clang-19 when it
# is installed (emcc still links them; emu/docs/speed.md, round twenty-six),
# and with emcc's own clang-14 otherwise, saying so.  make names it, so the
# name is written once.
wasm_cc=$(make -s --no-print-directory -C emu wasm-cc-preferred)
if ! command -v "$wasm_cc" >/dev/null; then
  if is_root; then
    apt_install_optional "the module's clang" "$wasm_cc"
  else
    log "WARNING: $wasm_cc missing and not root; the WebAssembly module will be compiled by emcc's own clang:  apt-get install -y $wasm_cc"
  fi
fi

# --- clang's profile runtime (the profile-guided WebAssembly build) ----------
# emu/Makefile trains the WebAssembly build's profile with a native build by
# the module's clang (clang-19, or clang-14 without it), which needs
# libclang_rt.profile (Debian's libclang-rt-N-dev, only recommended by that
# clang) and llvm-profdata-N (llvm-N).  Without them the module is built
# without the profile, and make says so.  make decides what is missing and
# names the packages (emu/Makefile, pgo-tools-packages), so the test is
# written once.
pgo_packages=$(make -s --no-print-directory -C emu pgo-tools-packages)
if [ -n "$pgo_packages" ]; then
  if is_root; then
    # shellcheck disable=SC2086  # a list of package names
    apt_install_optional "the profile-guided module" $pgo_packages
  else
    log "WARNING: the module's clang lacks its profile runtime or llvm-profdata and not root; the WebAssembly build will not be profile-guided:  apt-get install -y $pgo_packages"
  fi
fi

# --- Chromium (for the end-to-end tests) -------------------------------------
if [ $want_chromium -eq 1 ] && ! command -v chromium >/dev/null; then
  if is_root; then
    log "chromium missing: installing Debian's chromium (used by the e2e tests)"
    apt_install chromium
  else
    log "WARNING: chromium missing and not root; the e2e tests will need it:  apt-get install -y chromium"
  fi
fi

# --- npm dependencies ----------------------------------------------------------
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  log "npm ci (node_modules missing or stale)"
  npm ci --no-audit --no-fund
else
  log "node_modules up to date"
fi

# --- build -------------------------------------------------------------------
if [ $build -eq 1 ]; then
  jobs=$(nproc 2>/dev/null || echo 4)
  log "make -C emu -j$jobs native wasm"
  make -C emu -j"$jobs" native wasm
  # The experiment runner's worker threads as one JavaScript file, so that a
  # thread starts without tsx (experiments/runner/threadBundle.ts; cached by
  # its sources' hashes).
  log "worker threads' bundle: experiments/build/sweepThread.mjs"
  node --import tsx scripts/build-thread-bundle.ts
  # The lab's 4.3BSD disk, built by our installer from the distribution
  # tapes (cached by the inputs' hashes: costs nothing when unchanged).
  log "installer: web/public/images/43bsd.dsk.gz"
  node --import tsx installer/install.ts
  # The profile-guided build trains on that image (emu/Makefile,
  # "profile-guided optimisation"), so on a fresh tree the make above was
  # plain and this one trains and recompiles; when nothing changed it does
  # nothing.  The image and snapshots stay valid: they are keyed by the
  # emulator's sources, not its binary.
  log "make -C emu -j$jobs native wasm (profile-guided, trained on that image)"
  make -C emu -j"$jobs" native wasm
fi
log "done"
