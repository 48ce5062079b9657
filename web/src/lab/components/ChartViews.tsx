// The two D3 charts as React components (loaded lazily with d3).  React owns
// the <svg> element; D3 draws inside it whenever the data or width change.

import { useEffect, useRef, useState } from 'react';

import { renderBarChart, type BarData } from '../charts/barChart';
import { renderCounterChart, type ChartCounterNames, type ChartSeries } from '../charts/counterChart';
import type { ChartPanel } from '../counterNames';

function useWidth(): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.floor(el.clientWidth)));
    ro.observe(el);
    setWidth(Math.floor(el.clientWidth));
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

export interface CounterChartProps {
  series: ChartSeries | null;
  panels: ChartPanel[];
  names: ChartCounterNames;
  colourIndex: (id: string) => number;
  emptyText: string;
  /** Changes whenever series is appended to in place. */
  version: number;
  title: string;
}

export function CounterChart({ series, panels, names, colourIndex, emptyText, version, title }: CounterChartProps) {
  const [box, width] = useWidth();
  const svg = useRef<SVGSVGElement>(null);
  useEffect(() => {
    if (svg.current && width > 0) renderCounterChart(svg.current, series, panels, names, width, colourIndex, emptyText);
  }, [series, panels, names, width, colourIndex, emptyText, version]);
  return (
    <div className="chart-box" ref={box}>
      <svg ref={svg} data-testid="counter-chart" className="chart" role="img" aria-label={title} />
    </div>
  );
}

export interface ResultsBarChartProps {
  data: BarData;
  title: string;
  yLabel: string;
}

export function ResultsBarChart({ data, title, yLabel }: ResultsBarChartProps) {
  const [box, width] = useWidth();
  const svg = useRef<SVGSVGElement>(null);
  useEffect(() => {
    if (svg.current && width > 0) renderBarChart(svg.current, data, width, yLabel);
  }, [data, width, yLabel]);
  return (
    <div className="chart-box" ref={box}>
      <svg ref={svg} data-testid="results-bar-chart" className="chart" role="img" aria-label={title} />
    </div>
  );
}
