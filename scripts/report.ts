// Part of `npm start`'s report: loads the wasm emulator in Node through the
// same interface the browser uses and runs the start page's demo program.

import { runDemo } from '../emu/js/demo';
import { loadVaxNode } from '../emu/js/vaxNode';

const api = await loadVaxNode();
const r = runDemo(api);
console.log('  wasm emulator (Node), demo program MOVL #^X12345678, R0 ; HALT at 0x200:');
console.log(`    memory ${r.memoryBytes} bytes, program read back ${r.readBackOk ? 'ok' : 'MISMATCH'}`);
console.log(`    stop=${r.stopReason}${r.stopDetail ? ` (${r.stopDetail})` : ''} instructions=${r.instructions}`);
console.log(`    R0=${r.r0} (expected ${r.expectedR0}) PC=${r.pc} PSL=${r.psl} digest=${r.digest}`);
