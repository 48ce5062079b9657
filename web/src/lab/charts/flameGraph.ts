// The Profile view's flame graph, drawn as an icicle (the root on top, each
// callee below its caller, widths in proportion to total virtual time).
// Clicking a frame zooms to it: it takes the whole width and its callers
// stay above it as full-width bars (click one, or the root, to zoom out).
// A search highlights the frames whose name holds it and dims the rest.
// Each frame has a tooltip (self, total, calls, share) and a class saying
// what it is: kernel code, a program's code (program`name), a program's
// root ([name]) or the idle loop.

import { select } from 'd3';

import type { FlameNode } from '../profileView';
import { matches } from '../profileView';

const ROW = 18;
const MIN_PX = 0.5;
const CHAR_PX = 6.4;

export interface FlameOptions {
  width: number;
  search: string;
  /** The id of the frame zoomed to ('' for the root). */
  zoom: string;
  onZoom: (id: string) => void;
  onHover: (node: FlameNode | null) => void;
}

interface Placed {
  node: FlameNode;
  x: number;
  w: number;
  depth: number;
  /** A caller of the zoomed frame, drawn full width above it. */
  above: boolean;
}

/** What kind of code a frame is, for its colour. */
export function frameKind(name: string): 'program' | 'user' | 'idle' | 'kernel' | 'root' {
  if (name === 'all') return 'root';
  if (name === '(idle)') return 'idle';
  if (name.startsWith('[') && name.endsWith(']')) return 'program';
  return name.includes('`') ? 'user' : 'kernel';
}

function find(root: FlameNode, id: string): FlameNode[] | null {
  if (root.id === id) return [root];
  for (const c of root.children) {
    const path = find(c, id);
    if (path) return [root, ...path];
  }
  return null;
}

/** The frames to draw, with x and width in pixels. */
export function layoutFlame(root: FlameNode, zoom: string, width: number): Placed[] {
  const path = find(root, zoom) ?? [root];
  const focus = path[path.length - 1]!;
  const out: Placed[] = path.slice(0, -1).map((node, depth) => ({ node, x: 0, w: width, depth, above: true }));
  const walk = (node: FlameNode, x: number, w: number, depth: number): void => {
    if (w < MIN_PX) return;
    out.push({ node, x, w, depth, above: false });
    let cx = x;
    for (const c of node.children) {
      const cw = node.totalMs > 0 ? (w * c.totalMs) / node.totalMs : 0;
      walk(c, cx, cw, depth + 1);
      cx += cw;
    }
  };
  walk(focus, 0, width, path.length - 1);
  return out;
}

const fmt = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));

export function frameTooltip(node: FlameNode, rootMs: number): string {
  const share = rootMs > 0 ? ` (${((100 * node.totalMs) / rootMs).toFixed(1)}% of the run)` : '';
  return `${node.name}\ntotal ${fmt(node.totalMs)} ms${share}\nself ${fmt(node.selfMs)} ms` +
    `${node.calls > 0 ? `\n${node.calls.toLocaleString('en-US')} calls` : ''}`;
}

export function renderFlameGraph(svgEl: SVGSVGElement, root: FlameNode, o: FlameOptions): void {
  const placed = layoutFlame(root, o.zoom, o.width);
  const depth = placed.reduce((d, p) => Math.max(d, p.depth), 0) + 1;
  const svg = select(svgEl).attr('width', o.width).attr('height', depth * ROW).attr('viewBox', `0 0 ${o.width} ${depth * ROW}`);
  const searching = o.search.trim() !== '';
  const frames = svg.selectAll<SVGGElement, Placed>('g.frame')
    .data(placed, (p) => p.node.id)
    .join((enter) => {
      const g = enter.append('g');
      g.append('rect').attr('height', ROW - 1).attr('rx', 2);
      g.append('text').attr('y', ROW / 2).attr('dy', '0.35em').attr('x', 4);
      g.append('title');
      return g;
    });
  frames
    .attr('class', (p) => {
      const hit = matches(p.node.name, o.search);
      return `frame frame-${frameKind(p.node.name)}${p.above ? ' frame-above' : ''}${hit ? ' matched' : searching ? ' dimmed' : ''}`;
    })
    .attr('data-name', (p) => p.node.name)
    .attr('transform', (p) => `translate(${p.x},${p.depth * ROW})`)
    .on('click', (_e, p) => o.onZoom(p.node.id === o.zoom && !p.above ? '' : p.node.id))
    .on('mouseenter', (_e, p) => o.onHover(p.node))
    .on('mouseleave', () => o.onHover(null));
  frames.select('rect').attr('width', (p) => Math.max(0, p.w - 1));
  frames.select('text').text((p) => {
    const chars = Math.floor((p.w - 8) / CHAR_PX);
    if (chars < 3) return '';
    return p.node.name.length <= chars ? p.node.name : `${p.node.name.slice(0, chars - 1)}…`;
  });
  frames.select('title').text((p) => frameTooltip(p.node, root.totalMs));
}
