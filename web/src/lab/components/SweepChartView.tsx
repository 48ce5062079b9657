// The sweep's line chart as a React component (loaded lazily with d3):
// React owns the <svg>, D3 draws in it when the chart or the width change;
// the <svg> goes to `handle` (charts/handles.ts) for the exports.

import { useEffect, useRef } from 'react';

import type { SweepChart } from '../../../../experiments/runner/sweepView';
import { renderSweepChart } from '../charts/sweepChart';
import { useWidth } from './useWidth';

export function SweepLineChart({ chart, title, handle }: {
  chart: SweepChart; title: string; handle: (svg: SVGSVGElement | null) => void;
}) {
  const [box, width] = useWidth();
  const svg = useRef<SVGSVGElement>(null);
  useEffect(() => {
    if (svg.current && width > 0) renderSweepChart(svg.current, chart, width);
  }, [chart, width]);
  // The export takes the chart from the handles, not from the page's markup.
  useEffect(() => {
    handle(svg.current);
    return () => handle(null);
  }, [handle]);
  return (
    <div className="chart-box" ref={box}>
      <svg ref={svg} data-testid="sweep-chart" className="chart" role="img" aria-label={title} />
    </div>
  );
}
