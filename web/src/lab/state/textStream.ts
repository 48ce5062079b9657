// A stream of text (console output) that late subscribers can replay: xterm
// takes it without React re-rendering anything.

export class TextStream {
  private text = '';
  private listeners = new Set<(event: { reset: boolean; text: string }) => void>();

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

  reset(text = ''): void {
    this.text = text;
    for (const l of [...this.listeners]) l({ reset: true, text });
  }

  subscribe(listener: (event: { reset: boolean; text: string }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
