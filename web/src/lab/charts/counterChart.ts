// The live counter chart: one SVG with a panel per unit (counters that share
// a unit share a y axis), all on the same x axis of virtual seconds; a line
// per counter with a circle (class "point") at each sample.  Colours come
// from CSS classes series-0 … series-9, so both themes restyle it.

import { axisBottom, axisLeft, extent, line, max, scaleLinear, select } from 'd3';

export interface ChartCounter {
  id: string;
  /** As the legend shows it (unique among the counters drawn). */
  label: string;
  unit: string;
  /** vmstat's group (faults, cpu, paging, ...). */
  group?: string;
  description?: string;
}

export interface ChartSeries {
  t: number[];
  values: Record<string, number[]>;
}

const MARGIN = { top: 30, right: 18, bottom: 42, left: 64 };
const PANEL_HEIGHT = 150;
const PANEL_GAP = 16;

export function counterChartHeight(units: number): number {
  return Math.max(1, units) * (PANEL_HEIGHT + MARGIN.top + MARGIN.bottom) + Math.max(0, units - 1) * PANEL_GAP;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a !== 0 && (a < 0.01 || a >= 1e6)) return v.toExponential(2);
  return Number(v.toPrecision(4)).toLocaleString('en-US');
}

/** Draws (replaces) the chart in svg.  colourIndex: a stable colour per counter id. */
export function renderCounterChart(
  svgElement: SVGSVGElement,
  series: ChartSeries | null,
  counters: ChartCounter[],
  width: number,
  colourIndex: (id: string) => number,
  emptyText: string,
): void {
  const units = [...new Set(counters.map((c) => c.unit))];
  const empty = (series?.t.length ?? 0) === 0 || counters.length === 0;
  const height = empty ? 120 : counterChartHeight(units.length);
  const svg = select(svgElement);
  svg.selectAll('*').remove();
  svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
  svg.append('rect').attr('class', 'chart-bg').attr('width', width).attr('height', height);

  const innerW = Math.max(50, width - MARGIN.left - MARGIN.right);
  const t = series?.t ?? [];
  if (empty) {
    svg.append('text').attr('class', 'chart-empty').attr('x', width / 2).attr('y', height / 2)
      .attr('text-anchor', 'middle').text(counters.length === 0 ? 'Choose counters to plot.' : emptyText);
    return;
  }
  const [t0, t1] = extent(t) as [number, number];
  const x = scaleLinear().domain([Math.min(0, t0), t1 > 0 ? t1 : 1]).range([0, innerW]).nice();

  units.forEach((unit, p) => {
    const inUnit = counters.filter((c) => c.unit === unit);
    const top = p * (PANEL_HEIGHT + MARGIN.top + MARGIN.bottom + PANEL_GAP) + MARGIN.top;
    const g = svg.append('g').attr('class', 'panel').attr('transform', `translate(${MARGIN.left},${top})`);
    const all = inUnit.flatMap((c) => (series!.values[c.id] ?? []).filter((v) => Number.isFinite(v)));
    const yMax = max(all) ?? 1;
    const y = scaleLinear().domain([Math.min(0, ...all), yMax > 0 ? yMax : 1]).range([PANEL_HEIGHT, 0]).nice();

    g.append('g').attr('class', 'grid').call(axisLeft(y).ticks(4).tickSize(-innerW).tickFormat(() => ''));
    g.append('g').attr('class', 'axis x-axis').attr('transform', `translate(0,${PANEL_HEIGHT})`)
      .call(axisBottom(x).ticks(Math.max(2, Math.floor(innerW / 80))));
    g.append('g').attr('class', 'axis y-axis').call(axisLeft(y).ticks(4).tickFormat((v) => fmt(Number(v))));
    g.append('text').attr('class', 'axis-label').attr('x', innerW / 2).attr('y', PANEL_HEIGHT + 34)
      .attr('text-anchor', 'middle').text('virtual time since the command started (s)');
    const groups = [...new Set(inUnit.map((c) => c.group).filter(Boolean))];
    g.append('text').attr('class', 'axis-label').attr('transform', `translate(${-50},${PANEL_HEIGHT / 2}) rotate(-90)`)
      .attr('text-anchor', 'middle').text(groups.length === 1 ? `${groups[0]} (${unit})` : unit);

    // Legend across the panel's top.
    const legend = g.append('g').attr('class', 'legend').attr('transform', 'translate(0,-12)');
    let lx = 0;
    for (const c of inUnit) {
      const item = legend.append('g').attr('transform', `translate(${lx},0)`);
      item.append('line').attr('class', `series series-${colourIndex(c.id) % 10}`).attr('x1', 0).attr('x2', 16)
        .attr('y1', -4).attr('y2', -4);
      item.append('circle').attr('class', `series-dot series-${colourIndex(c.id) % 10}`).attr('cx', 8).attr('cy', -4).attr('r', 2.5);
      const text = item.append('text').attr('x', 20).attr('y', 0).text(c.label);
      lx += 28 + (text.node()?.getComputedTextLength?.() || c.label.length * 7);
    }

    for (const c of inUnit) {
      const values = series!.values[c.id] ?? [];
      const points = t.map((tv, i) => [tv, values[i] ?? Number.NaN] as [number, number]).filter(([, v]) => Number.isFinite(v));
      const cls = `series-${colourIndex(c.id) % 10}`;
      const path = line<[number, number]>().x((d) => x(d[0])).y((d) => y(d[1]));
      g.append('path').attr('class', `series ${cls}`).attr('data-counter', c.id).attr('d', path(points) ?? '');
      g.append('g').attr('class', `points ${cls}`).selectAll('circle').data(points).join('circle')
        .attr('class', `point series-dot ${cls}`).attr('data-counter', c.id)
        .attr('cx', (d) => x(d[0])).attr('cy', (d) => y(d[1])).attr('r', 2.5)
        .append('title').text((d) => `${c.label}: ${fmt(d[1])} ${unit} at ${fmt(d[0])} s`);
    }
  });
}
