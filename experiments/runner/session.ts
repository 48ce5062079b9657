// The console session driver: the CLI's expect rule (emu/tools/vax780.c,
// --script) on any machine with the Vax780System console calls, so the same
// code drives the WebAssembly emulator in Node and, later, in the browser.
//
// Rule: run in vax_run() slices of CONSOLE_SLICE (200,000) instructions; an expect stops at
// the first slice boundary where the console output since the previous match
// contains its text.  Every wait has a virtual-time limit; a kernel panic
// (known from the kernel's own panicstr, never from text on the console: a
// typed "panic:" is not one) or a stop other than the budget running out ends
// the session.  Looking for the text is linear in the output, however long.

import { CONSOLE_SLICE } from '../../emu/js/constants';

/** The calls of Vax780System (emu/js/vax780.ts) the driver uses. */
export interface ConsoleMachine {
  run(instructions: number | bigint): number;
  type(text: string): void;
  readConsole(): string;
  consoleDropped(): bigint;
  timeNs(): bigint;
  instructionCount(): bigint;
  stopDetail(): string;
  /** The kernel's panic message, or '' (Vax780System.panicMessage). */
  panicMessage(): string;
}

/** Vax780Stop.Budget and Vax780Stop.Rebooted: keep running; Panicked: the
 *  kernel panicked (emu/src/system/session.h). */
const STOP_BUDGET = 0;
const STOP_REBOOTED = 100;
const STOP_PANICKED = 101;
/** After a panic, slices run so that the kernel's message reaches the output. */
const PANIC_DRAIN_SLICES = 10;

/** How much of a guest's output the session keeps: everything up to
 *  TRANSCRIPT_MAX characters; beyond that the first TRANSCRIPT_HEAD (the
 *  boot messages) and the last TRANSCRIPT_TAIL, with a line saying how much
 *  was left out between them.  A guest printing without end (until its
 *  step's time limit) so costs bounded memory, and a failure's output in a
 *  result stays readable. */
export const TRANSCRIPT_MAX = 1 << 20;
export const TRANSCRIPT_HEAD = 64 << 10;
export const TRANSCRIPT_TAIL = 256 << 10;

/** The line that stands for output that was not kept. */
export function omittedLine(chars: number): string {
  return `\r\n[vaxlab: ${chars.toLocaleString('en-US')} characters of output not kept]\r\n`;
}

export type FailureKind = 'time limit' | 'panic' | 'stopped' | 'parse failure' | 'program error' | 'console overflow' | 'damaged image';

/** Why a session (or a step of an experiment) failed. */
export class SessionFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** The console output of the step that failed. */
    readonly output: string,
  ) {
    super(`${kind}: ${message}`);
    this.name = 'SessionFailure';
  }
}

export interface ExpectResult {
  /** Console output from the previous match to the end of this one (the
   *  whole slice's output is read; what follows the match is kept for the
   *  next expect, as the CLI does). */
  output: string;
  instructions: bigint;
  timeNs: bigint;
}

/** What a session calls back while it runs (all optional).  None of them
 *  can change what the guest sees, so results stay deterministic. */
export interface SessionHooks {
  /** Stop: the next slice boundary ends the wait with a 'stopped' failure. */
  signal?: AbortSignal;
  /** Awaited every PAUSE_EVERY slices: a browser worker passes a
   *  setTimeout(0) promise here so that its message queue (Stop) is served. */
  pause?: () => Promise<void>;
  /** Every piece of console output as it arrives. */
  onConsole?: (text: string) => void;
  /** After every slice (the counter sampler looks at virtual time here). */
  onSlice?: () => void;
}

/** Slices between pause() calls: 10 x 200,000 instructions, ~20-30 ms of host time in wasm. */
export const PAUSE_EVERY = 10;

export class ConsoleSession {
  /** What the console printed: all of it, or its head and tail (TRANSCRIPT_MAX). */
  transcript = '';
  /** Characters of output left out of the transcript. */
  omitted = 0;
  private mark = 0;
  private slices = 0;

