// The profile modules on a profile whose every number is known: a program
// (ls, with symbols) making system calls through _Xsyscall into _namei,
// which recurses and calls _iget; a stack walk's frame of _namei merged
// with the called one; a stripped program (sh); an interrupt; idle time
// skipped in _Swtch.  Checks the names, the exact self/total/calls and
// arcs, and that the flat profile, folded stacks, speedscope, the diff and
// the summary all add up to the run's time.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  buildProfile, diffProfiles, flatProfile, foldedStacks, formatCallGraph, formatDiff, formatFlat, fromSummary,
  IDLE, KINDS, parseRawProfile, ProfileFormatError, RAW_FORMAT, rawProfileJson, SLOTS, SPEEDSCOPE_SCHEMA, summarize, Symbolizer,
  toSpeedscope, type Kind, type RawProfile,
} from './index';
import { formatNameiComparison, nameiFigures } from './namei';
import { TABLE_10 } from '../paper/namei';

const K = 0x8000_0000;
type N = [parent: number, kind: Kind, image: number, addr: number, aux: number, calls: number, instructions: number,
  slot: (typeof SLOTS)[number], cost: number, idle?: number];

const NODES: N[] = [
  [-1, 'program', 2, 0, 0, 0, 0, 'user', 0],                 // 0 [ls]
  [0, 'start', 2, 0, 0, 1, 10, 'user', 100],                 // 1 ls`start
  [1, 'call', 2, 0x40, 0, 1, 100, 'user', 1000],             // 2 ls`_main
  [2, 'call', 2, 0x80, 0, 10, 50, 'user', 500],              // 3 ls`_stat
  [0, 'exception', 0, K + 0x100, 0x40, 10, 30, 'kernel', 300], // 4 _Xsyscall
  [4, 'call', 0, K + 0x200, 0, 10, 40, 'kernel', 400],       // 5 _syscall
  [5, 'call', 0, K + 0x300, 0, 10, 200, 'kernel', 2000],     // 6 _namei
  [6, 'call', 0, K + 0x400, 0, 5, 60, 'kernel', 600],        // 7 _iget
  [6, 'call', 0, K + 0x300, 0, 2, 20, 'kernel', 200],        // 8 _namei (recursion)
  [8, 'call', 0, K + 0x400, 0, 2, 10, 'kernel', 100],        // 9 _iget
  [5, 'jsb', 0, K + 0x500, 0, 1, 5, 'kernel', 50, 5000],     // 10 _Swtch, idle skipped in it
  [-1, 'interrupt', 0, K + 0x600, 0xc0, 3, 9, 'interrupt', 90], // 11 _Xhardclock
  [5, 'resume', 0, K + 0x300, 0, 7, 7, 'kernel', 70],        // 12 _namei found by a walk: merges with 6, no calls
  [-1, 'program', 3, 0, 0, 0, 0, 'user', 0],                 // 13 [sh]
  [13, 'call', 3, 0x2b84, 0, 4, 4, 'user', 40],              // 14 sh`0x2b84
];

function fixture(nodes: N[] = NODES, nsPerInstruction = 2000): RawProfile {
  const raw = {
    format: RAW_FORMAT, version: 1, nsPerInstruction, costDenominator: 2000,
    instructions: nodes.reduce((s, n) => s + n[6], 0),
    cost: nodes.reduce((s, n) => s + n[8] + (n[9] ?? 0), 0),
    kernelPath: '/vmunix', slots: SLOTS, kinds: KINDS,
    limits: { nodes: 131072, depth: 2048, contexts: 4096, images: 1024, symbols: 65536 },
    overflow: { nodes: 0, depth: 0, contexts: 0, images: 0 }, contexts: 3, walks: 1, unmatchedReturns: 0,
    images: [
      { name: 'vmunix', path: '/vmunix', note: '', symbols: [[K + 0x100, '_Xsyscall'], [K + 0x200, '_syscall'], [K + 0x300, '_namei'],
        [K + 0x400, '_iget'], [K + 0x500, '_Swtch'], [K + 0x600, '_Xhardclock']] },
      { name: '(unmapped)', path: '', note: 'code run with memory management off', symbols: [] },
      { name: 'ls', path: '/bin/ls', note: '', symbols: [[0, 'start'], [0x40, '_main'], [0x80, '_stat']] },
      { name: 'sh', path: '/bin/sh', note: 'no symbol table (stripped)', symbols: [] },
    ],
    nodes: nodes.map(([parent, kind, image, addr, aux, calls, instructions, slot, cost, idle]) => {
      const c = new Array(SLOTS.length).fill(0);
      c[SLOTS.indexOf(slot)] = cost;
      c[SLOTS.indexOf('idle')] = idle ?? 0;
      return [parent, KINDS.indexOf(kind), image, addr, aux, calls, instructions, ...c];
    }),
  };
  return parseRawProfile(JSON.stringify(raw));
}

