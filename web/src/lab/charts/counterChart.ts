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
//
// A live chart is drawn again at each batch of new samples, several times a
// second.  Drawn again with the same panels at the same width, only what the
// plots' scene (counterScene.ts) says has changed is touched: new circles
// appended, a path's d extended, an axis drawn again only when its domain
// moved.  What it shows is what drawing it whole would (the scene's tests).
// A series without samples drawn over such a chart (the next step of a run,
// before its command has run a second) keeps the frame, its plots empty and
// the message over them: the chart is drawn whole once per run, not per step,
// and keeps its height.

import { axisBottom, axisLeft, bisector, pointer, select, type Selection } from 'd3';

import type { ChartPanel } from '../counterNames';
import {
  type ChartCounterNames, type ChartScene, type ChartSeries, type CircleScene, formatTime, formatValue, type LineScene,
  nextScene, PLOT_HEIGHT, sceneChanges, sceneOf, type SceneInput, xScale, yScale,
} from './counterScene';

export { type ChartCounterNames, type ChartSeries, decimate, formatValue, LABELLED_POINTS, MAX_POINT_CIRCLES } from './counterScene';

/** Run A's series drawn over B's (two runs compared). */
export interface ChartComparison {
  series: ChartSeries | null;
  /** "A: nchsize=0", "B: nchsize=154 (GENERIC)". */
  labelA: string;
  labelB: string;
}

const M = { top: 40, right: 14, bottom: 36, left: 50 };
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

type G = Selection<SVGGElement, unknown, null, undefined>;

/** What a panel's hover reads: the data and scales drawn last (they change as a live chart grows). */
interface HoverData {
  series: ChartSeries;
  seriesA: ChartSeries | null;
  x: (t: number) => number;
  xInvert: (px: number) => number;
  y: (v: number) => number;
}

/** A panel as drawn: the elements a later update changes. */
interface DrawnPanel {
  g: G;
  grid: G;
  xAxis: G;
  yAxis: G;
  /** The hover layer, over the lines (they are put before it). */
  hover: G;
  /** Each line's elements (none for a line without points), in the scene's order. */
  lines: Element[][];
  data: HoverData;
}

/** A chart as drawn in an svg, so that the next draw of the same panels at the same width changes only what differs. */
interface DrawnChart {
  /** What the chart's frame (everything but the plots) was drawn from: frameKey(). */
  key: string;
  scene: ChartScene;
  panels: DrawnPanel[];
}

const drawnCharts = new WeakMap<SVGSVGElement, DrawnChart>();

/** Everything the chart's frame depends on (size, panels, headings, legends, colours, names), as one string. */
function frameKey(width: number, panels: ChartPanel[], names: ChartCounterNames, colourIndex: (id: string) => number,
  compare: ChartComparison | null): string {
  return JSON.stringify([
    width,
    panels.map((p) => [p.key, p.heading, p.source, p.axis, p.ids, p.legend, p.ids.map((id) => [colourIndex(id) % 10, names[id] ?? null])]),
    compare ? [compare.labelA, compare.labelB, compare.series !== null] : null,
  ]);
}

/** An axis drawn again from nothing, not over its old ticks: the same elements in the same order as a first draw. */
function drawXAxis(axis: G, innerW: number, domain: [number, number]): void {
  axis.selectAll('*').remove();
  axis.call(axisBottom(xScale(domain, innerW)).ticks(Math.max(2, Math.floor(innerW / 70)))
    .tickFormat((v) => String(Number(Number(v).toPrecision(3)))));
}

function drawYAxis(grid: G, axis: G, innerW: number, domain: [number, number]): void {
  const y = yScale(domain);
  grid.selectAll('*').remove();
  grid.call(axisLeft(y).ticks(4).tickSize(-innerW).tickFormat(() => ''));
  axis.selectAll('*').remove();
  axis.call(axisLeft(y).ticks(4).tickFormat((v) => formatValue(Number(v))));
}

/** A circle of a line and its tooltip. */
function addCircle(points: G, l: LineScene, c: CircleScene): void {
  const circle = points.append('circle')
    .attr('class', l.run === 'a' ? `point-a series-dot run-a ${l.cls}` : `point series-dot ${l.cls}`)
    .attr('data-counter', l.id).attr('cx', c.cx).attr('cy', c.cy).attr('r', l.r);
  circle.append('title').text(c.title);
}

/** A line's elements (path, points, values), put before `before`; none for a line without points. */
function drawLine(g: G, before: Element, l: LineScene): Element[] {
  if (l.points.length === 0) return [];
  const made: Element[] = [];
  if (l.d !== null) {
    const path = g.insert('path', () => before).attr('class', l.run === 'a' ? `series run-a ${l.cls}` : `series ${l.cls}`)
      .attr('data-counter', l.id);
    if (l.run === 'a') path.attr('data-run', 'a');
    made.push(path.attr('d', l.d).node()!);
  }
  const points = g.insert('g', () => before).attr('class', l.run === 'a' ? `points run-a ${l.cls}` : `points ${l.cls}`);
  for (const c of l.circles) addCircle(points, l, c);
  made.push(points.node()!);
  if (l.values) {
    const values = g.insert('g', () => before).attr('class', 'point-values');
    for (const v of l.values) {
      values.append('text').attr('class', 'point-value').attr('x', v.x).attr('text-anchor', v.anchor).attr('y', v.y).text(v.text);
    }
    made.push(values.node()!);
  }
  return made;
}

