// The console session driver: the CLI's expect rule (emu/tools/vax780.c,
// --script) on any machine with the Vax780System console calls, so the same
// code drives the WebAssembly emulator in Node and, later, in the browser.
//
// Rule: run in vax_run() slices of 200,000 instructions; an expect stops at
// the first slice boundary where the console output since the previous match
// contains its text.  Every wait has a virtual-time limit; a "panic:" in the
// output or a stop other than the budget running out ends the session.

/** The calls of Vax780System (web/src/emulator/vaxModule.ts) the driver uses. */
export interface ConsoleMachine {
  run(instructions: number | bigint): number;
  type(text: string): void;
  readConsole(): string;
  consoleDropped(): bigint;
  timeNs(): bigint;
  instructionCount(): bigint;
  stopDetail(): string;
}

/** tools/vax780.c SLICE. */
export const SLICE = 200_000;
/** Vax780Stop.Budget and Vax780Stop.Rebooted: keep running. */
const STOP_BUDGET = 0;
const STOP_REBOOTED = 100;

export type FailureKind = 'time limit' | 'panic' | 'stopped' | 'parse failure' | 'program error' | 'console overflow';

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
  /** Everything the console printed. */
  transcript = '';
  private mark = 0;
  private slices = 0;

  constructor(
    private readonly machine: ConsoleMachine,
    private readonly stopName: (reason: number) => string = (r) => `stop ${r}`,
    private readonly hooks: SessionHooks = {},
  ) {}

  /** Types text and a carriage return (the CLI's `send`). */
  send(text: string): void {
    this.machine.type(`${text}\r`);
  }

  /** Waits for text (the CLI's `expect`), at most limitSeconds of virtual
   *  time, running the machine in slices of `slice` instructions. */
  async expect(text: string, limitSeconds: number, slice: number = SLICE): Promise<ExpectResult> {
    const start = this.mark;
    const deadline = this.machine.timeNs() + BigInt(Math.round(limitSeconds * 1e9));
    const { signal, pause, onConsole, onSlice } = this.hooks;
    for (;;) {
      const at = this.transcript.indexOf(text, this.mark);
      if (at >= 0) {
        this.mark = at + text.length;
        return {
          output: this.transcript.slice(start, this.mark),
          instructions: this.machine.instructionCount(),
          timeNs: this.machine.timeNs(),
        };
      }
      const output = this.transcript.slice(start);
      if (signal?.aborted) throw new SessionFailure('stopped', 'stopped by the user', output);
      if (this.machine.timeNs() > deadline) {
        throw new SessionFailure('time limit',
          `no ${JSON.stringify(text)} within ${limitSeconds} virtual seconds`, output);
      }
      const r = this.machine.run(slice);
      const got = this.machine.readConsole();
      if (got) {
        this.transcript += got;
        onConsole?.(got);
      }
      onSlice?.();
      const now = this.transcript.slice(start);
      const panic = /panic:[^\r\n]*/.exec(now);
      if (panic) throw new SessionFailure('panic', `the kernel said "${panic[0]}"`, now);
      if (r !== STOP_BUDGET && r !== STOP_REBOOTED) {
        throw new SessionFailure('stopped', `${this.stopName(r)}: ${this.machine.stopDetail()}`, now);
      }
      if (this.machine.consoleDropped() !== 0n) {
        throw new SessionFailure('console overflow', 'console output was lost', now);
      }
      if (pause && ++this.slices % PAUSE_EVERY === 0) await pause();
    }
  }
}
