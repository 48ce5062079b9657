// The Terminal tab's machine (terminal.ts) in Node, on the real 4.3BSD lab
// image booted multi-user: the terminal's size reaches the console tty
// (`stty size`), and a paste far larger than the console's input queue
// arrives whole.  And the Terminal tab's machine is the one the image
// builder ships a snapshot of (experiments/runner/shippedBoots.ts): the page
// asks the worker for TERMINAL_MACHINE, and the worker creates it as
// terminalMachineOptions says, so a shipped snapshot of that machine is the
// one it restores.  And a login, typed while the machine follows wall time,
// is answered at full speed as a whole, its seconds of silence included.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { setImmediate as yieldNow } from 'node:timers/promises';

import { CPU_NS_PER_INSTRUCTION } from '../../../emu/js/constants';
import { BootSnapshots, TERMINAL_BOOT, bootKey, bootSnapshotFromFile } from '../../../experiments/runner/bootSnapshots';
import { findLabImage } from '../../../emu/js/vaxNode';
import { shippedBoots, terminalMachineOptions, TERMINAL_MACHINE as SHIPPED } from '../../../experiments/runner/shippedBoots';
import { useLabImage } from '../../../experiments/runner/testLab';
import { Terminal, TERMINAL_MACHINE } from '../lab/state/terminal';
import type { ToWorker } from './protocol';
import { TerminalSession } from './terminal';

const lab = useLabImage('terminal.test.ts');

