// What the counter chart's plots show, worked out without a DOM: per panel the
// scales' domains and, per line, its path and its points (where each circle
// is, its size and its tooltip).  counterChart.ts draws a scene whole the
// first time and after that only what differs from the scene it drew last
// (sceneChanges): a live run's chart grows a few samples at a time, several
// times a second, and rebuilding every element of it each time was a tenth
// of the page's main-thread work while a run went.
//
// nextScene(previous, …) is sceneOf(…) worked out more cheaply where the
// previous scene still holds (the same samples so far: their tooltips kept;
// on the same scales, the path extended and the circles kept), and the same
// result; the tests hold
// both to that, and hold applyChanges(previous, sceneChanges(previous, next))
// to next, which is what the drawing does to the DOM.

import { line, max, min, scaleLinear, type ScaleLinear } from 'd3';

import type { ChartPanel } from '../counterNames';

export interface ChartSeries {
  t: number[];
  values: Record<string, number[]>;
}

/** How a counter is named in tooltips ("system calls"). */
export interface ChartCounterNames {
  [id: string]: { name: string; unit: string } | undefined;
}

/** More samples than this in a series: the line only (and its last point). */
export const MAX_POINT_CIRCLES = 300;
/** At most this many samples: each point's value is written next to it. */
export const LABELLED_POINTS = 3;

export const PLOT_HEIGHT = 112;

/** Numbers as en-US writes them (what toLocaleString('en-US') gives, without making a formatter at each call: that
 *  was most of the chart's own time). */
const EN_US = new Intl.NumberFormat('en-US');

/** 4 significant digits, thousands separated; 12.3k from 10,000. */
export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1e9) return `${Number((v / 1e9).toPrecision(3))}G`;
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  if (a !== 0 && a < 0.001) return v.toExponential(1);
  return EN_US.format(Number(v.toPrecision(a >= 1000 ? 4 : 3)));
}

export function formatTime(t: number): string {
  return `${Number(t.toPrecision(3))} s`;
}

export type Point = [number, number];

/** The defined points of a series. */
export function pointsOf(t: readonly number[], values: readonly number[] | undefined): Point[] {
  const out: Point[] = [];
  if (!values) return out;
  for (let i = 0; i < t.length; i++) {
    const v = values[i];
    if (v !== undefined && Number.isFinite(v) && Number.isFinite(t[i]!)) out.push([t[i]!, v]);
  }
  return out;
}

/**
 * At most two points per pixel column (the lowest and highest, in time
 * order), and the first and last, so a line of thousands of samples stays a
 * short path that looks the same.
 */
export function decimate(points: readonly Point[], x: (t: number) => number): Point[] {
  if (points.length <= 4) return [...points];
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const out: Point[] = [first];
  let column = Number.NaN;
  let lo: Point | null = null;
  let hi: Point | null = null;
  const flush = () => {
    if (!lo || !hi) return;
    const pair = lo === hi ? [lo] : lo[0] <= hi[0] ? [lo, hi] : [hi, lo];
    for (const p of pair) if (p !== first && p !== last) out.push(p);
  };
  for (const p of points) {
    const c = Math.round(x(p[0]));
    if (c !== column) {
      flush();
      column = c;
      lo = hi = p;
    } else {
      if (p[1] < lo![1]) lo = p;
      if (p[1] > hi![1]) hi = p;
    }
  }
  flush();
  out.push(last);
  return out;
}

/** A circle of a line: where, and its tooltip. */
export interface CircleScene {
  cx: number;
  cy: number;
  title: string;
}

/** A point's value written next to it (a short run's line). */
export interface ValueLabel {
  x: number;
  anchor: 'start' | 'end';
  y: number;
  text: string;
}

export interface LineScene {
  id: string;
  /** Its colour's class (series-N). */
  cls: string;
  /** Run A's (dashed, under B's) or the run's own. */
  run: 'a' | 'b';
  /** The line's defined samples. */
  points: Point[];
  /** The path's d (null: fewer than two points, no path). */
  d: string | null;
  /** Whether d was drawn from every point (so that more points extend it). */
  whole: boolean;
  r: number;
  circles: CircleScene[];
  /** The points' values written next to them (run B's, at most LABELLED_POINTS samples), else null. */
  values: ValueLabel[] | null;
}

