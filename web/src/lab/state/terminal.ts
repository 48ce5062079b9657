// The Terminal tab: the multi-user machine the worker boots for it, its
// state (booting, running, stopped) and its output, and what is typed.

import type { Cpu, FromWorker, TerminalPhase, ToWorker } from '../../worker/protocol';
import { ObjectAtom } from './atom';
import { TextStream } from './textStream';

export interface TerminalState {
  phase: TerminalPhase;
  /** Virtual time follows wall time after the login prompt (else: as fast as the host can). */
  realtime: boolean;
  message: string | null;
  virtualSeconds: number;
  /** Booted at least once (the tab boots it the first time it is shown). */
  started: boolean;
  /** The length of the last input's longest line, when it was too long for the guest's tty (GUEST_TTY_LINE_MAX);
   *  null otherwise.  What was typed next clears it. */
  longLine: number | null;
}

/**
 * The longest line 4.3BSD's terminal driver takes whole at the shell: in its
 * line mode it queues a character only while fewer than TTYHOG (255,
 * sys/h/tty.h) wait in the tty's queues (sys/tty.c, ttyinput's "input buffer
 * overflow" check), and drops the rest, the line's newline too — so a longer
 * pasted line never reaches the shell, which then seems to hang.  The page
 * says so rather than let it look like ours.
 */
export const GUEST_TTY_LINE_MAX = 254;

/** The Terminal tab's status words.  Off is two states: never booted, or powered off by the user (the Boot button,
 *  then, starts it again: said, since "not started" would read as though it had never run). */
export function terminalStatusWords(t: Pick<TerminalState, 'phase' | 'started' | 'message'>): string {
  const words = {
    off: t.started ? 'powered off; Boot starts it again' : 'not started',
    booting: 'booting multi-user…',
    running: 'running',
    stopped: 'stopped',
    error: 'error',
  }[t.phase];
  return t.message && t.phase !== 'running' ? `${words}: ${t.message}` : words;
}

/** The length of the longest line in `text` (lines end at CR or LF). */
export function longestLine(text: string): number {
  // A loop, not Math.max(...lines): a paste of a few hundred thousand lines would be as many arguments, past the
  // engine's stack, and the paste would be lost to a RangeError.
  let longest = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 10;
    if (c === 10 || c === 13) {
      longest = Math.max(longest, i - start);
      start = i + 1;
    }
  }
  return longest;
}

/** The Terminal tab's machine: a 780 with 8 MB, as the lab's page describes it. */
export const TERMINAL_MACHINE: { cpu: Cpu; memoryMB: number } = { cpu: '780', memoryMB: 8 };

export class Terminal {
  readonly state = new ObjectAtom<TerminalState>({ phase: 'off', realtime: true, message: null, virtualSeconds: 0, started: false, longLine: null });
  readonly output = new TextStream();

  constructor(private readonly link: { post(message: ToWorker): void }) {}

  /** Boots it (again: a power cycle). */
  start(): void {
    this.output.reset();
    this.state.patch({ phase: 'booting', message: null, started: true, virtualSeconds: 0, longLine: null });
    this.link.post({ type: 'terminal-start', ...TERMINAL_MACHINE, realtime: this.state.get().realtime });
  }

  stop(): void {
    this.link.post({ type: 'terminal-stop' });
  }

  input(text: string): void {
    const longest = longestLine(text);
    const longLine = longest > GUEST_TTY_LINE_MAX ? longest : null;
    if (longLine !== this.state.get().longLine) this.state.patch({ longLine });
    this.link.post({ type: 'terminal-input', text });
  }

  /** The xterm's size (said again whenever it changes): the guest's console tty takes it as its window size. */
  resize(cols: number, rows: number): void {
    const last = this.lastSize;
    if (last && last.cols === cols && last.rows === rows) return;
    this.lastSize = { cols, rows };
    this.link.post({ type: 'terminal-size', cols, rows });
  }

  private lastSize: { cols: number; rows: number } | null = null;

  setRealtime(realtime: boolean): void {
    this.state.patch({ realtime });
    this.link.post({ type: 'terminal-speed', realtime });
  }

  text(m: FromWorker): void {
    if (m.type === 'terminal-output') this.output.append(m.text);
  }

  handle(m: FromWorker): void {
    if (m.type !== 'terminal-status') return;
    this.state.patch({ phase: m.phase, message: m.message ?? null, virtualSeconds: m.virtualSeconds, realtime: m.realtime });
  }
}
