// The counter chart: one SVG with a small panel per quantity (chartPanels in
// counterNames.ts: a counter each, or one group's percentages together), laid
// out in a grid, all on virtual seconds since the row's command started.
// Every panel says what it shows and its unit over the plot and on its y axis.
//
// Points: a circle (class "point") per sample up to MAX_POINT_CIRCLES samples
// of a series, with the value written next to each when there are at most
// LABELLED_POINTS (a short run); beyond that the line alone, drawn from at
// most two points per pixel column (min and max), and one circle at the last
// sample.  Hovering a panel shows the values at the nearest sample.
// Colours come from CSS classes series-0 … series-9, so both themes restyle it.
//
// Two runs compared: each panel also draws run A's series (its aligned row)
// over B's, dashed (class run-a, its points circle.point-a), both on the same
// axes, and the panel's heading says which line is which.

import { axisBottom, axisLeft, bisector, line, max, min, pointer, scaleLinear, select, type Selection } from 'd3';

import type { ChartPanel } from '../counterNames';

export interface ChartSeries {
  t: number[];
  values: Record<string, number[]>;
}

/** Run A's series drawn over B's (two runs compared). */
export interface ChartComparison {
  series: ChartSeries | null;
  /** "A: nchsize=0", "B: nchsize=154 (GENERIC)". */
  labelA: string;
  labelB: string;
}

/** How a counter is named in tooltips ("system calls"). */
export interface ChartCounterNames {
  [id: string]: { name: string; unit: string } | undefined;
}

/** More samples than this in a series: the line only (and its last point). */
export const MAX_POINT_CIRCLES = 300;
/** At most this many samples: each point's value is written next to it. */
export const LABELLED_POINTS = 3;

const M = { top: 40, right: 14, bottom: 36, left: 50 };
const PLOT_HEIGHT = 112;
const PANEL_HEIGHT = M.top + PLOT_HEIGHT + M.bottom;
const GAP_X = 18;
const GAP_Y = 10;
const MIN_PANEL_WIDTH = 250;

export function counterChartLayout(panels: number, width: number): { cols: number; rows: number; panelWidth: number; height: number } {
  const fit = Math.max(1, Math.min(panels, 3, Math.floor((width + GAP_X) / (MIN_PANEL_WIDTH + GAP_X))));
  const rows = Math.max(1, Math.ceil(panels / fit));
  // As few columns as the rows need: 4 panels are 2 × 2, not 3 + 1.
  const cols = Math.max(1, Math.ceil(panels / rows));
  const panelWidth = (width - (cols - 1) * GAP_X) / cols;
  return { cols, rows, panelWidth, height: rows * PANEL_HEIGHT + (rows - 1) * GAP_Y };
}

/** 4 significant digits, thousands separated; 12.3k from 10,000. */
export function formatValue(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1e9) return `${Number((v / 1e9).toPrecision(3))}G`;
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e4) return `${Number((v / 1e3).toPrecision(3))}k`;
  if (a !== 0 && a < 0.001) return v.toExponential(1);
  return Number(v.toPrecision(a >= 1000 ? 4 : 3)).toLocaleString('en-US');
}

function formatTime(t: number): string {
  return `${Number(t.toPrecision(3))} s`;
}

type Point = [number, number];