function drawLines(panel: DrawnPanel, lines: LineScene[]): void {
  for (const els of panel.lines) for (const el of els) el.remove();
  const before = panel.hover.node()!;
  panel.lines = lines.map((l) => drawLine(panel.g, before, l));
}

/** Sets the chart's data in `panel`'s hover and scales. */
function setHoverData(data: HoverData, input: SceneInput, scene: ChartScene, p: number): void {
  const x = xScale(scene.xDomain, input.innerW);
  data.series = input.series;
  data.seriesA = input.seriesA;
  data.x = x;
  data.xInvert = (px) => x.invert(px);
  data.y = yScale(scene.panels[p]!.yDomain);
}

/** Draws `input`'s scene over the chart drawn: only what differs from the scene drawn last. */
function updateChart(drawn: DrawnChart, input: SceneInput): void {
  const next = nextScene(drawn.scene, input);
  const changes = sceneChanges(drawn.scene, next);
  next.panels.forEach((scene, p) => {
    const panel = drawn.panels[p]!;
    const c = changes[p]!;
    if (c.xAxis) drawXAxis(panel.xAxis, scene.innerW, scene.xDomain);
    if (c.yAxis) drawYAxis(panel.grid, panel.yAxis, scene.innerW, scene.yDomain);
    if (c.remakeLines || c.lines.some((lc) => lc.remake || lc.values)) drawLines(panel, scene.lines);
    else {
      scene.lines.forEach((l, i) => {
        const lc = c.lines[i]!;
        const els = panel.lines[i]!;
        if (els.length === 0) return;
        const path = l.d !== null ? select(els[0]!) : null;
        const points = select(els[l.d !== null ? 1 : 0]! as SVGGElement);
        if (lc.d !== undefined) path?.attr('d', lc.d);
        const circles = points.node()!.children;
        const was = drawn.scene.panels[p]!.lines[i]!.circles;
        if (lc.r !== undefined) for (const circle of circles) circle.setAttribute('r', String(lc.r));
        // Straight to the elements (a rescaled axis moves every circle): each attribute only when it changed.
        for (const [k, circle] of lc.changed) {
          const el = circles[k]!;
          const old = was[k]!;
          if (circle.cx !== old.cx) el.setAttribute('cx', String(circle.cx));
          if (circle.cy !== old.cy) el.setAttribute('cy', String(circle.cy));
          if (circle.title !== old.title) el.firstElementChild!.textContent = circle.title;
        }
        while (circles.length > lc.removeFrom) circles[circles.length - 1]!.remove();
        for (const circle of lc.added) addCircle(points, l, circle);
      });
    }
    setHoverData(panel.data, input, next, p);
  });
  drawn.scene = next;
}

/** The message over a drawn chart whose plots are empty (null: none). */
function setOverlay(svgElement: SVGSVGElement, text: string | null, width: number): void {
  const svg = select(svgElement);
  svg.selectAll('text.chart-empty').remove();
  if (text !== null) {
    svg.append('text').attr('class', 'chart-empty').attr('x', width / 2).attr('y', M.top + PLOT_HEIGHT / 2 + 4)
      .attr('text-anchor', 'middle').text(text);
  }
}