test('parseRawProfile refuses what is not a profile, saying what', () => {
  const good = JSON.parse(JSON.stringify({ ...fixture(), kinds: KINDS, slots: SLOTS, nodes: [] })) as Record<string, unknown>;
  assert.throws(() => parseRawProfile('{'), (e: unknown) => e instanceof ProfileFormatError && /JSON/.test(e.message));
  assert.throws(() => parseRawProfile({ ...good, format: 'x' }), /format "x"/);
  assert.throws(() => parseRawProfile({ ...good, version: 2 }), /version 2/);
  assert.throws(() => parseRawProfile({ ...good, kinds: ['a'] }), /kinds/);
  assert.throws(() => parseRawProfile({ ...good, nodes: [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]] }), /node 0: parent 0/);
  assert.throws(() => parseRawProfile({ ...good, nodes: [[-1, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]] }), /kind 9/);
});

test('rawProfileJson writes back what parseRawProfile read', () => {
  const raw = fixture();
  assert.deepEqual(parseRawProfile(rawProfileJson(raw)), raw);
});

test('names: kernel symbols as nm shows them, programs qualified, stripped ones by address', () => {
  const raw = fixture();
  const sym = new Symbolizer(raw.images);
  assert.equal(sym.nodeFunction({ kind: 'call', image: 0, addr: K + 0x300 }).key, '_namei');
  assert.equal(sym.nodeFunction({ kind: 'call', image: 0, addr: K + 0x312 }).key, '_namei', 'inside a function: that function');
  assert.equal(sym.nodeFunction({ kind: 'call', image: 0, addr: K + 0x50 }).key, '0x80000050', 'below every symbol');
  assert.deepEqual(sym.nodeFunction({ kind: 'call', image: 2, addr: 0x44 }), { key: 'ls`_main', symbol: '_main', program: 'ls', isProgram: false });
  assert.equal(sym.nodeFunction({ kind: 'call', image: 3, addr: 0x2b84 }).key, 'sh`0x2b84');
  assert.equal(sym.nodeFunction({ kind: 'start', image: 2, addr: 0x7fffe000 }).key, 'ls`(sigcode)');
  assert.equal(sym.nodeFunction({ kind: 'program', image: 2, addr: 0 }).key, '[ls]');
  assert.equal(sym.nodeFunction({ kind: 'program', image: 0, addr: 0 }).key, '[kernel]');
  assert.equal(sym.nodeFunction({ kind: 'call', image: 1, addr: 0x1234 }).key, '(unmapped)');
});

test('buildProfile: exact self, total, calls and arcs; recursion counted once; walked frames not counted as calls', () => {
  const p = buildProfile(fixture());
  const f = (k: string) => p.functions.get(k)!;
  assert.equal(f('_namei').selfCost, 2000 + 200 + 70);
  assert.equal(f('_namei').calls, 12, 'called 10 + 2 times; the walked frame adds none');
  assert.equal(f('_namei').selfCalls, 2);
  assert.equal(f('_namei').totalCost, 2000 + 70 + 600 + 200 + 100, 'the recursive instance is inside the outer one');
  assert.equal(f('_iget').totalCost, 700);
  assert.equal(f('_iget').calls, 7);
  assert.equal(f('_Xsyscall').totalCost, 300 + 400 + 2970 + 50, 'idle skipped in _Swtch is not in anyone\'s total');
  assert.equal(f('_Swtch').self[SLOTS.indexOf('idle')], 5000);
  assert.equal(p.idleCost, 5000);
  assert.equal(f('[ls]').totalCost, 1600 + 3720);
  assert.equal(f('ls`_stat').calls, 10);
  const arc = (a: string, b: string) => p.arcs.get(`${a}\u0000${b}`);
  assert.deepEqual(arc('_syscall', '_namei'), { caller: '_syscall', callee: '_namei', calls: 10, selfCost: 2270, childCost: 700 });
  assert.deepEqual(arc('_namei', '_iget'), { caller: '_namei', callee: '_iget', calls: 7, selfCost: 700, childCost: 0 });
  assert.equal(arc('_namei', '_namei'), undefined, 'recursion is in selfCalls, not an arc');
  assert.equal(arc('[ls]', '_Xsyscall')!.calls, 10);
  // Everything adds up to the run.
  let self = 0;
  for (const fn of p.functions.values()) self += fn.selfCost;
  assert.equal(self + p.idleCost, p.cost);
  assert.equal(p.tree.reduce((s, t) => s + t.instructions, 0), p.instructions);
  assert.deepEqual(p.notes, ['sh: no symbols (no symbol table (stripped)); its code is named by address']);
});

