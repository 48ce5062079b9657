// The two D3 charts as React components (loaded lazily with d3).  React owns
// the <svg> element; D3 draws inside it whenever the data or width change.
// Each hands its <svg> to `handle` (charts/handles.ts), which the exports
// take the charts from.

import { useCallback, useEffect, useRef } from 'react';

import { renderBarChart, type BarData } from '../charts/barChart';
import { renderCounterChart, type ChartComparison, type ChartCounterNames, type ChartSeries } from '../charts/counterChart';
import type { ChartPanel } from '../counterNames';
import { useWidth } from './useWidth';

/** A ref for the chart's <svg> that also hands it to `handle` (and null when it goes). */
function useSvg(handle: ((svg: SVGSVGElement | null) => void) | undefined) {
  const svg = useRef<SVGSVGElement | null>(null);
  const ref = useCallback((el: SVGSVGElement | null) => {
    svg.current = el;
    handle?.(el);
  }, [handle]);
  return [svg, ref] as const;
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
  /** Given the chart's <svg> (for exporting it). */
  handle?: (svg: SVGSVGElement | null) => void;
  /** Run A's series drawn over these (two runs compared). */
  compare?: ChartComparison | null;
}

export function CounterChart({ series, panels, names, colourIndex, emptyText, version, title, handle, compare = null }: CounterChartProps) {
  const [box, width] = useWidth();
  const [svg, svgRef] = useSvg(handle);
  useEffect(() => {
    if (svg.current && width > 0) renderCounterChart(svg.current, series, panels, names, width, colourIndex, emptyText, compare);
  }, [series, panels, names, width, colourIndex, emptyText, version, compare]);
  return (
    <div className="chart-box" ref={box}>
      <svg ref={svgRef} data-testid="counter-chart" className="chart" role="img" aria-label={title} />
    </div>
  );
}

export interface ResultsBarChartProps {
  data: BarData;
  title: string;
  yLabel: string;
  /** Given the chart's <svg> (for exporting it). */
  handle?: (svg: SVGSVGElement | null) => void;
}

export function ResultsBarChart({ data, title, yLabel, handle }: ResultsBarChartProps) {
  const [box, width] = useWidth();
  const [svg, svgRef] = useSvg(handle);
  useEffect(() => {
    if (svg.current && width > 0) renderBarChart(svg.current, data, width, yLabel);
  }, [data, width, yLabel]);
  return (
    <div className="chart-box" ref={box}>
      <svg ref={svgRef} data-testid="results-bar-chart" className="chart" role="img" aria-label={title} />
    </div>
  );
}
