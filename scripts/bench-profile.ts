// What profiling costs the host: each step of an experiment (table2 by
// default) run on the WebAssembly build with the profiler off and on,
// alternately, best of N runs each; host CPU seconds of this process
// (process.cpuUsage: steadier than wall time on a shared machine) per step
// and in all, the part of "on" spent writing and reading the two profiles,
// and their sizes (raw JSON, and the summary a permalink carries, deflated).
// The guest runs the same either way (experiments/profile tests).
//
//   node --import tsx scripts/bench-profile.ts [EXPERIMENT] [--repeat N]

import { deflateRawSync } from 'node:zlib';
import { parseArgs } from 'node:util';

import { findLabImage, loadDiskImage, loadVaxNode } from '../emu/js/vaxNode';
import { findExperiment } from '../experiments/runner/experiments';
import { buildProfile, rawProfileJson, summarize } from '../experiments/profile/index';
import { profileExperiment, type StepProfile } from '../experiments/profile/run';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { repeat: { type: 'string', default: '2' } } });
const id = positionals[0] ?? 'table2';
const spec = findExperiment(id);
if (!spec) throw new Error(`no experiment ${id}`);
const repeat = Math.max(1, Number(values.repeat));
const imagePath = findLabImage();
if (!imagePath) throw new Error('no lab image: npm run image');
const api = await loadVaxNode();
const disk = api.vax780.loadImage(await loadDiskImage(imagePath));

const best = { off: new Map<string, number>(), on: new Map<string, number>() };
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
let last: StepProfile[] = [];
for (let r = 0; r < repeat; r++) {
  for (const profile of [false, true]) {
    const times = best[profile ? 'on' : 'off'];
    let t0 = cpu();
    const steps = await profileExperiment(api.vax780, disk, spec, {
      profile,
      onStep: (e) => {
        if (e.phase === 'start') t0 = cpu();
        else times.set(e.step, Math.min(times.get(e.step) ?? Infinity, cpu() - t0));
      },
    });
    if (profile) last = steps;
    for (const s of steps) if (s.status !== 'ok') throw new Error(`${s.step}: ${s.failure?.message}`);
  }
}
let off = 0, on = 0, raw = 0, summary = 0;
console.log('step              off (s)  on (s)  overhead  profile (KB)  summary deflated (KB)');
for (const s of last) {
  const a = best.off.get(s.step)!, b = best.on.get(s.step)!;
  off += a;
  on += b;
  const json = rawProfileJson(s.run!);
  const sum = deflateRawSync(JSON.stringify(summarize(buildProfile(s.run!)))).length;
  raw += json.length;
  summary += sum;
  console.log(`${s.step.padEnd(16)} ${a.toFixed(2).padStart(8)} ${b.toFixed(2).padStart(7)} ${`${((100 * (b - a)) / a).toFixed(1)}%`.padStart(9)}` +
    ` ${(json.length / 1024).toFixed(0).padStart(13)} ${(sum / 1024).toFixed(1).padStart(22)}`);
}
console.log(`${'all'.padEnd(16)} ${off.toFixed(2).padStart(8)} ${on.toFixed(2).padStart(7)} ${`${((100 * (on - off)) / off).toFixed(1)}%`.padStart(9)}` +
  ` ${(raw / 1024).toFixed(0).padStart(13)} ${(summary / 1024).toFixed(1).padStart(22)}`);
disk.dispose();