/** Draws the chart in svg: whole the first time (or when its panels, width or names change), else only what changed
 *  since it was drawn last (a live chart's new samples).  colourIndex: a stable colour per counter id. */
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
  const t = series?.t ?? [];
  const empty = t.length === 0 || panels.length === 0;
  const layout = counterChartLayout(panels.length, width);
  const innerW = Math.max(40, layout.panelWidth - M.left - M.right);
  const key = frameKey(width, panels, names, colourIndex, compare);
  const drawn = drawnCharts.get(svgElement);
  const sameFrame = !!drawn && drawn.key === key && !!svgElement.firstChild;
  // A series with no samples yet where this frame is drawn (each step of a live run starts an empty one): the frame
  // stays, its plots emptied and the message over them, rather than the chart giving way to the message alone and
  // everything under it moving up, then down again at the step's first samples.
  const keepFrame = empty && sameFrame && series !== null && panels.length > 0;
  const input: SceneInput | null = empty && !keepFrame ? null
    : { series: series!, seriesA: compare?.series ?? null, panels, names, innerW, colourIndex };
  if (input && sameFrame) {
    updateChart(drawn!, input);
    setOverlay(svgElement, empty ? emptyText : null, width);
    // A hover showing the last step's values goes with them.
    if (empty) for (const panel of drawn!.panels) panel.hover.style('display', 'none');
    return;
  }
  drawnCharts.delete(svgElement);

  const svg = select(svgElement);
  svg.selectAll('*').remove();
  const height = empty ? 96 : layout.height;
  svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
  svg.append('rect').attr('class', 'chart-bg').attr('width', width).attr('height', height);
  if (!input) {
    svg.append('text').attr('class', 'chart-empty').attr('x', width / 2).attr('y', height / 2 + 4)
      .attr('text-anchor', 'middle').text(panels.length === 0 ? 'Choose counters to plot.' : emptyText);
    return;
  }

  const scene = sceneOf(input);
  const byTime = bisector((d: number) => d).center;
  const drawnPanels = panels.map((panel, p): DrawnPanel => {
    const col = p % layout.cols;
    const row = Math.floor(p / layout.cols);
    const left = col * (layout.panelWidth + GAP_X);
    const top = row * (PANEL_HEIGHT + GAP_Y);
    const g = svg.append('g').attr('class', 'panel').attr('data-panel', panel.key)
      .attr('transform', `translate(${left + M.left},${top + M.top})`);
    const lineClass = (id: string) => `series-${colourIndex(id) % 10}`;
    const firstClass = lineClass(panel.ids[0]!);

    // Heading: what it is and the unit; then where vmstat shows it, or a shared panel's legend.
    const heading = g.append('g').attr('class', 'panel-heading').attr('transform', `translate(${-M.left + 2},0)`);
    let hx = 0;
    if (panel.ids.length === 1) {
      heading.append('rect').attr('class', `swatch-line ${firstClass}`).attr('x', 0).attr('y', -31).attr('width', 12)
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
        item.append('line').attr('class', `series run-${run} ${firstClass}`).attr('x1', 0).attr('x2', 16).attr('y1', -4).attr('y2', -4);
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
      panel.ids.forEach((id, i) => {
        const item = legend.append('g').attr('transform', `translate(${lx},0)`);
        item.append('rect').attr('class', `swatch-line ${lineClass(id)}`).attr('x', 0).attr('y', -5).attr('width', 12).attr('height', 3).attr('rx', 1);
        const label = panel.legend[i] ?? id;
        const text = item.append('text').attr('x', 16).attr('y', 0).text(label);
        lx += 26 + legendWidth(text, label);
      });
    }

    // Under everything: catches the pointer over the plot's empty parts (hover, below).
    g.append('rect').attr('class', 'hover-area').attr('width', innerW).attr('height', PLOT_HEIGHT);
    const grid = g.append('g').attr('class', 'grid');
    const xAxis = g.append('g').attr('class', 'axis x-axis').attr('transform', `translate(0,${PLOT_HEIGHT})`);
    const yAxis = g.append('g').attr('class', 'axis y-axis');
    g.append('text').attr('class', 'axis-unit').attr('x', innerW).attr('y', PLOT_HEIGHT + 31).attr('text-anchor', 'end')
      .text('virtual time since the command started (s)');
    g.append('text').attr('class', 'axis-unit').attr('transform', `translate(${-M.left + 11},${PLOT_HEIGHT / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle').text(panel.axis);

    // Hover: the values at the nearest sample (of the data drawn last).
    const focus = g.append('g').attr('class', 'hover').style('display', 'none');
    const data = {} as HoverData;
    const drawnPanel: DrawnPanel = { g, grid, xAxis, yAxis, hover: focus, lines: [], data };
    setHoverData(data, input, scene, p);
    drawXAxis(xAxis, innerW, scene.xDomain);
    drawYAxis(grid, yAxis, innerW, scene.panels[p]!.yDomain);
    drawLines(drawnPanel, scene.panels[p]!.lines);

    focus.append('line').attr('class', 'hover-rule').attr('y1', 0).attr('y2', PLOT_HEIGHT);
    const marks = panel.ids.map((id) => focus.append('circle').attr('class', `hover-dot ${lineClass(id)}`).attr('r', 3.5));
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
        const { series: s, seriesA, x, y } = data;
        const i = byTime(s.t, data.xInvert(px));
        const ti = s.t[i];
        if (ti === undefined) {
          // No samples (a live run's next step, its frame kept): nothing to point at.
          focus.style('display', 'none');
          return;
        }
        focus.style('display', 'inline');
        const fx = x(ti);
        focus.select('.hover-rule').attr('x1', fx).attr('x2', fx);
        const texts: string[] = [formatTime(ti)];
        panel.ids.forEach((id, k) => {
          const v = s.values[id]?.[i];
          const ok = v !== undefined && Number.isFinite(v);
          marks[k]!.style('display', ok ? 'inline' : 'none').attr('cx', fx).attr('cy', ok ? y(v) : 0);
          const label = panel.ids.length > 1 ? `${panel.legend[k] ?? id}: ` : '';
          const unit = panel.ids.length > 1 ? '%' : (names[id]?.unit ?? '');
          texts.push(`${compare ? 'B ' : ''}${label}${ok ? formatValue(v) : '–'} ${unit}`.trim());
          if (seriesA) {
            // A's value at the same time since its command started (its nearest sample).
            const ia = byTime(seriesA.t, ti);
            const va = seriesA.values[id]?.[ia];
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
    return drawnPanel;
  });
  drawnCharts.set(svgElement, { key, scene, panels: drawnPanels });
}
