// The Results bar chart, grouped: for each row one bar per series — ours and
// the paper's (scaled) time for one run; A, B and the paper when two runs
// are compared — with a difference in % above the group (ours against the
// paper, or B against A).  Each series' bars have the class bar-KEY
// (bar-ours, bar-paper; bar-a, bar-b), which also gives them their colour.

import { axisBottom, axisLeft, max, scaleBand, scaleLinear, select } from 'd3';

import { formatSeconds } from '../../../../experiments/runner/resultView';

export interface BarSeries {
  /** A CSS-safe key: the bars' class is `bar bar-${key}`. */
  key: string;
  /** The legend's text (shortened in the legend when long; whole in its tooltip). */
  label: string;
}

export interface BarRow {
  test: string;
  /** One value per series, in seconds; null: no bar (a failed row, or no figure in the paper). */
  values: (number | null)[];
  /** Written above the group; null: nothing. */
  percent: number | null;
}

export interface BarData {
  series: BarSeries[];
  rows: BarRow[];
  /** What the % above each group is, for its tooltip (e.g. "ours against the paper"). */
  percentMeaning: string;
  /** The series whose missing value is marked with a × (a failed run): indices. */
  markMissing: number[];
  /** Said at the end of the legend when the % above the groups needs saying (e.g. "% above: B vs A"). */
  percentLegend?: string;
}

const MARGIN = { right: 16, left: 64 };
const HEIGHT = 220;
const LEGEND_TOP = 16;
const LEGEND_LINE = 17;
/** Legend text: about this many pixels per character at 11px. */
const CHAR_PX = 6.3;
const LEGEND_MAX_CHARS = 48;

function labelHeight(rows: BarRow[], rotate: boolean): number {
  const longest = Math.max(...rows.map((r) => r.test.length), 4);
  return rotate ? Math.min(140, longest * 4.4 + 12) : 24;
}

