// npm run diag: DEC's own diagnostics on our 780, one line per program and
// build: passes, errors, instructions, virtual and host seconds.  Exits 1
// if any reports an error or stops early, 0 when all pass; says "skipped"
// and why when DEC's files are not beside the repository.
//
//   npm run diag [-- --passes N]

import { join } from 'node:path';

import { diagMissing } from '../emu/diag/dist';
import { type DiagRun, passed, runEvkaaNative, runEvkaaWasm } from '../emu/diag/evkaa';
import { loadVaxNode, REPO_ROOT } from '../emu/js/vaxNode';

const args = process.argv.slice(2);
let passes = 10;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--passes' && /^[1-9]\d{0,3}$/.test(args[i + 1] ?? '')) passes = Number(args[++i]);
  else {
    console.error(`diag: unknown argument ${args[i]} (usage: npm run diag -- [--passes N], N from 1 to 9999)`);
    process.exit(2);
  }
}

const missing = diagMissing();
if (missing) {
  console.log(`diag: skipped: ${missing}`);
  process.exit(0);
}

const rows: DiagRun[] = [];
rows.push(runEvkaaNative(join(REPO_ROOT, 'emu/build/native/vax780'), passes));
const api = await loadVaxNode();
rows.push(runEvkaaWasm(api.vax780, passes));

const line = (cells: string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd(8) : c.padStart(13))).join(' ');
console.log(line(['program', 'build', 'passes', 'errors', 'instructions', 'virtual s', 'host s']));
let ok = true;
for (const r of rows) {
  const good = passed(r, passes);
  ok &&= good;
  console.log(line([r.program, r.engine, String(r.passes), String(r.errors), r.instructions.toLocaleString('en-US'),
    r.virtualSeconds.toFixed(1), r.hostSeconds.toFixed(2)]) + (good ? '' : `   FAILED: ${r.errorText ?? r.stopped}`));
}
process.exit(ok ? 0 : 1);
