// The words the header and the progress line show, from the state alone.

import { isRunning, type RunState } from './state/runs';
import type { MachineState } from './state/workerLink';

export function megabytes(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

export function formatRate(ips: number): string {
  if (ips >= 1e6) return `${(ips / 1e6).toFixed(1)} M instructions/s`;
  if (ips >= 1e3) return `${(ips / 1e3).toFixed(0)} k instructions/s`;
  return `${ips} instructions/s`;
}

export function imagePercent(machine: MachineState): number | null {
  const { loaded, total } = machine;
  if (machine.phase === 'ready' || machine.phase === 'verifying') return 100;
  if (!total) return null;
  return Math.min(100, Math.floor((100 * loaded) / total));
}

/** machine-status: contains "ready" when a run can start, "running" while one runs. */
export function machineStatus(m: MachineState, run: RunState | null): { text: string; tone: 'busy' | 'ok' | 'run' | 'error' } {
  if (run && isRunning(run)) {
    const step = run.progress ? ` — step ${run.progress.step} of ${run.progress.steps}` : ' — starting';
    const verb = run.status === 'stopping' ? 'stopping' : 'running';
    return { text: `${verb} ${run.experiment}${step}`, tone: 'run' };
  }
  switch (m.phase) {
    case 'starting':
    case 'loading-emulator':
      return { text: 'loading the emulator…', tone: 'busy' };
    case 'loading-image': {
      const pct = imagePercent(m);
      return { text: `loading the 4.3BSD image${pct === null ? '…' : ` ${pct}%`}`, tone: 'busy' };
    }
    case 'verifying':
      return { text: 'checking the image (SHA-256)…', tone: 'busy' };
    case 'error':
      return { text: `error: ${m.message ?? 'the emulator stopped'}`, tone: 'error' };
    case 'ready':
      return { text: 'ready', tone: 'ok' };
  }
}

export function progressText(run: RunState | null): string | null {
  if (!run) return null;
  const p = run.progress;
  const host = `host ${run.hostSeconds.toFixed(1)} s`;
  if (run.status === 'error') return `The run could not go on: ${run.error ?? 'unknown error'}`;
  if (run.status === 'done' && run.result) {
    const rows = run.result.rows;
    const failed = rows.filter((r) => r.status !== 'ok');
    const stopped = failed.some((r) => r.failure?.kind === 'stopped');
    const head = stopped ? 'Stopped' : failed.length ? `Finished, ${failed.length} of ${rows.length} rows failed` : 'Finished';
    const virtual = rows.reduce((a, r) => a + (r.emulator?.virtualSeconds ?? 0), 0);
    return `${head}: ${rows.length} row${rows.length === 1 ? '' : 's'}, timed commands ${virtual.toFixed(1)} virtual s, ${host}`;
  }
  if (!p) return `Starting… ${host}`;
  return `Step ${p.step} of ${p.steps}: ${p.label} — virtual ${p.virtualSeconds.toFixed(1)} s, ${host}`;
}