export interface PanelScene {
  key: string;
  innerW: number;
  xDomain: [number, number];
  yDomain: [number, number];
  /** Run A's lines, then the run's own (the order they are drawn in). */
  lines: LineScene[];
}

export interface ChartScene {
  xDomain: [number, number];
  panels: PanelScene[];
}

/** What a scene is drawn from. */
export interface SceneInput {
  series: ChartSeries;
  /** Run A's series (two runs compared), else null. */
  seriesA: ChartSeries | null;
  panels: ChartPanel[];
  names: ChartCounterNames;
  /** Each panel's plot width (user units). */
  innerW: number;
  colourIndex: (id: string) => number;
}

/** The time axis, shared by all panels. */
export function timeDomain(t: readonly number[], tA: readonly number[], innerW: number): [number, number] {
  const tMin = Math.min(min(t) ?? 0, min(tA) ?? 0);
  const tMax = Math.max(max(t) ?? 1, max(tA) ?? 0);
  const x = scaleLinear().domain([Math.min(0, tMin), tMax > 0 ? tMax : 1]).range([0, innerW]).nice();
  return x.domain() as [number, number];
}

/** A panel's value axis, from every value its lines show. */
export function valueDomain(lines: readonly { points: readonly Point[] }[], axis: string): [number, number] {
  let hi: number | undefined;
  let lo: number | undefined;
  for (const l of lines) {
    for (const p of l.points) {
      if (hi === undefined || p[1] > hi) hi = p[1];
      if (lo === undefined || p[1] < lo) lo = p[1];
    }
  }
  const yMax = hi ?? 1;
  const yMin = Math.min(0, lo ?? 0);
  if (axis.startsWith('%') && yMax <= 100 && yMin >= 0) return [0, 100];
  const y = scaleLinear().domain([yMin, yMax > yMin ? yMax : yMin + 1]).range([PLOT_HEIGHT, 0]).nice();
  return y.domain() as [number, number];
}

export function xScale(domain: [number, number], innerW: number): ScaleLinear<number, number> {
  return scaleLinear().domain(domain).range([0, innerW]);
}

export function yScale(domain: [number, number]): ScaleLinear<number, number> {
  return scaleLinear().domain(domain).range([PLOT_HEIGHT, 0]);
}

function sameDomain(a: readonly number[], b: readonly number[]): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** How many points a and b share from the start (the same times and values). */
function commonPrefix(a: readonly Point[], b: readonly Point[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i]![0] === b[i]![0] && a[i]![1] === b[i]![1]) i++;
  return i;
}

/** The radius of the run's own points, by how many there are. */
function pointRadius(n: number): number {
  return n <= LABELLED_POINTS ? 3.5 : n > MAX_POINT_CIRCLES ? 3 : n > 100 ? 1.8 : 2.6;
}

type Scale = (v: number) => number;

/** A line's scene; `before` (the same line's scene drawn last, or null) is reused where it holds: its circles'
 *  tooltips for the samples it had, and on the same scales (`sameScales`) their places and its path too. */
