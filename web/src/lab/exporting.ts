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

/** The charts stacked in one SVG document, with a title line. */
export function chartsSvg(svgs: SVGSVGElement[], title: string): { text: string; width: number; height: number } {
  const NS = 'http://www.w3.org/2000/svg';
  const pageBg = getComputedStyle(document.body).backgroundColor || '#fff';
  const textColour = getComputedStyle(document.body).color || '#000';
  const width = Math.max(...svgs.map((s) => s.width.baseVal.value || s.getBoundingClientRect().width), 200);
  const out = document.createElementNS(NS, 'svg');
  out.setAttribute('xmlns', NS);
  let y = 36;
  const parts: Element[] = [];
  for (const s of svgs) {
    const h = s.height.baseVal.value || s.getBoundingClientRect().height;
    const clone = s.cloneNode(true) as SVGSVGElement;
    inlineStyles(s, clone);
    clone.removeAttribute('data-testid');
    clone.setAttribute('x', '0');
    clone.setAttribute('y', String(y));
    parts.push(clone);
    y += h + 12;
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
  heading.setAttribute('x', '12');
  heading.setAttribute('y', '24');
  heading.setAttribute('style', `font: 600 15px system-ui, sans-serif; fill: ${textColour}`);
  heading.textContent = title;
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
