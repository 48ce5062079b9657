// A stream of text (console output) that late subscribers can replay: xterm
// takes it without React re-rendering anything.  The page's own lines in it
// (note) are broken at spaces to the width of the terminal showing it, which
// would otherwise cut them anywhere, mid-word; the guest's output (append) is
// left as the guest wrote it, as a terminal shows it.

/** An escape sequence (a colour, bold): it takes no room on the screen.  Sticky, for cutWord's walk. */
const ESCAPE = /\x1b\[[0-9;?]*[A-Za-z]/y;
const ESCAPES = new RegExp(ESCAPE.source, 'g');

/** How many columns `s` takes on a terminal (escape sequences none). */
function visibleLength(s: string): number {
  return s.replace(ESCAPES, '').length;
}

/** `word` cut after `n` visible characters (its escape sequences kept where they are): [head, tail]. */
function cutWord(word: string, n: number): [string, string] {
  let seen = 0;
  for (let i = 0; i < word.length;) {
    ESCAPE.lastIndex = i;
    if (ESCAPE.test(word)) {
      i = ESCAPE.lastIndex;
      continue;
    }
    if (seen === n) return [word.slice(0, i), word.slice(i)];
    seen++;
    i++;
  }
  return [word, ''];
}

/**
 * Text broken into rows of at most `columns` characters at spaces (the
 * spaces at a break dropped), a word longer than a row cut where the row
 * ends; escape sequences take no room.  Lines end in \r\n, as the console's do.
 */
export function wrapWords(text: string, columns: number): string {
  if (!Number.isFinite(columns) || columns < 1) return text;
  return text.split(/\r?\n/).map((line) => {
    if (visibleLength(line) <= columns) return line;
    const rows: string[] = [];
    let row = '';
    let width = 0;
    const breakRow = () => {
      rows.push(row.replace(/ +$/, ''));
      row = '';
      width = 0;
    };
    for (const part of line.split(/( +)/)) {
      if (part === '') continue;
      const w = visibleLength(part);
      if (part.startsWith(' ')) {
        if (width + w <= columns) {
          row += part;
          width += w;
        } else if (width > 0) breakRow();
        continue;
      }
      if (width > 0 && width + w > columns) breakRow();
      let word = part;
      while (visibleLength(word) > columns - width) {
        const [head, tail] = cutWord(word, columns - width);
        row += head;
        breakRow();
        word = tail;
      }
      row += word;
      width += visibleLength(word);
    }
    rows.push(row);
    return rows.join('\r\n');
  }).join('\r\n');
}

export class TextStream {
  private text = '';
  private listeners = new Set<(event: { reset: boolean; text: string }) => void>();

  /** The width of the terminal showing the stream (its columns), which the page's lines are broken to; none: whole. */
  columns = Number.POSITIVE_INFINITY;

  constructor(private readonly keep = 512 * 1024) {}

  /** Everything kept so far (the last `keep` characters). */
  get contents(): string {
    return this.text;
  }

  append(text: string): void {
    if (!text) return;
    this.text += text;
    if (this.text.length > this.keep) this.text = this.text.slice(this.text.length - this.keep);
    for (const l of [...this.listeners]) l({ reset: false, text });
  }

  /** A line (or lines) of the page's own, broken at spaces to the terminal's width. */
  note(text: string): void {
    this.append(wrapWords(text, this.columns));
  }

  reset(text = ''): void {
    this.text = text;
    for (const l of [...this.listeners]) l({ reset: true, text });
  }

  subscribe(listener: (event: { reset: boolean; text: string }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