function lineScene(
  id: string, cls: string, run: 'a' | 'b', points: Point[], names: ChartCounterNames, innerW: number, x: Scale, y: Scale,
  before: LineScene | null, sameScales: boolean,
): LineScene {
  const n = points.length;
  const kept = before ? commonPrefix(before.points, points) : 0;
  // The path: extended from the one before when that was drawn from every point and all its points are still there.
  let d: string | null = null;
  let whole = false;
  if (n > 1) {
    whole = !(n > 2 * innerW);
    const path = line<Point>().x((p) => x(p[0])).y((p) => y(p[1]));
    if (sameScales && whole && before?.whole && before.d !== null && kept === before.points.length) {
      // Each point's coordinates are written independently of the others: the new points' segments (after the
      // last kept point's move-to) appended.
      if (kept === n) d = before.d;
      else {
        const tail = path(points.slice(kept - 1)) ?? '';
        d = before.d + tail.slice(tail.indexOf('L'));
      }
    } else {
      d = path(whole ? points : decimate(points, x)) ?? '';
    }
  }
  const name = names[id]?.name ?? id;
  const unit = names[id]?.unit ?? '';
  const circle = (p: Point): CircleScene => ({
    cx: x(p[0]),
    cy: y(p[1]),
    title: run === 'a'
      ? `A: ${name}: ${formatValue(p[1])} ${unit} at ${formatTime(p[0])}`
      : `${name}: ${formatValue(p[1])} ${unit} at ${formatTime(p[0])}`,
  });
  let circles: CircleScene[];
  if (n > MAX_POINT_CIRCLES) circles = n > 0 ? [circle(points[n - 1]!)] : [];
  else {
    const reuse = before && before.points.length <= MAX_POINT_CIRCLES ? kept : 0;
    const old = before ? before.circles.slice(0, reuse) : [];
    circles = [
      ...(sameScales ? old : old.map((c, i): CircleScene => ({ cx: x(points[i]![0]), cy: y(points[i]![1]), title: c.title }))),
      ...points.slice(reuse).map(circle),
    ];
  }
  const values = run === 'b' && n <= LABELLED_POINTS && n > 0
    ? points.map((p): ValueLabel => {
      const px = x(p[0]);
      const right = px > innerW - 40;
      return { x: px + (right ? -6 : 6), anchor: right ? 'end' : 'start', y: Math.max(9, y(p[1]) - 6), text: formatValue(p[1]) };
    })
    : null;
  return { id, cls, run, points, d, whole, r: run === 'a' ? 1.8 : pointRadius(n), circles, values };
}

/**
 * The chart's scene for `input`; where `previous` (the scene drawn last, of the same panels at the same width)
 * still holds, its paths are extended and its circles kept rather than worked out again.  The result is the same
 * as sceneOf(input) either way.
 */
export function nextScene(previous: ChartScene | null, input: SceneInput): ChartScene {
  const { series, seriesA, panels, names, innerW, colourIndex } = input;
  const xDomain = timeDomain(series.t, seriesA?.t ?? [], innerW);
  const x = xScale(xDomain, innerW);
  const xSame = previous !== null && sameDomain(previous.xDomain, xDomain);
  return {
    xDomain,
    panels: panels.map((panel, p) => {
      const cls = (id: string) => `series-${colourIndex(id) % 10}`;
      const ownPoints = panel.ids.map((id) => pointsOf(series.t, series.values[id]));
      const aPoints = seriesA ? panel.ids.map((id) => pointsOf(seriesA.t, seriesA.values[id])) : [];
      const yDomain = valueDomain([...ownPoints, ...aPoints].map((points) => ({ points })), panel.axis);
      const y = yScale(yDomain);
      const old = previous?.panels[p];
      const reusable = old !== undefined && old.key === panel.key && old.innerW === innerW;
      const sameScales = reusable && xSame && sameDomain(old.yDomain, yDomain);
      const lineOf = (run: 'a' | 'b', points: Point[], i: number) => {
        const id = panel.ids[i]!;
        const before = (reusable ? old.lines.find((l) => l.run === run && l.id === id && l.cls === cls(id)) : undefined) ?? null;
        return lineScene(id, cls(id), run, points, names, innerW, x, y, before, sameScales);
      };
      const lines = [...aPoints.map((points, i) => lineOf('a', points, i)), ...ownPoints.map((points, i) => lineOf('b', points, i))];
      return { key: panel.key, innerW, xDomain, yDomain, lines };
    }),
  };
}

/** The chart's scene for `input`, worked out whole. */
export function sceneOf(input: SceneInput): ChartScene {
  return nextScene(null, input);
}

// ---------------------------------------------------------------- what to change in a drawing

