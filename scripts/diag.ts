// npm run diag: DEC's own diagnostics on our 780, one line per program and
// build: passes, errors, instructions, virtual and host seconds.  EVKAA
// runs standalone (LOAD and START, --passes of them); EVKAB, EVKAC, EVKAD
// and EVKAE run under DEC's Diagnostic Supervisor, booted through VMB from
// the diagnostic RA81 (emu/diag/supervisor.ts), one pass each, their
// figures counted from RUN to the supervisor's next prompt.  Exits 1 if a
// program we expect to pass reports an error or stops early (a program
// the supervisor's table marks as not expected to pass is reported, not
// counted; none is now), 0 when all pass; says "skipped" and why when
// DEC's files are not beside the repository, and names a missing or
// damaged file (exit 3).
//
//   npm run diag [-- --passes N]

import { join } from 'node:path';

import { DiagFileError, diagMissing } from '../emu/diag/dist';
import { type DiagRun, passed, runEvkaaNative, runEvkaaWasm } from '../emu/diag/evkaa';
import { runSupervisorNative, runSupervisorWasm, SUPERVISOR_PROGRAMS, supervisorPassed } from '../emu/diag/supervisor';
import { loadVaxNode, REPO_ROOT } from '../emu/js/vaxNode';

const args = process.argv.slice(2);
let passes = 10;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--passes' && /^[1-9]\d{0,3}$/.test(args[i + 1] ?? '')) passes = Number(args[++i]);
  else if (args[i] === '--passes') {
    // A known option with a bad value (it was "unknown argument --passes").
    console.error(`diag: --passes takes a whole number from 1 to 9999, got ${args[i + 1] === undefined ? 'nothing' : `"${args[i + 1]}"`}`);
    process.exit(2);
  } else {
    console.error(`diag: unknown argument ${args[i]} (usage: npm run diag -- [--passes N], N from 1 to 9999)`);
    process.exit(2);
  }
}

const missing = diagMissing();
if (missing) {
  console.log(`diag: skipped: ${missing}`);
  process.exit(0);
}

const VAX780 = join(REPO_ROOT, 'emu/build/native/vax780');
const line = (cells: string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd(8) : c.padStart(13))).join(' ');
let ok = true;
/** One row, printed as soon as the program has run; `note` for a program not expected to pass. */
function row(r: DiagRun, good: boolean, note?: string): void {
  ok &&= good;
  const why = ((note !== undefined ? r.stopped ?? r.errorText : r.errorText ?? r.stopped) ?? '').split('\n')[0];
  const tail = note !== undefined ? `   (expected: ${note}${why ? `; ${why}` : ''})` : good ? '' : `   FAILED: ${why}`;
  console.log(line([r.program, r.engine, String(r.passes), String(r.errors), r.instructions.toLocaleString('en-US'),
    r.virtualSeconds.toFixed(1), r.hostSeconds.toFixed(2)]) + tail);
}

try {
  console.log(line(['program', 'build', 'passes', 'errors', 'instructions', 'virtual s', 'host s']));
  const evkaaNative = runEvkaaNative(VAX780, passes);
  row(evkaaNative, passed(evkaaNative, passes));
  const api = await loadVaxNode();
  const evkaaWasm = runEvkaaWasm(api.vax780, passes);
  row(evkaaWasm, passed(evkaaWasm, passes));
  for (const p of SUPERVISOR_PROGRAMS) {
    for (const r of [runSupervisorNative(VAX780, p.name), runSupervisorWasm(api.vax780, p.name)]) {
      row(r, supervisorPassed(r, p), p.expectPass === true ? undefined : p.expectPass);
    }
  }
} catch (e) {
  if (!(e instanceof DiagFileError)) throw e;
  console.error(`diag: ${e.message}`);
  process.exit(3);
}
process.exit(ok ? 0 : 1);