  constructor(
    private readonly machine: ConsoleMachine,
    private readonly stopName: (reason: number) => string = (r) => `stop ${r}`,
    private readonly hooks: SessionHooks = {},
    /** A machine restored from a snapshot: the transcript its session had
     *  then and where its last match ended (runner.ts, bootSnapshots.ts),
     *  so that this session goes on as that one would have. */
    resume?: { transcript: string; mark: number },
  ) {
    if (resume) {
      this.transcript = resume.transcript;
      this.mark = resume.mark;
    }
  }

  /** Where the last match ended in the transcript (what a snapshot keeps). */
  get matchEnd(): number {
    return this.mark;
  }

  /** Types text and a carriage return (the CLI's `send`). */
  send(text: string): void {
    this.machine.type(`${text}\r`);
  }

  /** Waits for text (the CLI's `expect`), at most limitSeconds of virtual
   *  time, running the machine in slices of `slice` instructions. */
  async expect(text: string, limitSeconds: number, slice: number = CONSOLE_SLICE): Promise<ExpectResult> {
    let start = this.mark;
    const deadline = this.machine.timeNs() + BigInt(Math.round(limitSeconds * 1e9));
    const { signal, pause, onSlice } = this.hooks;
    let from = this.mark;   // no match of text starts before here
    for (;;) {
      const at = this.transcript.indexOf(text, from);
      if (at >= 0) {
        this.mark = at + text.length;
        return {
          output: this.transcript.slice(start, this.mark),
          instructions: this.machine.instructionCount(),
          timeNs: this.machine.timeNs(),
        };
      }
      from = Math.max(this.mark, this.transcript.length - text.length + 1);
      if (this.transcript.length > TRANSCRIPT_MAX) {
        // Keep the head and the tail: the cut ends before anything not yet
        // searched (from), and positions past it move down.
        const cut = Math.min(from, this.transcript.length - TRANSCRIPT_TAIL);
        if (cut > TRANSCRIPT_HEAD) {
          const dropped = cut - TRANSCRIPT_HEAD;
          const line = omittedLine(dropped);
          this.omitted += dropped;
          this.transcript = this.transcript.slice(0, TRANSCRIPT_HEAD) + line + this.transcript.slice(cut);
          const moved = (i: number): number => (i < TRANSCRIPT_HEAD ? i : i < cut ? TRANSCRIPT_HEAD : i - dropped + line.length);
          start = moved(start);
          this.mark = moved(this.mark);
          from = moved(from);
        }
      }
      const output = (): string => this.transcript.slice(start);
      if (signal?.aborted) throw new SessionFailure('stopped', 'stopped by the user', output());
      if (this.machine.timeNs() > deadline) {
        throw new SessionFailure('time limit',
          `no ${JSON.stringify(text)} within ${limitSeconds} virtual seconds`, output());
      }
      const r = this.runSlice(slice);
      onSlice?.();
      if (r === STOP_PANICKED) {
        for (let i = 0; i < PANIC_DRAIN_SLICES && this.runSlice(slice) === STOP_BUDGET; i++);
        throw new SessionFailure('panic', `the kernel panicked: "panic: ${this.machine.panicMessage()}"`, output());
      }
      if (r !== STOP_BUDGET && r !== STOP_REBOOTED) {
        throw new SessionFailure('stopped', `${this.stopName(r)}: ${this.machine.stopDetail()}`, output());
      }
      if (this.machine.consoleDropped() !== 0n) {
        throw new SessionFailure('console overflow', 'console output was lost', output());
      }
      if (pause && ++this.slices % PAUSE_EVERY === 0) await pause();
    }
  }

  /** One slice; what it printed goes to the transcript and onConsole. */
  private runSlice(slice: number): number {
    const r = this.machine.run(slice);
    const got = this.machine.readConsole();
    if (got) {
      this.transcript += got;
      this.hooks.onConsole?.(got);
    }
    return r;
  }
}
