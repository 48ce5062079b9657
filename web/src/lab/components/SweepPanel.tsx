import { useMemo } from 'react';

import { MAX_SWEEP_POINTS } from '../../../../experiments/runner/sweep';
import { experimentById } from '../config';
import type { LabController } from '../controller';
import { cores, defaultJobs } from '../pool';
import { useAtom, useAtomSelect } from '../state/atom';
import { isRunning } from '../state/runs';
import { checkSweep, startsText, sweepChoices } from '../state/sweeps';

const seconds = (s: number) => (s >= 100 ? `${s.toFixed(0)} s` : `${s.toFixed(1)} s`);

/**
 * Sweep: the chosen experiment at every value of one or two settings, on
 * several workers.  The settings and their values (a list or a range), the
 * workers, Run sweep and Stop, and while it runs: the units done, each
 * worker's unit, the time left.
 */
export function SweepPanel({ lab }: { lab: LabController }) {
  const form = useAtom(lab.form.form);
  const sweep = useAtom(lab.sweeps.form);
  const run = useAtom(lab.sweeps.run);
  const ready = useAtom(lab.link.machine).phase === 'ready';
  const runRunning = useAtomSelect(lab.runs.run, isRunning);
  const check = useMemo(() => checkSweep(form, sweep), [form, sweep]);
  const choices = sweepChoices(form.experimentId);
  const spec = experimentById(form.experimentId);
  const running = run !== null && (run.status === 'running' || run.status === 'stopping');
  const busy = lab.running;
  const pool = lab.pool.availability();
  const p = run?.progress ?? null;

  return (
    <section className="panel sweep-panel" aria-labelledby="sweep-title">
      <div className="panel-head">
        <h2 id="sweep-title">Sweep</h2>
        <span className="hint">{spec ? <><code>{spec.id}</code> at every value of a setting, on several workers</> : null}</span>
      </div>
      <form
        data-testid="sweep-form"
        onSubmit={(e) => {
          e.preventDefault();
          lab.runSweep();
        }}
      >
        {sweep.axes.map((axis, i) => (
          <div className="sweep-axis" key={i}>
            <label htmlFor={`sweep-setting-${i}`}>{i === 0 ? 'Setting' : 'and'}</label>
            <select id={`sweep-setting-${i}`} data-testid={`sweep-setting-${i}`} value={axis.setting}
              onChange={(e) => lab.sweeps.setAxis(i, { setting: e.target.value })}>
              {i > 0 ? <option value="">(none)</option> : null}
              {choices.map((c) => <option key={c.name} value={c.name}>{c.label}</option>)}
            </select>
            <label htmlFor={`sweep-values-${i}`} className="visually-hidden">Values of {axis.setting || 'the second setting'}</label>
            <input id={`sweep-values-${i}`} data-testid={`sweep-values-${i}`} type="text" autoComplete="off" size={22}
              placeholder={i === 0 ? '50,100,250 or 1..8' : 'values'} value={axis.values} disabled={i > 0 && axis.setting === ''}
              onChange={(e) => lab.sweeps.setAxis(i, { values: e.target.value })}
              title={`A list (50,100,250), a range (1..8: every whole number) or a range with a step (1..8:0.5); at most ${MAX_SWEEP_POINTS} points in all`} />
          </div>
        ))}
        <div className="sweep-axis">
          <label htmlFor="sweep-jobs">Workers</label>
          <input id="sweep-jobs" data-testid="sweep-jobs" type="text" inputMode="numeric" size={4} value={sweep.jobs}
            placeholder={String(defaultJobs())} onChange={(e) => lab.sweeps.setJobs(e.target.value)}
            aria-invalid={check.jobsError ? true : undefined}
            title={`Web Workers that run the points (and a run's steps, and their seeds) at once; default ${defaultJobs()}: this machine's ${cores()} cores less one`} />
          <span className="hint">{pool.available ? `of ${cores()} cores; the results are the same for any number` : pool.reason}</span>
          {check.jobsError ? <span className="field-error">{check.jobsError}</span> : null}
        </div>
        <div className="actions">
          <button type="submit" className="primary" data-testid="sweep-run" disabled={!ready || busy || !check.plan || !!check.jobsError || runRunning}>
            Run sweep{check.plan ? ` (${check.plan.points.length} point${check.plan.points.length === 1 ? '' : 's'})` : ''}
          </button>
          <button type="button" data-testid="sweep-stop" disabled={!running || run?.status === 'stopping'} onClick={() => lab.sweeps.stop()}
            title="Stop every worker at once (Esc)">
            Stop
          </button>
        </div>
        {check.problems.length > 0 ? (
          <ul className="problems" data-testid="sweep-problems" role="alert">
            {check.problems.map((x) => <li key={x}>{x.replace(/^--set: /, '')}</li>)}
          </ul>
        ) : null}
        {check.notes.length > 0 ? <ul className="notes">{check.notes.map((n) => <li key={n}>{n}</li>)}</ul> : null}
      </form>
      {run ? (
        <div className="sweep-progress" data-testid="sweep-progress" aria-live="polite">
          {running && p ? <progress max={p.total} value={p.done} aria-label="Units done" /> : null}
          <p data-testid="sweep-status">
            {run.status === 'error' ? `The sweep could not run: ${run.error}`
              : running
                ? `${run.status === 'stopping' ? 'Stopping' : 'Running'}: ${p?.done ?? 0} of ${run.units} units done` +
                  `${p && p.failed ? `, ${p.failed} failed` : ''} on ${run.jobs} worker${run.jobs === 1 ? '' : 's'}, ` +
                  `${seconds(run.hostSeconds)}${p?.remainingSeconds != null ? `, about ${seconds(p.remainingSeconds)} left` : ''}`
                : `${run.stopped ? 'Stopped after' : 'Finished in'} ${seconds(run.hostSeconds)} on ${run.jobs} worker${run.jobs === 1 ? '' : 's'}` +
                  `${p ? `: ${p.done} of ${run.units} units ran${p.failed && !run.stopped ? `, ${p.failed} failed` : ''}` : ''}.`}
          </p>
          {run.starts.some((s) => s.shipped + s.here + s.booted > 0) ? (
            <p className="muted" data-testid="sweep-machines">
              Machines: {run.starts.map((s, i) => `worker ${i + 1} ${startsText(s)}`).join('; ')}.
            </p>
          ) : null}
          {running && p ? (
            <ol className="sweep-workers" data-testid="sweep-workers">
              {p.workers.map((w, i) => (
                <li key={i}>worker {i + 1}: {w.unit === null ? <span className="muted">idle</span>
                  : <>{w.label} <span className="muted">— virtual {w.virtualSeconds.toFixed(1)} s</span></>}
                <span className="muted"> ({w.done} done)</span></li>
              ))}
            </ol>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
