// Downloads: text files, and the result as one standalone SVG — a heading,
// a caption saying which run, row and settings it shows and when it ran, the
// charts (computed styles inlined, so they look the same outside the page)
// and the table — or a PNG drawn from that SVG on a canvas.

import { columnGroups, startsGroup, type ResultTable } from '../../../experiments/runner/resultView';

const STYLE_PROPS = [
  'fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-dasharray', 'opacity',
  'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline', 'shape-rendering', 'display',
] as const;

export function download(name: string, data: BlobPart, type: string): void {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function inlineStyles(source: Element, target: Element): void {
  const cs = getComputedStyle(source);
  const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(';');
  target.setAttribute('style', style);
  target.removeAttribute('class');
  const s = source.children;
  const t = target.children;
  for (let i = 0; i < s.length && i < t.length; i++) inlineStyles(s[i]!, t[i]!);
}

const HEADING_FONT = '600 15px system-ui, sans-serif';
const HEADING_LINE = 20;
const CAPTION_FONT = '12px system-ui, sans-serif';
const CAPTION_LINE = 16;
const TABLE_FONT = '11px system-ui, sans-serif';
const TABLE_BOLD = '600 11px system-ui, sans-serif';
const TABLE_LINE = 17;
const CELL_PAD = 6;

/** Text widths as a canvas measures them in `font`. */
function measurer(font: string): (text: string) => number {
  const g = document.createElement('canvas').getContext('2d');
  if (!g) return (text) => text.length * 6.5;
  g.font = font;
  return (text) => g.measureText(text).width;
}

/** Text broken at spaces into lines no wider than maxWidth in `font` (as a canvas measures it). */
function wrapText(text: string, maxWidth: number, font: string): string[] {
  const g = document.createElement('canvas').getContext('2d');
  if (!g) return [text];
  g.font = font;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (line && g.measureText(next).width > maxWidth) {
      lines.push(line);
      line = word;
    } else {
      line = next;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The table drawn in SVG at (x, y): the groups' names, the labels, the rows; a rule where a group starts. */
function tableSvg(table: ResultTable, x: number, y: number, colour: string): { g: SVGGElement; width: number; height: number } {
  const NS = 'http://www.w3.org/2000/svg';
  const plain = measurer(TABLE_FONT);
  const bold = measurer(TABLE_BOLD);
  const cols = table.columns;
  const widths = cols.map((c, j) => Math.ceil(Math.max(bold(c.label), ...table.rows.map((r) => plain(r.cells[j]?.text ?? ''))) + 2 * CELL_PAD));
  // A group's name wider than its columns widens its last one.
  let first = 0;
  const groups = columnGroups(cols);
  for (const gr of groups) {
    const span = widths.slice(first, first + gr.span).reduce((a, b) => a + b, 0);
    const need = Math.ceil(bold(gr.label.trim()) + 2 * CELL_PAD);
    if (need > span) widths[first + gr.span - 1]! += need - span;
    first += gr.span;
  }
  const lefts = widths.map((_, j) => widths.slice(0, j).reduce((a, b) => a + b, 0));
  const width = widths.reduce((a, b) => a + b, 0);
  const named = groups.some((gr) => gr.label.trim() !== '');
  const lines = (named ? 2 : 1) + table.rows.length;
  const height = lines * TABLE_LINE + 4;
  const g = document.createElementNS(NS, 'g');
  g.setAttribute('transform', `translate(${x},${y})`);
  const text = (s: string, tx: number, ty: number, font: string, anchor: 'start' | 'end' = 'start') => {
    const t = document.createElementNS(NS, 'text');
    t.setAttribute('x', String(tx));
    t.setAttribute('y', String(ty));
    t.setAttribute('style', `font: ${font}; fill: ${colour}`);
    if (anchor === 'end') t.setAttribute('text-anchor', 'end');
    t.textContent = s;
    g.append(t);
  };
  const rule = (x1: number, y1: number, x2: number, y2: number, opacity: number) => {
    const l = document.createElementNS(NS, 'line');
    for (const [k, v] of [['x1', x1], ['y1', y1], ['x2', x2], ['y2', y2]] as const) l.setAttribute(k, String(v));
    l.setAttribute('style', `stroke: ${colour}; stroke-opacity: ${opacity}; stroke-width: 1`);
    g.append(l);
  };
  let line = 0;
  const baseline = () => (line + 1) * TABLE_LINE - 5;
  if (named) {
    first = 0;
    for (const gr of groups) {
      text(gr.label.trim(), lefts[first]! + CELL_PAD, baseline(), TABLE_BOLD);
      first += gr.span;
    }
    line++;
  }
  cols.forEach((c, j) => text(c.label, c.numeric ? lefts[j]! + widths[j]! - CELL_PAD : lefts[j]! + CELL_PAD, baseline(), TABLE_BOLD, c.numeric ? 'end' : 'start'));
  line++;
  rule(0, line * TABLE_LINE, width, line * TABLE_LINE, 0.6);
  for (const r of table.rows) {
    r.cells.forEach((cell, j) => {
      const c = cols[j]!;
      text(cell.text, c.numeric ? lefts[j]! + widths[j]! - CELL_PAD : lefts[j]! + CELL_PAD, baseline() + 2, j === 0 ? TABLE_BOLD : TABLE_FONT,
        c.numeric ? 'end' : 'start');
    });
    line++;
  }
  cols.forEach((_c, j) => {
    if (startsGroup(cols, j)) rule(lefts[j]!, 0, lefts[j]!, height, 0.35);
  });
  return { g, width, height };
}

/**
 * The result in one SVG document: a title (on more lines when it is long),
 * the caption's lines (which run, row and settings, when), the charts
 * stacked, and the table.
 */
export function chartsSvg(svgs: SVGSVGElement[], title: string, caption: string[] = [], table: ResultTable | null = null): { text: string; width: number; height: number } {
  const NS = 'http://www.w3.org/2000/svg';
  // The panels' background, the one the charts are drawn on in the page (the bar chart fills its own with it).
  const panel = svgs[0]?.closest('.panel') ?? document.body;
  const panelBg = getComputedStyle(panel).backgroundColor;
  const pageBg = panelBg && panelBg !== 'transparent' && panelBg !== 'rgba(0, 0, 0, 0)'
    ? panelBg
    : getComputedStyle(document.body).backgroundColor || '#fff';
  const textColour = getComputedStyle(panel).color || getComputedStyle(document.body).color || '#000';
  // A margin around the charts (in the page, the panel's padding).
  const pad = 12;
  const chartWidth = Math.max(...svgs.map((s) => s.width.baseVal.value || s.getBoundingClientRect().width), 200);
  const drawnTable = table ? tableSvg(table, pad, 0, textColour) : null;
  const width = Math.max(chartWidth, Math.min(drawnTable?.width ?? 0, 2400), 480) + 2 * pad;
  const out = document.createElementNS(NS, 'svg');
  out.setAttribute('xmlns', NS);
  // The title on as many lines as the width needs (a long one would be cut off at the right).
  const lines = wrapText(title, width - 2 * pad, HEADING_FONT);
  const captionLines = caption.flatMap((c) => wrapText(c, width - 2 * pad, CAPTION_FONT));
  let y = 24 + HEADING_LINE * (lines.length - 1);
  const captionText = document.createElementNS(NS, 'text');
  captionText.setAttribute('style', `font: ${CAPTION_FONT}; fill: ${textColour}`);
  captionText.setAttribute('class', 'export-caption');
  for (const line of captionLines) {
    y += CAPTION_LINE;
    const span = document.createElementNS(NS, 'tspan');
    span.setAttribute('x', String(pad));
    span.setAttribute('y', String(y));
    span.textContent = line;
    captionText.append(span);
  }
  y += 12;
  const parts: Element[] = [captionText];
  for (const s of svgs) {
    const h = s.height.baseVal.value || s.getBoundingClientRect().height;
    const clone = s.cloneNode(true) as SVGSVGElement;
    inlineStyles(s, clone);
    clone.removeAttribute('data-testid');
    clone.setAttribute('x', String(pad));
    clone.setAttribute('y', String(y));
    parts.push(clone);
    y += h + pad;
  }
  if (drawnTable) {
    drawnTable.g.setAttribute('transform', `translate(${pad},${y})`);
    drawnTable.g.setAttribute('class', 'export-table');
    parts.push(drawnTable.g);
    y += drawnTable.height + pad;
  }
  const height = y;
  out.setAttribute('width', String(width));
  out.setAttribute('height', String(height));
  out.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const bg = document.createElementNS(NS, 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', pageBg);
  out.append(bg);
  const heading = document.createElementNS(NS, 'text');
  heading.setAttribute('x', String(pad));
  heading.setAttribute('y', '24');
  heading.setAttribute('style', `font: ${HEADING_FONT}; fill: ${textColour}`);
  lines.forEach((line, i) => {
    const span = document.createElementNS(NS, 'tspan');
    span.setAttribute('x', String(pad));
    if (i > 0) span.setAttribute('dy', String(HEADING_LINE));
    span.textContent = line;
    heading.append(span);
  });
  out.append(heading, ...parts);
  return { text: `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(out)}\n`, width, height };
}

/** Renders SVG text to a PNG at `scale` times its size. */
export async function svgToPng(svgText: string, width: number, height: number, scale = 2): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.decoding = 'async';
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the SVG did not render'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * scale);
    canvas.height = Math.ceil(height * scale);
    const g = canvas.getContext('2d');
    if (!g) throw new Error('no 2D canvas');
    g.scale(scale, scale);
    g.drawImage(img, 0, 0, width, height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the canvas made no PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}
