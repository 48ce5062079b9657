// xterm.js showing a TextStream (the experiment console, or the Terminal
// tab's machine).  Loaded lazily: xterm is the page's biggest dependency.
// The default DOM renderer is kept (its rows are plain text in .xterm-rows).

import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';

import { BatchedTerminalWriter, frameWait } from '../state/terminalWrites';
import type { TextStream } from '../state/textStream';
import { terminalColors, type Theme } from '../theme';

/** How long an Escape waits for a Tab (to leave the terminal) before it goes to the guest. */
export const ESCAPE_HOLD_MS = 600;

/** How often a read-only console is written to at most while text streams in (ms): a run's worker sends its console
 *  every 100 ms, and a quarter of a second is as often as the counter chart is drawn. */
const CONSOLE_WRITE_MS = 250;

export interface XtermViewProps {
  stream: TextStream;
  testId: string;
  label: string;
  theme: Theme;
  /** Keystrokes, for an interactive terminal; read-only without. */
  onData?: (data: string) => void;
  /** Focus the terminal once it is shown. */
  autoFocus?: boolean;
  rows?: number;
  fontSize?: number;
  /** Ids of elements describing the terminal to screen readers (e.g. how to leave it), on its textarea. */
  describedBy?: string;
  /** Its size in characters, now and whenever it changes (an interactive terminal tells its guest). */
  onResize?: (cols: number, rows: number) => void;
}

export default function XtermView(
  { stream, testId, label, theme, onData, autoFocus, rows = 24, fontSize = 13, describedBy, onResize }: XtermViewProps,
) {
  const resizeHandler = useRef(onResize);
  resizeHandler.current = onResize;
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const dataHandler = useRef(onData);
  dataHandler.current = onData;

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const t = new Terminal({
      convertEol: false,
      disableStdin: !onData,
      cursorBlink: !!onData,
      cursorStyle: onData ? 'block' : 'bar',
      cursorInactiveStyle: onData ? 'outline' : 'none',
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize,
      rows,
      scrollback: 5000,
      screenReaderMode: false,
      theme: terminalColors(theme),
    });
    const fit = new FitAddon();
    t.loadAddon(fit);
    t.open(el);
    t.textarea?.setAttribute('aria-label', label);
    if (describedBy) t.textarea?.setAttribute('aria-describedby', describedBy);
    // A read-only console is not a Tab stop (xterm would keep Tab for itself: a keyboard trap).
    if (!onData && t.textarea) t.textarea.tabIndex = -1;
    // An interactive terminal keeps Tab for the guest.  So that it is not a
    // keyboard trap, Escape then Tab (or Shift+Tab) leaves it: the browser
    // moves the focus on.  That Escape is held back, not sent to the guest:
    // it goes on (for vi) with the next other key, or after ESCAPE_HOLD_MS
    // with none, and is dropped when Tab follows or the terminal loses the
    // focus.  Ctrl+V and Ctrl+Shift+V paste (the browser's paste, which xterm
    // types), as a terminal window's do; Ctrl+V is not sent as ^V.
    if (onData) {
      let held: ReturnType<typeof setTimeout> | null = null;
      const release = (send: boolean) => {
        if (held === null) return;
        clearTimeout(held);
        held = null;
        if (send) dataHandler.current?.('\x1b');
      };
      t.textarea?.addEventListener('blur', () => release(false));
      t.attachCustomKeyEventHandler((e) => {
        if (e.type !== 'keydown') return true;
        const plain = !e.ctrlKey && !e.altKey && !e.metaKey;
        if (e.key === 'Tab' && held !== null && plain) {
          release(false);
          return false;
        }
        // A modifier alone (Shift of Shift+Tab) neither sends nor drops it.
        if (['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) return true;
        if (e.key === 'Escape' && plain && !e.shiftKey) {
          release(true);
          held = setTimeout(() => release(true), ESCAPE_HOLD_MS);
          return false;
        }
        release(true);
        if (e.ctrlKey && !e.altKey && !e.metaKey && (e.key === 'v' || e.key === 'V')) return false;
        return true;
      });
    }
    term.current = t;
    const refit = () => {
      try {
        fit.fit();
      } catch {
        // Hidden (a tab not shown): no size to fit to.
      }
    };
    refit();
    // The stream's text in batches (terminalWrites.ts): one write a frame at most for a terminal typed at (its echo
    // at once), one every CONSOLE_WRITE_MS for a console only read.
    const writer = new BatchedTerminalWriter(t, frameWait(onData ? 0 : CONSOLE_WRITE_MS));
    writer.write(stream.contents);
    const off = stream.subscribe(({ reset, text }) => (reset ? writer.reset(text) : writer.write(text)));
    const sub = t.onData((d) => dataHandler.current?.(d));
    const sized = t.onResize(({ cols, rows: r }) => resizeHandler.current?.(cols, r));
    resizeHandler.current?.(t.cols, t.rows);
    const ro = new ResizeObserver(refit);
    ro.observe(el);
    if (autoFocus) t.focus();
    return () => {
      ro.disconnect();
      sub.dispose();
      sized.dispose();
      off();
      writer.dispose();
      t.dispose();
      term.current = null;
    };
    // The terminal is made once per mount; theme changes are applied below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stream]);

  useEffect(() => {
    if (term.current) term.current.options.theme = terminalColors(theme);
  }, [theme]);

  useEffect(() => {
    if (autoFocus) term.current?.focus();
  }, [autoFocus]);

  return <div className="xterm-host" data-testid={testId} ref={host} role="region" aria-label={label} />;
}