function shorten(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1)).trimEnd()}…`;
}

interface LegendItem { key: string | null; label: string; full: string; x: number; line: number }

/** Legend items laid out left to right, wrapping to another line when the width is used up; a null key is text alone. */
function layoutLegend(series: { key: string | null; label: string }[], width: number): { items: LegendItem[]; lines: number } {
  const avail = Math.max(120, width - MARGIN.left - MARGIN.right);
  const items: LegendItem[] = [];
  let x = 0;
  let line = 0;
  for (const s of series) {
    const swatch = s.key === null ? 0 : 18;
    const label = shorten(s.label, Math.min(LEGEND_MAX_CHARS, Math.floor((avail - swatch) / CHAR_PX)));
    const w = swatch + label.length * CHAR_PX + 18;
    if (x > 0 && x + w > avail) {
      x = 0;
      line++;
    }
    items.push({ key: s.key, label, full: s.label, x, line });
    x += w;
  }
  return { items, lines: line + 1 };
}

export function renderBarChart(svgElement: SVGSVGElement, data: BarData, width: number, yLabel: string): void {
  const { rows, series } = data;
  const svg = select(svgElement);
  svg.selectAll('*').remove();
  const legend = layoutLegend(
    [...series, ...(data.percentLegend && rows.length > 0 ? [{ key: null, label: data.percentLegend }] : [])], width,
  );
  const top = LEGEND_TOP + legend.lines * LEGEND_LINE + 4;
  const innerW = Math.max(60, width - MARGIN.left - MARGIN.right);
  // At most so many px per group: a single row should not be one enormous bar.
  const perGroup = 40 + 50 * Math.max(1, series.length);
  const used = Math.min(innerW, Math.max(1, rows.length) * perGroup);
  const x = scaleBand<string>().domain(rows.map((r) => r.test)).range([(innerW - used) / 2, (innerW + used) / 2])
    .paddingInner(0.25).paddingOuter(0.1);
  const rotate = x.bandwidth() < Math.max(...rows.map((r) => r.test.length), 4) * 6.5;
  const bottom = labelHeight(rows, rotate) + 26;
  const height = top + HEIGHT + bottom;
  svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
  svg.append('rect').attr('class', 'chart-bg').attr('width', width).attr('height', height);
  if (rows.length === 0) {
    svg.append('text').attr('class', 'chart-empty').attr('x', width / 2).attr('y', height / 2).attr('text-anchor', 'middle')
      .text('No rows.');
    return;
  }

  const inner = scaleBand<number>().domain(series.map((_, i) => i)).range([0, x.bandwidth()]).padding(0.08);
  const highest = max(rows.flatMap((r) => r.values.map((v) => v ?? 0))) ?? 1;
  const y = scaleLinear().domain([0, highest > 0 ? highest * 1.08 : 1]).range([HEIGHT, 0]).nice();
  const g = svg.append('g').attr('transform', `translate(${MARGIN.left},${top})`);

  g.append('g').attr('class', 'grid').call(axisLeft(y).ticks(5).tickSize(-innerW).tickFormat(() => ''));
  const xAxis = g.append('g').attr('class', 'axis x-axis').attr('transform', `translate(0,${HEIGHT})`).call(axisBottom(x));
  if (rotate) {
    xAxis.selectAll<SVGTextElement, string>('text').attr('text-anchor', 'end').attr('dx', '-0.5em').attr('dy', '0.3em')
      .attr('transform', 'rotate(-40)');
  }
  g.append('g').attr('class', 'axis y-axis').call(axisLeft(y).ticks(5));
  g.append('text').attr('class', 'axis-label').attr('x', innerW / 2).attr('y', HEIGHT + bottom - 6)
    .attr('text-anchor', 'middle').text('experiment row (test)');
  g.append('text').attr('class', 'axis-label').attr('transform', `translate(-48,${HEIGHT / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle').text(yLabel);

  const group = g.selectAll('g.pair').data(rows).join('g').attr('class', 'pair')
    .attr('transform', (r) => `translate(${x(r.test) ?? 0},0)`);
  // The figures on the bars when they fit, then the difference in % above the group.
  const values = inner.bandwidth() >= 30;
  series.forEach((s, i) => {
    const value = (r: BarRow) => r.values[i] ?? null;
    const has = group.filter((r) => value(r) !== null);
    has.append('rect')
      .attr('class', `bar bar-${s.key}`)
      .attr('x', inner(i) ?? 0).attr('width', inner.bandwidth())
      .attr('y', (r) => y(value(r) ?? 0))
      .attr('height', (r) => HEIGHT - y(value(r) ?? 0))
      .append('title').text((r) => `${r.test}, ${s.label}: ${formatSeconds(value(r) ?? 0)} s`);
    if (values) {
      has.append('text').attr('class', 'bar-value')
        .attr('x', (inner(i) ?? 0) + inner.bandwidth() / 2).attr('y', (r) => y(value(r) ?? 0) - 4)
        .attr('text-anchor', 'middle').text((r) => formatSeconds(value(r) ?? 0));
    }
    if (data.markMissing.includes(i)) {
      group.filter((r) => value(r) === null).append('text').attr('class', 'bar-note')
        .attr('x', (inner(i) ?? 0) + inner.bandwidth() / 2).attr('y', HEIGHT - 4).attr('text-anchor', 'middle').text('×')
        .append('title').text(`${s.label}: no figure (the row failed)`);
    }
  });
  if (x.bandwidth() >= 26) {
    group.filter((r) => r.percent !== null).append('text').attr('class', 'bar-value bar-percent').attr('x', x.bandwidth() / 2)
      .attr('y', (r) => y(Math.max(0, ...r.values.map((v) => v ?? 0))) - (values ? 18 : 5)).attr('text-anchor', 'middle')
      .text((r) => `${r.percent! > 0 ? '+' : ''}${r.percent!.toFixed(0)}%`)
      .append('title').text(`${data.percentMeaning}`);
  }

  const legendG = svg.append('g').attr('class', 'legend').attr('transform', `translate(${MARGIN.left},${LEGEND_TOP})`);
  for (const item of legend.items) {
    const el = legendG.append('g').attr('class', item.key === null ? 'legend-item' : `legend-item legend-${item.key}`)
      .attr('transform', `translate(${item.x},${item.line * LEGEND_LINE})`);
    if (item.key === null) {
      el.append('text').attr('class', 'legend-note').attr('x', 0).attr('y', 0).text(item.label);
      continue;
    }
    el.append('rect').attr('class', `bar bar-${item.key}`).attr('width', 12).attr('height', 12).attr('y', -10);
    el.append('text').attr('x', 18).attr('y', 0).text(item.label);
    if (item.label !== item.full) el.append('title').text(item.full);
  }
}