/** What drawing a line's scene over its previous one changes. */
export interface LineChanges {
  /** The line's elements are made again (a path or the values appeared or went, or its colour changed). */
  remake: boolean;
  /** The path's new d, when it changed (and the line is not remade). */
  d?: string;
  /** The circles' new radius, when it changed. */
  r?: number;
  /** Circles kept whose position or tooltip changed: [index, circle]. */
  changed: [number, CircleScene][];
  /** Circles from this index on are gone (the circles before it kept or changed in place). */
  removeFrom: number;
  /** New circles, after the kept ones. */
  added: CircleScene[];
  /** The values written next to the points changed (made again). */
  values: boolean;
}

export interface PanelChanges {
  /** The time axis changed (drawn again). */
  xAxis: boolean;
  /** The value axis and its grid changed (drawn again). */
  yAxis: boolean;
  /** A line was added or went: all of the panel's lines are made again. */
  remakeLines: boolean;
  lines: LineChanges[];
}

function sameCircle(a: CircleScene, b: CircleScene): boolean {
  return a.cx === b.cx && a.cy === b.cy && a.title === b.title;
}

function sameValues(a: ValueLabel[] | null, b: ValueLabel[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((v, i) => v.x === b[i]!.x && v.y === b[i]!.y && v.anchor === b[i]!.anchor && v.text === b[i]!.text);
}

export function lineChanges(before: LineScene, after: LineScene): LineChanges {
  // A line without points has no elements; one with a single point no path.
  const remake = before.cls !== after.cls || before.run !== after.run || before.id !== after.id ||
    (before.points.length === 0) !== (after.points.length === 0) || (before.d === null) !== (after.d === null) ||
    (before.values === null) !== (after.values === null);
  const shared = Math.min(before.circles.length, after.circles.length);
  const changed: [number, CircleScene][] = [];
  for (let i = 0; i < shared; i++) if (!sameCircle(before.circles[i]!, after.circles[i]!)) changed.push([i, after.circles[i]!]);
  return {
    remake,
    ...(after.d !== null && after.d !== before.d ? { d: after.d } : {}),
    ...(after.r !== before.r ? { r: after.r } : {}),
    changed,
    removeFrom: shared,
    added: after.circles.slice(shared),
    values: !sameValues(before.values, after.values),
  };
}

/** What drawing `after` over `before` (a scene of the same panels, at the same width) changes, panel by panel. */
export function sceneChanges(before: ChartScene, after: ChartScene): PanelChanges[] {
  const xAxis = !sameDomain(before.xDomain, after.xDomain);
  return after.panels.map((panel, p) => {
    const old = before.panels[p]!;
    const remakeLines = old.lines.length !== panel.lines.length;
    return {
      xAxis,
      yAxis: !sameDomain(old.yDomain, panel.yDomain),
      remakeLines,
      lines: remakeLines ? [] : panel.lines.map((l, i) => lineChanges(old.lines[i]!, l)),
    };
  });
}

/**
 * `before` with `changes` made to it, as the drawing makes them to its elements: what it then shows.  (The
 * drawing takes a remade line, or panel's lines, from the new scene; the tests check that the rest comes out as
 * the new scene too.)
 */
export function applyChanges(before: ChartScene, changes: PanelChanges[], after: ChartScene): ChartScene {
  return {
    xDomain: changes.some((c) => c.xAxis) ? after.xDomain : before.xDomain,
    panels: after.panels.map((panel, p) => {
      const old = before.panels[p]!;
      const c = changes[p]!;
      const lines = c.remakeLines ? panel.lines : old.lines.map((l, i) => {
        const lc = c.lines[i]!;
        if (lc.remake) return panel.lines[i]!;
        const circles = l.circles.slice(0, lc.removeFrom);
        for (const [k, circle] of lc.changed) circles[k] = circle;
        return {
          ...l,
          points: panel.lines[i]!.points,
          whole: panel.lines[i]!.whole,
          d: lc.d ?? l.d,
          r: lc.r ?? l.r,
          circles: [...circles, ...lc.added],
          values: lc.values ? panel.lines[i]!.values : l.values,
        };
      });
      return { ...old, xDomain: c.xAxis ? panel.xDomain : old.xDomain, yDomain: c.yAxis ? panel.yDomain : old.yDomain, lines };
    }),
  };
}
