// A TextStream's text handed to a terminal (xterm.js) in batches.  Every
// write to xterm costs the page a parse and a redraw of its rows, and a
// console's text comes in many small pieces (a run's batches ten times a
// second, a sweep's lines one by one, a guest's output as it prints): so text
// coming while the terminal waits after a write is kept and written at the
// wait's end in one piece.  Text after a quiet spell is written at once, so a
// key typed echoes without delay; a flood (a paste echoed, `ps ax`) becomes
// one write per wait.  Nothing is dropped or put out of order: the text kept
// is written before any that comes after it, and only a reset (which clears
// the screen it would have been written to) discards it.

/** What the writer writes to: an xterm. */
export interface TerminalSink {
  write(text: string): void;
  reset(): void;
}

/** Calls `then` once, after a wait (the next animation frame, a time); returns what cancels it. */
export type Wait = (then: () => void) => () => void;

export class BatchedTerminalWriter {
  private kept = '';
  /** Cancels the wait after the last write; null when none is running (the next text is written at once). */
  private waiting: (() => void) | null = null;

  constructor(private readonly sink: TerminalSink, private readonly wait: Wait) {}

  write(text: string): void {
    if (!text) return;
    if (this.waiting) {
      this.kept += text;
      return;
    }
    this.writeNow(text);
  }

  /** The stream started again (with `text`): what was kept goes with the screen it was for. */
  reset(text = ''): void {
    this.kept = '';
    this.sink.reset();
    this.write(text);
  }

  /** Stops waiting; text kept is dropped (the terminal goes). */
  dispose(): void {
    this.waiting?.();
    this.waiting = null;
    this.kept = '';
  }

  private writeNow(text: string): void {
    this.sink.write(text);
    this.waiting = this.wait(() => this.waited());
  }

  private waited(): void {
    this.waiting = null;
    const text = this.kept;
    this.kept = '';
    if (text) this.writeNow(text);
  }
}

/** How a terminal waits between writes, in a page: until the next frame (xterm draws its rows once a frame at most
 *  anyway; a hidden page draws none, so `fallbackMs` at most), or `ms` when given. */
export function frameWait(ms = 0, fallbackMs = 250): Wait {
  return (then) => {
    if (ms > 0) {
      const timer = setTimeout(then, ms);
      return () => clearTimeout(timer);
    }
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      cancelAnimationFrame(frame);
      clearTimeout(timer);
      then();
    };
    const frame = requestAnimationFrame(go);
    const timer = setTimeout(go, fallbackMs);
    return () => {
      done = true;
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  };
}