test('flat profile: by self time, percentages of the mode, the idle row, ms per call; JSON entries', () => {
  const p = buildProfile(fixture(NODES, 3333));   // a 750: 3333/2000 ns per cost unit
  const scale = 3333 / 2000;
  const all = flatProfile(p);
  assert.equal(all.entries[0]!.name, IDLE);
  assert.ok(Math.abs(all.totalMs - (10450 * scale) / 1e6) <= 1e-6, 'to the ns');
  assert.ok(Math.abs(all.entries.reduce((s, e) => s + e.percent, 0) - 100) < 1e-3);
  const namei = all.entries.find((e) => e.name === '_namei')!;
  assert.equal(namei.calls, 12);
  assert.ok(Math.abs(namei.selfMs - (2270 * scale) / 1e6) <= 1e-6);
  assert.ok(Math.abs(namei.totalMsPerCall! - (2970 * scale) / 1e6 / 12) <= 1e-6);
  assert.deepEqual(Object.keys(namei.bySlotMs), ['kernel']);
  const kernel = flatProfile(p, { mode: 'kernel' });
  assert.ok(kernel.entries.every((e) => e.program === null), 'kernel mode: kernel code only');
  assert.ok(kernel.entries.some((e) => e.name === '_Xhardclock' && e.bySlotMs.interrupt !== undefined));
  const user = flatProfile(p, { mode: 'user', top: 2 });
  assert.deepEqual(user.entries.map((e) => e.name), ['ls`_main', 'ls`_stat']);
  assert.equal(user.omitted, 2);
  assert.ok(!user.entries.some((e) => e.name === IDLE));
  const text = formatFlat(kernel);
  assert.match(text, /time\s+seconds\s+seconds\s+calls\s+ms\/call\s+ms\/call\s+name/);
  assert.match(text, /\s10\+2\s+0\.\d+\s+0\.\d+\s+_namei$/m, 'recursive calls shown as n+r');
});

test('call graph: callers above, callees below, spontaneous roots, exact arc times', () => {
  const p = buildProfile(fixture());
  const text = formatCallGraph(p, { mode: 'kernel' });
  const block = text.split('-'.repeat(60)).find((b) => / _namei \[\d+\]\n/.test(b.replace(/^\s*\n/, '')) && /\]\s+\S+\s+\S+\s+\S+\s+10\+2\s+_namei/.test(b))!;
  assert.ok(block, text);
  assert.match(block, /0\.000\s+0\.000\s+10\/10\s+_syscall \[\d+\]/, 'caller _syscall, 10 of its 10 non-recursive calls');
  assert.match(block, /0\.000\s+0\.000\s+7\/7\s+_iget \[\d+\]/);
  assert.match(text, /<spontaneous>\n\s+\[\d+\]\s+\S+\s+\S+\s+\S+\s+3\s+_Xhardclock/);
});

