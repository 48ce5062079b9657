// xterm.js showing a TextStream (the experiment console, or the Terminal
// tab's machine).  Loaded lazily: xterm is the page's biggest dependency.
// The default DOM renderer is kept (its rows are plain text in .xterm-rows).

import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef } from 'react';

import type { TextStream } from '../state/textStream';
import { terminalColors, type Theme } from '../theme';

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
}

export default function XtermView(
  { stream, testId, label, theme, onData, autoFocus, rows = 24, fontSize = 13, describedBy }: XtermViewProps,
) {
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
    // keyboard trap, Tab or Shift+Tab right after Escape (which still goes to
    // the guest, for vi) is left to the browser, which moves the focus on.
    let escaped = false;
    if (onData) {
      // An Escape before the terminal lost the focus does not count when it is back.
      t.textarea?.addEventListener('focus', () => {
        escaped = false;
      });
      t.attachCustomKeyEventHandler((e) => {
        if (e.type !== 'keydown') return true;
        if (e.key === 'Tab' && escaped && !e.ctrlKey && !e.altKey && !e.metaKey) {
          escaped = false;
          return false;
        }
        // A modifier alone (Shift of Shift+Tab) does not disarm it.
        if (e.key !== 'Shift') escaped = e.key === 'Escape';
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
    if (stream.contents) t.write(stream.contents);
    const off = stream.subscribe(({ reset, text }) => {
      if (reset) t.reset();
      if (text) t.write(text);
    });
    const sub = t.onData((d) => dataHandler.current?.(d));
    const ro = new ResizeObserver(refit);
    ro.observe(el);
    if (autoFocus) t.focus();
    return () => {
      ro.disconnect();
      sub.dispose();
      off();
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
