// vax780 without --script: nothing reads what the console printed (only a
// script's expects and its `save` do), so the machine keeps none of it; it
// kept it all, growing by what the guest printed for as long as it ran.
// Measured on a guest that prints without pause: the process's resident
// memory after 8 MB of output is what it was after the first 256 KB.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { REPO_ROOT } from '../../js/vaxNode';

const VAX780 = process.env.VAXLAB_VAX780 || join(REPO_ROOT, 'emu/build/native/vax780');
const VASM = join(REPO_ROOT, 'emu/build/native/vasm');
const work = mkdtempSync(join(tmpdir(), 'vaxlab-console-'));
after(() => rmSync(work, { recursive: true, force: true }));

// An 'A' per transmit interrupt, for ever: the processor idles between them (skipped: host time goes to the output).
const PRINTER = `
scb = 0x1200
. = 0x1000
start:  mtpr #scb, #0x11          ; SCBB
        mtpr #0x2800, #0          ; KSP
        mtpr #0x40, #0x22         ; TXCS: interrupt enable
        pushl #0                  ; PSL: kernel mode, IPL 0, off the interrupt stack
        pushl #idle
        rei
idle:   brb idle
. = 0x1100
tx:     mtpr #'A', #0x23          ; TXDB
        rei
. = scb + 0xFC
        .long tx + 1              ; the transmit vector, on the interrupt stack
`;

/** The process's resident memory in bytes (Linux: /proc/PID/status). */
function residentBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]) * 1024;
}

const skip = !existsSync('/proc/self/status') ? 'no /proc (resident memory is read from /proc/PID/status)'
  : !existsSync(VASM) ? 'no vasm (make -C emu native)' : false;

test('vax780 without a script keeps none of the console output: memory stays flat over 8 MB printed, every byte on stdout',
  { skip, timeout: 120_000 }, async () => {
    const source = join(work, 'printer.s');
    const program = join(work, 'printer.bin');
    writeFileSync(source, PRINTER);
    const asm = spawnSync(VASM, ['-o', program, '-b', '0x1000', source], { encoding: 'utf8' });
    assert.equal(asm.status, 0, asm.stderr);

    const early = 256 << 10;
    const late = 8 << 20;
    const child = spawn(VAX780, ['--load', `${program}@0x1000`, '--start', '0x1000', '--reg', 'sp=0x3000'],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const measured = await new Promise<{ atEarly: number; atLate: number; bytes: number; others: number }>((resolve, reject) => {
      let bytes = 0;
      let others = 0;   // bytes that are not the guest's 'A': the output must pass through unchanged
      let atEarly = 0;
      // Output already read from the pipe still comes after the kill: it must not be measured (the process is gone).
      let done = false;
      child.on('error', reject);
      child.on('exit', (code) => reject(new Error(`vax780 exited (${code}) after ${bytes} bytes: ${stderr}`)));
      child.stdout.on('data', (d: Buffer) => {
        if (done) return;
        for (const b of d) if (b !== 0x41) others++;
        bytes += d.length;
        if (atEarly === 0 && bytes >= early) atEarly = residentBytes(child.pid!);
        if (bytes >= late) {
          const atLate = residentBytes(child.pid!);
          done = true;
          child.removeAllListeners('exit');
          child.kill();
          resolve({ atEarly, atLate, bytes, others });
        }
      });
    });
    assert.equal(measured.others, 0);
    // Keeping the output costs at least as much memory as was printed in between (7.75 MB); allow 1 MB for the rest.
    const grew = measured.atLate - measured.atEarly;
    assert.ok(grew < 1 << 20, `resident memory grew by ${grew} bytes between ${early} and ${measured.bytes} bytes of output`);
  });
