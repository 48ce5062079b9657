// The charts on the page, for exporting them as SVG or PNG: each chart
// component registers its <svg> here (and unregisters it when it goes), and
// the export takes them from here in page order.

/** A run's charts (its counters, its results) and the sweep's line chart, each exported with its own view. */
export type ChartKey = 'counters' | 'results' | 'sweep';

export class ChartHandles {
  private readonly svgs = new Map<ChartKey, SVGSVGElement>();
  private readonly setters = new Map<ChartKey, (svg: SVGSVGElement | null) => void>();

  /** A ref callback for the chart `key` (the same function each time, so React does not re-register it). */
  ref(key: ChartKey): (svg: SVGSVGElement | null) => void {
    let set = this.setters.get(key);
    if (!set) {
      set = (svg) => {
        if (svg) this.svgs.set(key, svg);
        else this.svgs.delete(key);
      };
      this.setters.set(key, set);
    }
    return set;
  }

  /** The charts `keys` on the page (a run's, by default), in the order the page shows them. */
  list(keys: readonly ChartKey[] = ['counters', 'results']): SVGSVGElement[] {
    return [...this.svgs.entries()]
      .filter(([k, s]) => keys.includes(k) && s.isConnected)
      .map(([, s]) => s)
      .sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  }
}