test('folded stacks and speedscope: every calling context with its time, adding up to the run', () => {
  const p = buildProfile(fixture());
  const folded = foldedStacks(p);
  const lines = folded.trim().split('\n');
  assert.ok(lines.includes('[ls];_Xsyscall;_syscall;_namei;_namei;_iget 100'));
  assert.ok(lines.includes('[ls];_Xsyscall;_syscall;_Swtch;(idle) 5000'));
  assert.ok(lines.includes('_Xhardclock 90'));
  assert.equal(lines.reduce((s, l) => s + Number(l.split(' ').pop()), 0), p.cost);
  const user = foldedStacks(p, 'user').trim().split('\n');
  assert.deepEqual(user, ['[ls];ls`start 100', '[ls];ls`start;ls`_main 1000', '[ls];ls`start;ls`_main;ls`_stat 500', '[sh];sh`0x2b84 40']);

  const s = toSpeedscope(p, { name: 'fixture' });
  assert.equal(s.$schema, SPEEDSCOPE_SCHEMA);
  const prof = s.profiles[0]!;
  assert.equal(prof.type, 'sampled');
  assert.equal(prof.samples.length, prof.weights.length);
  assert.equal(prof.endValue, p.cost);
  assert.equal(new Set(s.shared.frames.map((f) => f.name)).size, s.shared.frames.length);
  const i = prof.samples.findIndex((smp) => smp.map((k) => s.shared.frames[k]!.name).join(';') === '[ls];_Xsyscall;_syscall;_namei');
  assert.equal(prof.weights[i], 2070, 'the called and the walked _namei are one context');
});

test('diff: functions of either side, changes and per-call figures', () => {
  const a = buildProfile(fixture());
  // B: namei twice as fast, iget never called.
  const bNodes = NODES.map((n): N => (n[3] === K + 0x300 ? [n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8] / 2]
    : n[3] === K + 0x400 ? [n[0], n[1], n[2], n[3], n[4], 0, 0, n[7], 0] : n));
  const b = buildProfile(fixture(bNodes));
  const d = diffProfiles(a, b, { mode: 'kernel' });
  const namei = d.entries.find((e) => e.name === '_namei')!;
  assert.equal(namei.a!.calls, 12);
  assert.ok(namei.deltaSelfMs < 0 && namei.deltaTotalMs < 0);
  const iget = d.entries.find((e) => e.name === '_iget')!;
  assert.equal(iget.b, null);
  assert.equal(iget.totalChangePercent, -100);
  assert.ok(Math.abs(d.entries[0]!.deltaTotalMs) >= Math.abs(d.entries[d.entries.length - 1]!.deltaTotalMs));
  assert.match(formatDiff(d, { a: 'off', b: 'on' }), /_namei\s+0\.003\s+0\.001/);
});

test('summary: small, and back as a profile whose kept functions and totals agree', () => {
  const p = buildProfile(fixture());
  const s = summarize(p, { top: 5, minShare: 0.01 });
  assert.equal(s.top.length, 5);
  assert.ok(s.tree.length < p.tree.length, 'contexts under 1% cut');
  const q = fromSummary(JSON.parse(JSON.stringify(s)));
  let self = 0;
  for (const f of q.functions.values()) self += f.selfCost;
  assert.equal(self + q.idleCost, p.cost, 'what was cut went to the callers');
  assert.equal(q.functions.get('_namei')!.totalCost, p.functions.get('_namei')!.totalCost);
  assert.equal(q.functions.get('[ls]')!.name.isProgram, true);
  assert.equal(q.functions.get('ls`_main')!.name.program, 'ls');
  assert.throws(() => fromSummary({ ...s, version: 9 } as unknown as typeof s), /not a vaxlab profile summary/);
});

test('namei figures: per call and % of the kernel\'s time, beside a paper table', () => {
  const p = buildProfile(fixture());
  const f = nameiFigures(p);
  assert.equal(f.calls, 12);
  // Kernel time: the kernel code's self in kernel and interrupt modes, idle left out.
  const kernel = 300 + 400 + 2000 + 600 + 200 + 100 + 50 + 90 + 70;
  assert.ok(Math.abs(f.kernelMs - kernel / 1e6) < 1e-12);
  assert.ok(Math.abs(f.selfMsPerCall - 2270 / 1e6 / 12) < 1e-12);
  assert.ok(Math.abs(f.childMsPerCall - 700 / 1e6 / 12) < 1e-12);
  assert.ok(Math.abs(f.totalPercent - (100 * 2970) / kernel) < 1e-9);
  const text = formatNameiComparison(f, TABLE_10, 'fixture');
  assert.match(text, /^self\s+0\.00\s+4\.2\s+\d+\.\d%\s+6\.2%$/m);
  assert.match(text, /^total\s+0\.00\s+8\.6\s+\d+\.\d%\s+12\.8%$/m);
  assert.equal(nameiFigures(p, '_nosuch').calls, 0);
});
