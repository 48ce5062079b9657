// A profile as a speedscope file (https://www.speedscope.app, "File format"
// in its documentation: a JSON object with $schema, shared.frames and
// profiles): one "sampled" profile whose samples are the calling contexts
// (folded.ts stacks) weighted by their virtual ns, so speedscope's
// left-heavy, sandwich and timeline views show the exact times.

import { type Mode, type Profile } from './aggregate';
import { stacks } from './folded';

export const SPEEDSCOPE_SCHEMA = 'https://www.speedscope.app/file-format-schema.json';

export interface SpeedscopeFile {
  $schema: typeof SPEEDSCOPE_SCHEMA;
  shared: { frames: { name: string }[] };
  profiles: {
    type: 'sampled';
    name: string;
    unit: 'nanoseconds';
    startValue: number;
    endValue: number;
    samples: number[][];
    weights: number[];
  }[];
  name: string;
  activeProfileIndex: number;
  exporter: string;
}

export function toSpeedscope(profile: Profile, options: { name?: string; mode?: Mode } = {}): SpeedscopeFile {
  const name = options.name ?? 'vaxlab profile';
  const frames: { name: string }[] = [];
  const index = new Map<string, number>();
  const frame = (f: string): number => {
    let i = index.get(f);
    if (i === undefined) {
      i = frames.length;
      index.set(f, i);
      frames.push({ name: f });
    }
    return i;
  };
  const samples: number[][] = [];
  const weights: number[] = [];
  for (const s of stacks(profile, options.mode ?? 'all')) {
    const w = Math.round(s.value);
    if (w <= 0) continue;
    samples.push(s.frames.map(frame));
    weights.push(w);
  }
  const end = weights.reduce((a, b) => a + b, 0);
  return {
    $schema: SPEEDSCOPE_SCHEMA,
    shared: { frames },
    profiles: [{ type: 'sampled', name, unit: 'nanoseconds', startValue: 0, endValue: end, samples, weights }],
    name,
    activeProfileIndex: 0,
    exporter: 'vaxlab (emu/src/profile)',
  };
}