/** The defined points of a series. */
function pointsOf(t: readonly number[], values: readonly number[] | undefined): Point[] {
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

/**
 * Widths of texts measured (user units), by the font they are set in and the text.  A live chart is drawn again
 * several times a second with the same headings and legends, and measuring a text in an SVG just rebuilt makes the
 * browser work out the page's style and layout there and then, once per text (it was a tenth of the page's work while
 * a run went).  The chart's fonts are fixed per class (style.css), so a width once measured stands; a text not laid
 * out (a chart not shown) measures 0 and is not kept.
 */
const textWidths = new Map<string, number>();
/** Enough for every heading and legend of every counter at many widths; the cache starts again beyond it. */
const TEXT_WIDTHS_KEPT = 4000;

/** The width of `text` in `node`'s font (`font`: the node's class, which sets it), setting node's text to it when it
 *  has to be measured. */
function textWidth(node: SVGTextElement, font: string, text: string): number {
  const key = `${font}\n${text}`;
  const known = textWidths.get(key);
  if (known !== undefined) return known;
  node.textContent = text;
  const width = node.getComputedTextLength();
  if (width > 0) {
    if (textWidths.size >= TEXT_WIDTHS_KEPT) textWidths.clear();
    textWidths.set(key, width);
  }
  return width;
}

/** Sets `full` as the text, shortened with an ellipsis (two characters at a time) to fit `width`; the text shown. */
function ellipsize(text: Selection<SVGTextElement, unknown, null, undefined>, full: string, width: number, font: string): string {
  const node = text.node();
  if (!node || typeof node.getComputedTextLength !== 'function') return full;
  let s = full;
  let shown = full;
  while (s.length > 4 && textWidth(node, font, shown) > width) {
    s = s.slice(0, -2);
    shown = `${s.trimEnd()}…`;
  }
  text.text(shown);
  if (s !== full) text.append('title').text(full);
  return shown;
}

/** A legend's text width (its own font: .legend text), or an estimate where texts cannot be measured. */
function legendWidth(text: Selection<SVGTextElement, unknown, null, undefined>, shown: string): number {
  const node = text.node();
  return (node && typeof node.getComputedTextLength === 'function' ? textWidth(node, 'legend', shown) : 0) || shown.length * 6.2;
}

/** Draws (replaces) the chart in svg.  colourIndex: a stable colour per counter id. */
export function renderCounterChart(
  svgElement: SVGSVGElement,
  series: ChartSeries | null,
  panels: ChartPanel[],
  names: ChartCounterNames,
  width: number,
  colourIndex: (id: string) => number,
  emptyText: string,
  compare: ChartComparison | null = null,
): void {
  const svg = select(svgElement);
  svg.selectAll('*').remove();
  const t = series?.t ?? [];
  const empty = t.length === 0 || panels.length === 0;
  const layout = counterChartLayout(panels.length, width);
  const height = empty ? 96 : layout.height;
  svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
  svg.append('rect').attr('class', 'chart-bg').attr('width', width).attr('height', height);
  if (empty) {
    svg.append('text').attr('class', 'chart-empty').attr('x', width / 2).attr('y', height / 2 + 4)
      .attr('text-anchor', 'middle').text(panels.length === 0 ? 'Choose counters to plot.' : emptyText);
    return;
  }

  const innerW = Math.max(40, layout.panelWidth - M.left - M.right);
  const tA = compare?.series?.t ?? [];
  const tMin = Math.min(min(t) ?? 0, min(tA) ?? 0);
  const tMax = Math.max(max(t) ?? 1, max(tA) ?? 0);
  const x = scaleLinear().domain([Math.min(0, tMin), tMax > 0 ? tMax : 1]).range([0, innerW]).nice();
  const byTime = bisector((d: number) => d).center;

  panels.forEach((panel, p) => {
    const col = p % layout.cols;
    const row = Math.floor(p / layout.cols);
    const left = col * (layout.panelWidth + GAP_X);
    const top = row * (PANEL_HEIGHT + GAP_Y);
    const g = svg.append('g').attr('class', 'panel').attr('data-panel', panel.key)
      .attr('transform', `translate(${left + M.left},${top + M.top})`);

    const lines = panel.ids.map((id) => ({ id, cls: `series-${colourIndex(id) % 10}`, points: pointsOf(t, series!.values[id]) }));
    const linesA = compare?.series ? panel.ids.map((id) => ({ id, cls: `series-${colourIndex(id) % 10}`, points: pointsOf(tA, compare.series!.values[id]) })) : [];
    const all = [...lines, ...linesA].flatMap((l) => l.points.map((d) => d[1]));
    const yMax = max(all) ?? 1;
    const yMin = Math.min(0, min(all) ?? 0);
    const y = scaleLinear().domain([yMin, yMax > yMin ? yMax : yMin + 1]).range([PLOT_HEIGHT, 0]).nice();
    if (panel.axis.startsWith('%') && yMax <= 100 && yMin >= 0) y.domain([0, 100]);

    // Heading: what it is and the unit; then where vmstat shows it, or a shared panel's legend.
    const heading = g.append('g').attr('class', 'panel-heading').attr('transform', `translate(${-M.left + 2},0)`);
    let hx = 0;
    if (panel.ids.length === 1) {
      heading.append('rect').attr('class', `swatch-line ${lines[0]!.cls}`).attr('x', 0).attr('y', -31).attr('width', 12)
        .attr('height', 3).attr('rx', 1);
      hx = 17;
    }
    const h1 = heading.append('text').attr('class', 'axis-label panel-title').attr('x', hx).attr('y', -26);
    ellipsize(h1, panel.heading, layout.panelWidth - hx - 4, 'panel-title');
    if (compare) {
      // Which line is which run: B solid, A dashed.
      const legend = heading.append('g').attr('class', 'legend run-legend').attr('transform', 'translate(0,-12)');
      let lx = 0;
      for (const [label, run] of [[compare.labelB, 'b'], [compare.labelA, 'a']] as const) {
        const item = legend.append('g').attr('transform', `translate(${lx},0)`);
        item.append('line').attr('class', `series run-${run} ${lines[0]!.cls}`).attr('x1', 0).attr('x2', 16).attr('y1', -4).attr('y2', -4);
        const text = item.append('text').attr('x', 20).attr('y', 0);
        const shown = ellipsize(text, label, (layout.panelWidth - 40) / 2 - 24, 'legend');
        lx += 28 + Math.min((layout.panelWidth - 40) / 2 - 24, legendWidth(text, shown));
      }
    } else if (panel.ids.length === 1) {
      const h2 = heading.append('text').attr('class', 'panel-source').attr('x', hx).attr('y', -12);
      ellipsize(h2, panel.source, layout.panelWidth - hx - 4, 'panel-source');
    } else {
      const legend = heading.append('g').attr('class', 'legend').attr('transform', 'translate(0,-12)');
      let lx = 0;
      lines.forEach((l, i) => {
        const item = legend.append('g').attr('transform', `translate(${lx},0)`);
        item.append('rect').attr('class', `swatch-line ${l.cls}`).attr('x', 0).attr('y', -5).attr('width', 12).attr('height', 3).attr('rx', 1);
        const label = panel.legend[i] ?? l.id;
        const text = item.append('text').attr('x', 16).attr('y', 0).text(label);
        lx += 26 + legendWidth(text, label);
      });
    }

    // Under everything: catches the pointer over the plot's empty parts (hover, below).
    g.append('rect').attr('class', 'hover-area').attr('width', innerW).attr('height', PLOT_HEIGHT);
    g.append('g').attr('class', 'grid').call(axisLeft(y).ticks(4).tickSize(-innerW).tickFormat(() => ''));
    g.append('g').attr('class', 'axis x-axis').attr('transform', `translate(0,${PLOT_HEIGHT})`)
      .call(axisBottom(x).ticks(Math.max(2, Math.floor(innerW / 70))).tickFormat((v) => String(Number(Number(v).toPrecision(3)))));
    g.append('g').attr('class', 'axis y-axis').call(axisLeft(y).ticks(4).tickFormat((v) => formatValue(Number(v))));
    g.append('text').attr('class', 'axis-unit').attr('x', innerW).attr('y', PLOT_HEIGHT + 31).attr('text-anchor', 'end')
      .text('virtual time since the command started (s)');
    g.append('text').attr('class', 'axis-unit').attr('transform', `translate(${-M.left + 11},${PLOT_HEIGHT / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle').text(panel.axis);

    // Run A under B: dashed, its points small and hollow.
    for (const l of linesA) {
      const n = l.points.length;
      if (n === 0) continue;
      const name = names[l.id]?.name ?? l.id;
      if (n > 1) {
        const drawn = n > 2 * innerW ? decimate(l.points, x) : l.points;
        const path = line<Point>().x((d) => x(d[0])).y((d) => y(d[1]));
        g.append('path').attr('class', `series run-a ${l.cls}`).attr('data-counter', l.id).attr('data-run', 'a').attr('d', path(drawn) ?? '');
      }
      const circles = n <= MAX_POINT_CIRCLES ? l.points : [l.points[n - 1]!];
      g.append('g').attr('class', `points run-a ${l.cls}`).selectAll('circle').data(circles).join('circle')
        .attr('class', `point-a series-dot run-a ${l.cls}`).attr('data-counter', l.id)
        .attr('cx', (d) => x(d[0])).attr('cy', (d) => y(d[1])).attr('r', 1.8)
        .append('title').text((d) => `A: ${name}: ${formatValue(d[1])} ${names[l.id]?.unit ?? ''} at ${formatTime(d[0])}`);
    }
    for (const l of lines) {
      const n = l.points.length;
      if (n === 0) continue;
      const name = names[l.id]?.name ?? l.id;
      const unit = names[l.id]?.unit ?? '';
      if (n > 1) {
        const drawn = n > 2 * innerW ? decimate(l.points, x) : l.points;
        const path = line<Point>().x((d) => x(d[0])).y((d) => y(d[1]));
        g.append('path').attr('class', `series ${l.cls}`).attr('data-counter', l.id).attr('d', path(drawn) ?? '');
      }
      const circles = n <= MAX_POINT_CIRCLES ? l.points : [l.points[n - 1]!];
      const r = n <= LABELLED_POINTS ? 3.5 : n > MAX_POINT_CIRCLES ? 3 : n > 100 ? 1.8 : 2.6;
      const dots = g.append('g').attr('class', `points ${l.cls}`).selectAll('circle').data(circles).join('circle')
        .attr('class', `point series-dot ${l.cls}`).attr('data-counter', l.id)
        .attr('cx', (d) => x(d[0])).attr('cy', (d) => y(d[1])).attr('r', r);
      dots.append('title').text((d) => `${name}: ${formatValue(d[1])} ${unit} at ${formatTime(d[0])}`);
      if (n <= LABELLED_POINTS) {
        g.append('g').attr('class', 'point-values').selectAll('text').data(l.points).join('text')
          .attr('class', 'point-value')
          .attr('x', (d) => x(d[0]) + (x(d[0]) > innerW - 40 ? -6 : 6))
          .attr('text-anchor', (d) => (x(d[0]) > innerW - 40 ? 'end' : 'start'))
          .attr('y', (d) => Math.max(9, y(d[1]) - 6))
          .text((d) => formatValue(d[1]));
      }
    }

    // Hover: the values at the nearest sample.
    const focus = g.append('g').attr('class', 'hover').style('display', 'none');
    focus.append('line').attr('class', 'hover-rule').attr('y1', 0).attr('y2', PLOT_HEIGHT);
    const marks = lines.map((l) => focus.append('circle').attr('class', `hover-dot ${l.cls}`).attr('r', 3.5));
    const box = focus.append('g').attr('class', 'hover-box');
    const boxBg = box.append('rect').attr('rx', 3);
    const boxText = box.append('text');
    g.on('pointerleave', () => focus.style('display', 'none'))
      .on('pointermove', (event: PointerEvent) => {
        const [px, py] = pointer(event, g.node());
        if (px < 0 || px > innerW || py < 0 || py > PLOT_HEIGHT) {
          focus.style('display', 'none');
          return;
        }
        const i = byTime(t, x.invert(px));
        const ti = t[i];
        if (ti === undefined) return;
        focus.style('display', 'inline');
        const fx = x(ti);
        focus.select('.hover-rule').attr('x1', fx).attr('x2', fx);
        const texts: string[] = [formatTime(ti)];
        lines.forEach((l, k) => {
          const v = series!.values[l.id]?.[i];
          const ok = v !== undefined && Number.isFinite(v);
          marks[k]!.style('display', ok ? 'inline' : 'none').attr('cx', fx).attr('cy', ok ? y(v) : 0);
          const label = panel.ids.length > 1 ? `${panel.legend[k] ?? l.id}: ` : '';
          const unit = panel.ids.length > 1 ? '%' : (names[l.id]?.unit ?? '');
          texts.push(`${compare ? 'B ' : ''}${label}${ok ? formatValue(v) : '–'} ${unit}`.trim());
          if (compare?.series) {
            // A's value at the same time since its command started (its nearest sample).
            const ia = byTime(tA, ti);
            const va = compare.series.values[l.id]?.[ia];
            texts.push(`A ${label}${va !== undefined && Number.isFinite(va) ? formatValue(va) : '–'} ${unit}`.trim());
          }
        });
        boxText.selectAll('tspan').data(texts).join('tspan').attr('x', 6).attr('dy', (_d, j) => (j === 0 ? '1.1em' : '1.2em'))
          .attr('class', (_d, j) => (j === 0 ? 'hover-time' : null)).text((d) => d);
        const bb = (boxText.node() as SVGTextElement).getBBox();
        boxBg.attr('width', bb.width + 12).attr('height', bb.height + 6);
        const bx = fx + 10 + bb.width + 12 > innerW ? fx - 10 - bb.width - 12 : fx + 10;
        box.attr('transform', `translate(${Math.max(0, bx)},2)`);
      });
  });
}
