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
  return toSpeedscopeMany([{ name, profile }], { name, mode: options.mode });
}

/** Several profiles in one file (speedscope lists them; frames are shared). */
export function toSpeedscopeMany(profiles: { name: string; profile: Profile }[],
  options: { name?: string; mode?: Mode } = {}): SpeedscopeFile {
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
  const out: SpeedscopeFile['profiles'] = profiles.map(({ name, profile }) => {
    const samples: number[][] = [];
    const weights: number[] = [];
    for (const s of stacks(profile, options.mode ?? 'all')) {
      const w = Math.round(s.value);
      if (w <= 0) continue;
      samples.push(s.frames.map(frame));
      weights.push(w);
    }
    const end = weights.reduce((a, b) => a + b, 0);
    return { type: 'sampled', name, unit: 'nanoseconds', startValue: 0, endValue: end, samples, weights };
  });
  return {
    $schema: SPEEDSCOPE_SCHEMA,
    shared: { frames },
    profiles: out,
    name: options.name ?? profiles[0]?.name ?? 'vaxlab profile',
    activeProfileIndex: 0,
    exporter: 'vaxlab (emu/src/profile)',
  };
}
