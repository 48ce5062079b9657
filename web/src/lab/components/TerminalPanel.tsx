import { lazy, Suspense } from 'react';

import type { LabController } from '../controller';
import { useAtom } from '../state/atom';
import { GUEST_TTY_LINE_MAX, terminalStatusWords } from '../state/terminal';

const XtermView = lazy(() => import('./XtermView'));

/** The terminal right under its controls, and what it is about after it: the shell's prompt is then in view without
 *  scrolling, on a phone too (where the terminal is a little shorter: style.css). */
export function TerminalPanel({ lab, visible }: { lab: LabController; visible: boolean }) {
  const t = useAtom(lab.terminal.state);
  const machine = useAtom(lab.link.machine);
  const theme = useAtom(lab.ui.theme);
  return (
    <section className="panel terminal-panel" aria-labelledby="terminal-title">
      <div className="panel-head">
        <h2 id="terminal-title">Terminal</h2>
        <span className={`status status-${t.phase === 'running' ? 'ok' : t.phase === 'error' ? 'error' : 'busy'}`} role="status">
          {terminalStatusWords(t)}
        </span>
        <span className="hint">log in as <kbd>root</kbd>, no password</span>
      </div>
      <div className="terminal-controls">
        <label className="check">
          <input type="checkbox" checked={t.realtime} onChange={(e) => lab.terminal.setRealtime(e.target.checked)} />
          Follow wall-clock time (1985 speed); off: as fast as this computer can
        </label>
        <button type="button" onClick={() => lab.terminal.start()} disabled={machine.phase === 'error'}>
          {t.phase === 'off' || t.phase === 'stopped' || t.phase === 'error' ? 'Boot' : 'Reboot (power cycle)'}
        </button>
        <button type="button" onClick={() => lab.terminal.stop()} disabled={t.phase !== 'running' && t.phase !== 'booting'}>
          Power off
        </button>
      </div>
      <Suspense fallback={<div className="xterm-host loading">Loading the terminal…</div>}>
        <XtermView
          stream={lab.terminal.output} testId="terminal" label="4.3BSD console terminal" theme={theme}
          onData={(d) => lab.terminal.input(d)} autoFocus={visible} rows={30} describedBy="terminal-keyboard-hint"
          onResize={(cols, rows) => lab.terminal.resize(cols, rows)}
        />
      </Suspense>
      {t.longLine !== null ? (
        <p className="field-error" role="status" data-testid="terminal-long-line">
          That paste has a line of {t.longLine.toLocaleString('en-US')} characters. At the shell 4.3BSD&rsquo;s terminal driver
          keeps {GUEST_TTY_LINE_MAX + 1} characters of a line at most (TTYHOG) and drops the rest, its newline too, so the
          shell waits for the line&rsquo;s end: <kbd>Ctrl</kbd>+<kbd>U</kbd> erases it. Paste shorter lines.
        </p>
      ) : null}
      <p className="hint terminal-about">
        4.3BSD booted multi-user on a VAX-11/780 model with 8 MB, on its own copy-on-write view of the disk (nothing you do
        here changes the experiments' disk). Log in as <kbd>root</kbd> (no password); the console is a <code>vt100</code> as wide
        as this window (<code>stty size</code>). The paper’s tools are on the path: try <code>vmstat 1 5</code>, <code>iostat</code>,{' '}
        <code>pstat -T</code>, <code>w</code>, <code>ps ax</code>, <code>syscall 100000</code>. The image has no <code>/usr/bin</code> or{' '}
        <code>/usr/ucb</code>.
      </p>
      <p className="hint terminal-keys" id="terminal-keyboard-hint" data-testid="terminal-keyboard-hint">
        The terminal keeps <kbd>Tab</kbd> for the shell. To leave it with the keyboard, press <kbd>Esc</kbd>, then{' '}
        <kbd>Tab</kbd> (or <kbd>Shift</kbd>+<kbd>Tab</kbd> to go back): that <kbd>Esc</kbd> is not sent to the shell (one alone
        is, after a moment, for <code>vi</code>). <kbd>Ctrl</kbd>+<kbd>V</kbd> or <kbd>Ctrl</kbd>+<kbd>Shift</kbd>+<kbd>V</kbd> pastes.
      </p>
    </section>
  );
}
