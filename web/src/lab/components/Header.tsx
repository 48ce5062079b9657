import type { LabController } from '../controller';
import { useAtom } from '../state/atom';
import { formatRate, imagePercent, machineStatus, megabytes } from '../status';

/** The title, the tabs, the machine's state and the theme toggle. */
export function Header({ lab }: { lab: LabController }) {
  const m = useAtom(lab.link.machine);
  const run = useAtom(lab.runs.run);
  const t = useAtom(lab.terminal.state);
  const tab = useAtom(lab.ui.tab);
  const theme = useAtom(lab.ui.theme);
  const status = machineStatus(m, run);
  const pct = imagePercent(m);
  const loading = m.phase === 'starting' || m.phase === 'loading-emulator' || m.phase === 'loading-image' || m.phase === 'verifying';
  return (
    <header className="topbar">
      <div className="brand">
        <h1>vaxlab</h1>
        <p className="tagline" title="4.3BSD on an emulated VAX-11/780, measured as in “Measuring and Improving the Performance of Berkeley UNIX” (McKusick, Leffler, Karels, 1985)">
          4.3BSD on an emulated VAX-11/780, measured as in “Measuring and Improving the Performance of Berkeley UNIX” (1985)
        </p>
      </div>
      <nav className="tabs" role="tablist" aria-label="Views">
        <button
          type="button" role="tab" id="tab-lab" data-testid="tab-lab" aria-selected={tab === 'lab'}
          aria-controls="panel-lab" className={tab === 'lab' ? 'tab active' : 'tab'} onClick={() => lab.setTab('lab')}
        >
          Lab
        </button>
        <button
          type="button" role="tab" id="tab-terminal" data-testid="tab-terminal" aria-selected={tab === 'terminal'}
          aria-controls="panel-terminal" className={tab === 'terminal' ? 'tab active' : 'tab'}
          onClick={() => lab.setTab('terminal')}
        >
          Terminal{t.phase === 'running' || t.phase === 'booting' ? <span className="dot" aria-label="(running)" /> : null}
        </button>
      </nav>
      <div className="machine">
        <div className={`status status-${status.tone}`} data-testid="machine-status" role="status" aria-live="polite">
          {status.text}
        </div>
        <div className="machine-detail">
          <span data-testid="image-progress" className="image-progress">
            {loading ? (
              <>
                <progress max={100} value={pct ?? undefined} aria-label="Disk image download" />
                <span>
                  {m.phase === 'loading-image'
                    ? `image ${pct ?? 0}%`
                    : m.phase === 'verifying'
                      ? 'image 100%, verifying'
                      : 'emulator…'}
                </span>
              </>
            ) : m.phase === 'ready' && m.imageBytes !== null ? (
              <span title={m.chunked
                ? `The 4.3BSD disk image: downloaded ${megabytes(m.compressedBytes ?? 0)} and checked, in ${((m.imageMs ?? 0) / 1000).toFixed(1)} s; a ${megabytes(m.imageBytes)} pack in 64 KB chunks, each decompressed the first time it is read`
                : `The 4.3BSD disk image: downloaded ${megabytes(m.compressedBytes ?? 0)}, unpacked to ${megabytes(m.imageBytes)} and checked, in ${((m.imageMs ?? 0) / 1000).toFixed(1)} s`}>
                disk image {m.compressedBytes ? megabytes(m.compressedBytes) : megabytes(m.imageBytes)}
              </span>
            ) : null}
          </span>
          {m.ips > 0 ? <span className="ips" title="VAX instructions per second of host time, measured in the worker">{formatRate(m.ips)}</span> : null}
        </div>
      </div>
      <button
        type="button" className="theme-toggle" data-testid="theme-toggle" onClick={() => lab.toggleTheme()}
        aria-label={theme === 'dark' ? 'Switch to the light theme' : 'Switch to the dark theme'}
        title={theme === 'dark' ? 'Light theme' : 'Dark theme'}
      >
        <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
        <span className="theme-word">{theme === 'dark' ? 'Light' : 'Dark'}</span>
      </button>
    </header>
  );
}
