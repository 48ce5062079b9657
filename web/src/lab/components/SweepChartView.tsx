// The sweep's line chart as a React component (loaded lazily with d3):
// React owns the <svg>, D3 draws in it when the chart or the width change.

import { useEffect, useRef, useState } from 'react';

import type { SweepChart } from '../../../../experiments/runner/sweepView';
import { renderSweepChart } from '../charts/sweepChart';

export function SweepLineChart({ chart, title }: { chart: SweepChart; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.floor(el.clientWidth)));
    ro.observe(el);
    setWidth(Math.floor(el.clientWidth));
    return () => ro.disconnect();
  }, []);
  useEffect(() => {
    if (svg.current && width > 0) renderSweepChart(svg.current, chart, width);
  }, [chart, width]);
  return (
    <div className="chart-box" ref={box}>
      <svg ref={svg} data-testid="sweep-chart" className="chart" role="img" aria-label={title} />
    </div>
  );
}
