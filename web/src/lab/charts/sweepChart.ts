// A sweep's line chart: a measure (elapsed time, hit rate, faults...)
// against the first setting's values, one line per row of the experiment
// (and per value of the second setting), the paper's figures as hollow
// diamonds where the paper's machine and kernel are among the points, a ×
// at the foot of the chart where a point failed or did not run.  Lines have
// the classes of the counter charts' series (series-N), so their colours.

import { axisBottom, axisLeft, line, max, min, scaleLinear, scalePoint, select, symbol, symbolDiamond } from 'd3';

import { formatMeasure, type SweepChart } from '../../../../experiments/runner/sweepView';

const MARGIN = { top: 14, right: 20, bottom: 44, left: 70 };
const PLOT_HEIGHT = 240;
const LEGEND_LINE = 17;
const CHAR_PX = 6.3;

export function renderSweepChart(svgElement: SVGSVGElement, chart: SweepChart, width: number): void {
  const svg = select(svgElement);
  svg.selectAll('*').remove();
  const innerW = Math.max(80, width - MARGIN.left - MARGIN.right);
  // The legend: one item per line, then the paper's marker, wrapped to the width.
  const items: { label: string; cls: string | null; x: number; row: number }[] = [];
  let lx = 0;
  let row = 0;
  const legendItems = [
    ...chart.lines.map((l, i) => ({ label: l.label || chart.measure.label, cls: `series-${i % 10}` })),
    ...(chart.lines.some((l) => l.paper.length > 0) ? [{ label: 'the paper', cls: null }] : []),
  ];
  for (const it of legendItems) {
    const w = 18 + it.label.length * CHAR_PX + 16;
    if (lx > 0 && lx + w > innerW) {
      lx = 0;
      row++;
    }
    items.push({ ...it, x: lx, row });
    lx += w;
  }
  const legendHeight = (row + 1) * LEGEND_LINE + 6;
  const top = MARGIN.top + legendHeight;
  const height = top + PLOT_HEIGHT + MARGIN.bottom;
  svg.attr('width', width).attr('height', height).attr('viewBox', `0 0 ${width} ${height}`);
  svg.append('rect').attr('class', 'chart-bg').attr('width', width).attr('height', height);

  const xs = chart.x.values;
  const labelOf = (v: number) => chart.x.labels[xs.indexOf(v)] ?? String(v);
  const point = scalePoint<string>().domain(chart.x.labels).range([0, innerW]).padding(0.3);
  const lo = min(xs) ?? 0;
  const hi = max(xs) ?? 1;
  const linear = scaleLinear().domain(lo === hi ? [lo - 1, hi + 1] : [lo, hi]).range([0, innerW]).nice();
  const xOf = (v: number) => (chart.categorical ? (point(labelOf(v)) ?? 0) : linear(v));
  const ys = chart.lines.flatMap((l) => [...l.points.map((p) => p.y ?? 0), ...l.paper.map((p) => p.y)]);
  const top_ = max(ys) ?? 1;
  const y = scaleLinear().domain([0, top_ > 0 ? top_ * 1.08 : 1]).range([PLOT_HEIGHT, 0]).nice();

  const g = svg.append('g').attr('transform', `translate(${MARGIN.left},${top})`);
  g.append('g').attr('class', 'grid').call(axisLeft(y).ticks(5).tickSize(-innerW).tickFormat(() => ''));
  // The points' own values as ticks when they are few and far enough apart to read; else round ones.
  const sorted = [...xs].sort((a, b) => a - b);
  const spaced = sorted.every((v, i) => i === 0 || linear(v) - linear(sorted[i - 1]!) >= 28);
  const xAxis = chart.categorical
    ? axisBottom(point)
    : axisBottom(linear).tickValues(xs.length <= 12 && spaced ? xs : linear.ticks(8))
      .tickFormat((v) => (xs.includes(Number(v)) ? labelOf(Number(v)) : String(v)));
  g.append('g').attr('class', 'axis x-axis').attr('transform', `translate(0,${PLOT_HEIGHT})`).call(xAxis);
  g.append('g').attr('class', 'axis y-axis').call(axisLeft(y).ticks(5));
  g.append('text').attr('class', 'axis-label').attr('x', innerW / 2).attr('y', PLOT_HEIGHT + 36).attr('text-anchor', 'middle')
    .text(chart.x.setting);
  g.append('text').attr('class', 'axis-label').attr('transform', `translate(-54,${PLOT_HEIGHT / 2}) rotate(-90)`)
    .attr('text-anchor', 'middle').text(chart.measure.label);

  if (chart.lines.length === 0 || chart.lines.every((l) => l.points.every((p) => p.y === null) && l.paper.length === 0)) {
    g.append('text').attr('class', 'chart-empty').attr('x', innerW / 2).attr('y', PLOT_HEIGHT / 2).attr('text-anchor', 'middle')
      .text(`No point has ${chart.measure.label}.`);
  }
  chart.lines.forEach((l, i) => {
    const cls = `series-${i % 10}`;
    const lineG = g.append('g').attr('class', 'sweep-line').attr('data-line', l.key);
    const known = l.points.filter((p) => p.y !== null) as { x: number; y: number; failure: string | null }[];
    lineG.append('path').attr('class', `series ${cls}`)
      .attr('d', line<{ x: number; y: number }>().x((d) => xOf(d.x)).y((d) => y(d.y))(known) ?? '');
    lineG.selectAll('circle.point').data(known).join('circle').attr('class', `point ${cls}`)
      .attr('cx', (d) => xOf(d.x)).attr('cy', (d) => y(d.y)).attr('r', 3.5)
      .append('title').text((d) => `${l.label ? `${l.label}, ` : ''}${chart.x.setting}=${labelOf(d.x)}: ${formatMeasure(chart.measure, d.y)}`);
    lineG.selectAll('text.sweep-failed').data(l.points.filter((p) => p.y === null)).join('text').attr('class', `sweep-failed ${cls}`)
      .attr('x', (d) => xOf(d.x)).attr('y', PLOT_HEIGHT - 4).attr('text-anchor', 'middle').text('×')
      .append('title').text((d) => `${l.label ? `${l.label}, ` : ''}${chart.x.setting}=${labelOf(d.x)}: ${d.failure ?? 'no figure'}`);
    lineG.selectAll('path.paper-point').data(l.paper).join('path').attr('class', `paper-point ${cls}`)
      .attr('transform', (d) => `translate(${xOf(d.x)},${y(d.y)})`).attr('d', symbol(symbolDiamond, 70)() ?? '')
      .append('title').text((d) => `the paper${l.label ? `, ${l.label}` : ''} at ${chart.x.setting}=${labelOf(d.x)}: ${formatMeasure(chart.measure, d.y)}`);
  });

  const legend = svg.append('g').attr('class', 'legend').attr('transform', `translate(${MARGIN.left},${MARGIN.top + 8})`);
  for (const it of items) {
    const el = legend.append('g').attr('class', 'legend-item').attr('transform', `translate(${it.x},${it.row * LEGEND_LINE})`);
    if (it.cls) el.append('rect').attr('class', `swatch-line ${it.cls}`).attr('x', 0).attr('y', -5).attr('width', 12).attr('height', 3).attr('rx', 1);
    else el.append('path').attr('class', 'paper-point paper-legend').attr('transform', 'translate(6,-4)').attr('d', symbol(symbolDiamond, 50)() ?? '');
    el.append('text').attr('x', 18).attr('y', 0).text(it.label);
  }
}