/** A Terminal tab's machine on the lab image (780, 8 MB), what it has shown, and a wait for text on it. */
function startTerminal(realtime: boolean, snapshots?: BootSnapshots) {
  let screen = '';
  const session = new TerminalSession(
    lab.api.vax780, lab.disk, { memoryMB: 8, cpuModel: '780', nsPerInstruction: CPU_NS_PER_INSTRUCTION['780'], realtime },
    { output: (text) => (screen += text), status: () => {}, executed: () => {} },
    async () => {
      await yieldNow();
    },
    snapshots ?? null,
  );
  const running = session.run();
  /** Waits for `text` in what the terminal shows after `from`; what it shows from there. */
  const expect = async (text: string | RegExp, from: number, limitMs = 60_000): Promise<string> => {
    const t0 = Date.now();
    for (;;) {
      const seen = screen.slice(from);
      if (typeof text === 'string' ? seen.includes(text) : text.test(seen)) {
        if (process.env.DEBUG_TERMINAL) console.log(`${String(text)}: ${Date.now() - t0} ms, ${session.virtualSeconds().toFixed(1)} virtual s`);
        return seen;
      }
      if (Date.now() - t0 > limitMs) assert.fail(`no ${String(text)} on the terminal; it shows: ${JSON.stringify(seen.slice(-500))}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { session, running, expect, screen: () => screen };
}

test('the terminal: its size is the console tty\'s window size; a long paste arrives whole', { skip: lab.skip }, async () => {
  const { session, running, expect, screen: shown } = startTerminal(false);
  session.setSize(100, 37);
  try {
    await expect('login: ', 0);
    let at = shown().length;
    session.input('root\r');
    await expect(/# $/, at);

    at = shown().length;
    session.input('stty size\r');
    assert.match(await expect(/\r\n37 100\r\n/, at), /stty size\r\n37 100\r\n/);
    // Resized: said again.
    session.setSize(80, 24);
    at = shown().length;
    session.input('stty size; echo $TERM\r');
    assert.match(await expect(/vt100/, at), /24 80\r\nvt100/);

    // 400 lines of 60 characters (24,400 with the newlines), three times the console's input queue, at once.
    const lines = Array.from({ length: 400 }, (_, i) => `${String(i).padStart(4, '0')} ${'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2).slice(0, 55)}`);
    at = shown().length;
    session.input(`cat > /tmp/paste\r${lines.join('\r')}\r\x04`);
    assert.ok(session.pendingInput > 8192, 'more than the console takes at once is waiting');
    await expect(/# $/, at, 120_000);
    at = shown().length;
    // (The image has no /usr/bin: no wc, no tail.)
    session.input('grep -c . /tmp/paste; grep "^0399 " /tmp/paste\r');
    const out = await expect(/0399 abc[^\r]*\r\n[^\n]*# $/, at, 60_000);
    assert.match(out, /\r\n400\r\n0399 /);
    assert.equal(session.pendingInput, 0);
  } finally {
    session.stop();
    await running;
  }
});

test('the page\'s terminal machine is the one shipped at its login prompt', () => {
  assert.deepEqual(TERMINAL_MACHINE, SHIPPED);
  const t = shippedBoots().find((b) => b.name === 'terminal')!;
  assert.deepEqual(t.options, {
    memoryMB: TERMINAL_MACHINE.memoryMB, boot: 'multi', cpuModel: TERMINAL_MACHINE.cpu,
    nsPerInstruction: CPU_NS_PER_INSTRUCTION[TERMINAL_MACHINE.cpu],
  });
  assert.deepEqual(t.recipe, TERMINAL_BOOT);
});

/** The shipped snapshot of the terminal's machine at its login prompt, when the installer made it (without it the
 *  terminal boots first). */
function shippedTerminalSnapshots(): BootSnapshots {
  const snapshots = new BootSnapshots();
  const shipped = join(dirname(findLabImage()!), '43bsd-boot-terminal.snap.gz');
  if (existsSync(shipped)) {
    const key = bootKey(lab.disk, { ...terminalMachineOptions('780', 8), disk: lab.disk }, TERMINAL_BOOT);
    snapshots.set(key, bootSnapshotFromFile(gunzipSync(readFileSync(shipped))));
  }
  return snapshots;
}

test('a login typed while the terminal follows wall time is answered at full speed, its silence included', { skip: lab.skip },
  async () => {
    const snapshots = shippedTerminalSnapshots();
    const { session, running, expect, screen } = startTerminal(true, snapshots);
    try {
      await expect(/login: $/, 0, 120_000);
      const at = screen().length;
      const virtual0 = session.virtualSeconds();
      const wall0 = performance.now();
      session.input('root\r');
      await expect(/# $/, at, 60_000);
      const virtual = session.virtualSeconds() - virtual0;
      const wall = (performance.now() - wall0) / 1000;
      // The guest's own login: its /.login's words come before the prompt.
      assert.match(screen().slice(at), /root\r\r\n[^]*Don't login as root, use su\r\n[^\n]*# $/);
      // On a 780 it takes seconds, most of them printing nothing (2.6 s between the echo of root and the shell's
      // first words); in wall time they would have taken as long.  At full speed they take a fraction of that.
      assert.ok(virtual > 2, `the login took ${virtual.toFixed(2)} virtual s`);
      assert.ok(wall < virtual / 2, `the login took ${wall.toFixed(2)} s of wall time for ${virtual.toFixed(2)} virtual s: followed in wall time`);
    } finally {
      session.stop();
      await running;
    }
  });

test('a script pasted before the shell\'s prompt: echoed at once, ahead of the login\'s words; each command\'s output after a prompt',
  { skip: lab.skip }, async () => {
    // What README (Terminal) says the page shows: the guest's terminal driver echoes typed-ahead characters as it
    // takes them, before the shell reads any; the shell then prints its prompt and each command's output, not the
    // command again.
    const snapshots = shippedTerminalSnapshots();
    const { session, running, expect, screen } = startTerminal(true, snapshots);
    try {
      await expect(/login: $/, 0, 120_000);
      const at = screen().length;
      session.input('root\r');
      await expect(/root\r\r\n/, at);
      session.input('echo one\recho two\recho three\r');
      const shown = await expect(/three\r\n[^\n]*# $/, at, 60_000);
      assert.match(shown, /^root\r\r\necho one\r\necho two\r\necho three\r\nDon't login as root, use su\r\n(\S+# )one\r\n\1two\r\n\1three\r\n\1$/);
    } finally {
      session.stop();
      await running;
    }
  });

test('Power off tells the page the speed setting the machine had: the box keeps it, and the next boot follows it', { skip: lab.skip },
  () => {
    for (const realtime of [true, false]) {
      // Made with the other setting, and set as the page's box sets it; never run (stopping needs no machine).
      const session = new TerminalSession(
        lab.api.vax780, lab.disk, { memoryMB: 8, cpuModel: '780', nsPerInstruction: CPU_NS_PER_INSTRUCTION['780'], realtime: !realtime },
        { output: () => {}, status: () => {}, executed: () => {} }, async () => {},
      );
      session.setRealtime(realtime);
      const posted: ToWorker[] = [];
      const page = new Terminal({ post: (m) => posted.push(m) });
      page.setRealtime(realtime);
      const off = session.powerOff();
      page.handle(off);
      assert.deepEqual([off.phase, page.state.get().phase, page.state.get().realtime], ['off', 'off', realtime]);
      posted.length = 0;
      page.start();
      assert.deepEqual(posted, [{ type: 'terminal-start', ...TERMINAL_MACHINE, realtime }]);
    }
  });
