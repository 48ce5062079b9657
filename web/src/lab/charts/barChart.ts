// The Results bar chart: for each row a pair of bars, ours and the paper's
// (scaled) elapsed time, with the difference in % above the pair.

import { axisBottom, axisLeft, max, scaleBand, scaleLinear, select } from 'd3';

import { formatSeconds } from '../results';

export interface BarRow {
  test: string;
  ours: number | null;
  /** null: the paper has no figure for this row. */
  paper: number | null;
  percent: number | null;
}

const MARGIN = { top: 34, right: 16, left: 64 };
const HEIGHT = 220;

function labelHeight(rows: BarRow[], rotate: boolean): number {
  const longest = Math.max(...rows.map((r) => r.test.length), 4);
  return rotate ? Math.min(140, longest * 4.4 + 12) : 24;
}

export function renderBarChart(svgElement: SVGSVGElement, rows: BarRow[], width: number, yLabel: string, paperLabel: string): void {
  const svg = select(svgElement);
  svg.selectAll('*').remove();
  const innerW = Math.max(60, width - MARGIN.left - MARGIN.right);
  // At most 140 px per pair: a single row should not be one enormous bar.
  const used = Math.min(innerW, Math.max(1, rows.length) * 140);
  const x = scaleBand<string>().domain(rows.map((r) => r.test)).range([(innerW - used) / 2, (innerW + used) / 2])
    .paddingInner(0.25).paddingOuter(0.1);
  const rotate = x.bandwidth() < Math.max(...rows.map((r) => r.test.length), 4) * 6.5;
  const bottom = labelHeight(rows, rotate) + 26;
  const height = MARGIN.top + HEIGHT + bottom;
  svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
  svg.append('rect').attr('class', 'chart-bg').attr('width', width).attr('height', height);
  if (rows.length === 0) {
    svg.append('text').attr('class', 'chart-empty').attr('x', width / 2).attr('y', height / 2).attr('text-anchor', 'middle')
      .text('No rows.');
    return;
  }

  const inner = scaleBand<'ours' | 'paper'>().domain(['ours', 'paper']).range([0, x.bandwidth()]).padding(0.08);
  const top = max(rows.flatMap((r) => [r.ours ?? 0, r.paper ?? 0])) ?? 1;
  const y = scaleLinear().domain([0, top > 0 ? top * 1.08 : 1]).range([HEIGHT, 0]).nice();
  const g = svg.append('g').attr('transform', `translate(${MARGIN.left},${MARGIN.top})`);

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

  const pair = g.selectAll('g.pair').data(rows).join('g').attr('class', 'pair')
    .attr('transform', (r) => `translate(${x(r.test) ?? 0},0)`);
  for (const which of ['ours', 'paper'] as const) {
    const value = (r: BarRow) => (which === 'ours' ? r.ours : r.paper);
    pair.filter((r) => value(r) !== null).append('rect')
      .attr('class', `bar bar-${which}`)
      .attr('x', inner(which) ?? 0).attr('width', inner.bandwidth())
      .attr('y', (r) => y(value(r) ?? 0))
      .attr('height', (r) => HEIGHT - y(value(r) ?? 0))
      .append('title').text((r) => `${r.test}, ${which === 'ours' ? 'ours' : paperLabel}: ${formatSeconds(value(r) ?? 0)} s`);
  }
  pair.filter((r) => r.ours === null).append('text').attr('class', 'bar-note').attr('x', (inner('ours') ?? 0) + inner.bandwidth() / 2)
    .attr('y', HEIGHT - 4).attr('text-anchor', 'middle').text('×');
  // The figures on the bars when they fit, then the difference in % above the pair.
  const values = inner.bandwidth() >= 30;
  if (values) {
    for (const which of ['ours', 'paper'] as const) {
      const value = (r: BarRow) => (which === 'ours' ? r.ours : r.paper);
      pair.filter((r) => value(r) !== null).append('text').attr('class', 'bar-value')
        .attr('x', (inner(which) ?? 0) + inner.bandwidth() / 2).attr('y', (r) => y(value(r) ?? 0) - 4)
        .attr('text-anchor', 'middle').text((r) => formatSeconds(value(r) ?? 0));
    }
  }
  if (x.bandwidth() >= 26) {
    pair.filter((r) => r.percent !== null).append('text').attr('class', 'bar-value bar-percent').attr('x', x.bandwidth() / 2)
      .attr('y', (r) => y(Math.max(r.ours ?? 0, r.paper ?? 0)) - (values ? 18 : 5)).attr('text-anchor', 'middle')
      .text((r) => `${r.percent! > 0 ? '+' : ''}${r.percent!.toFixed(0)}%`);
  }

  const legend = svg.append('g').attr('class', 'legend').attr('transform', `translate(${MARGIN.left},16)`);
  [['ours', 'ours (emulated)'], ['paper', paperLabel]].forEach(([k, label], i) => {
    const item = legend.append('g').attr('transform', `translate(${i * 140},0)`);
    item.append('rect').attr('class', `bar bar-${k}`).attr('width', 12).attr('height', 12).attr('y', -10);
    item.append('text').attr('x', 18).attr('y', 0).text(label!);
  });
}
