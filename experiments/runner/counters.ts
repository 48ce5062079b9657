// Counters sampled while an experiment runs, named the way vmstat(1) and
// iostat(1) name them, from two sources: the hardware model (the emulator's
// own counts) and the kernel's statistics read by symbol from its memory.
//
// A sampler is polled after every emulator slice; once at least
// `intervalSeconds` of virtual time has passed since its last sample it
// takes one.  Rates are per virtual second over the real interval between
// samples (a slice can end a little past the second), so they stay right
// whatever the slice length.

import type { Vax780System } from '../../web/src/emulator/vaxModule';

export interface CounterDef {
  id: string;
  label: string;
  unit: string;
  group: string;
  description: string;
  source: 'kernel' | 'hardware';
}

/** One sample: the values over the interval that ended at t. */
export interface CounterSample {
  /** Index of the row (step) of the experiment. */
  row: number;
  /** Virtual seconds since the row's timed command started. */
  t: number;
  values: Record<string, number>;
}

/** A row's samples, column-wise (what the result JSON keeps). */
export interface CounterSeries {
  t: number[];
  values: Record<string, number[]>;
}

export const COUNTERS: CounterDef[] = [
  { id: 'hw.mips', label: 'MIPS', unit: 'million instructions/s', group: 'hardware', source: 'hardware',
    description: 'VAX instructions executed per virtual second, in millions' },
];

export class CounterSampler {
  private lastNs: bigint;
  private lastInstr: bigint;
  private readonly t0: bigint;
  private readonly samples: CounterSample[] = [];

  constructor(
    private readonly sys: Vax780System,
    private readonly row: number,
    private readonly intervalSeconds = 1,
  ) {
    this.t0 = this.lastNs = sys.timeNs();
    this.lastInstr = sys.instructionCount();
  }

  /** A sample if a whole interval has passed since the last one, else null. */
  poll(): CounterSample | null {
    const now = this.sys.timeNs();
    if (Number(now - this.lastNs) < this.intervalSeconds * 1e9) return null;
    return this.take(now);
  }

  /** The last, partial interval (null if nothing ran since the last sample). */
  finish(): CounterSample | null {
    const now = this.sys.timeNs();
    return now > this.lastNs ? this.take(now) : null;
  }

  series(): CounterSeries {
    const out: CounterSeries = { t: [], values: {} };
    for (const s of this.samples) {
      out.t.push(s.t);
      for (const [k, v] of Object.entries(s.values)) (out.values[k] ??= []).push(v);
    }
    return out;
  }

  private take(now: bigint): CounterSample {
    const dt = Number(now - this.lastNs) / 1e9;
    const instr = this.sys.instructionCount();
    const values: Record<string, number> = {
      'hw.mips': round(Number(instr - this.lastInstr) / dt / 1e6, 4),
    };
    this.lastNs = now;
    this.lastInstr = instr;
    const sample = { row: this.row, t: round(Number(now - this.t0) / 1e9, 6), values };
    this.samples.push(sample);
    return sample;
  }
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}
