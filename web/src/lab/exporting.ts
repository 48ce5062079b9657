// Downloads: text files, and the charts as one standalone SVG (computed
// styles inlined, so it looks the same outside the page) or a PNG drawn from
// that SVG on a canvas.

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

/** The charts stacked in one SVG document, with a title (on more lines when it is long). */
export function chartsSvg(svgs: SVGSVGElement[], title: string): { text: string; width: number; height: number } {
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
  const width = chartWidth + 2 * pad;
  const out = document.createElementNS(NS, 'svg');
  out.setAttribute('xmlns', NS);
  // The title on as many lines as the width needs (a long one would be cut off at the right).
  const lines = wrapText(title, width - 2 * pad, HEADING_FONT);
  let y = 36 + HEADING_LINE * (lines.length - 1);
  const parts: Element[] = [];
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
