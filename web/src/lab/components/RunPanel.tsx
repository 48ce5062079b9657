import { useMemo, useState } from 'react';

import { checkForm, experimentById } from '../config';
import type { LabController } from '../controller';
import { useAtom } from '../state/atom';
import { isRunning } from '../state/runs';
import { durationWords, estimateRun, progressText, runFraction, workersWords } from '../status';
import { FieldError, FieldHelp, settingsFormEvents } from './fields';
import { withCode } from './withCode';


/** Longer than this (host seconds), the estimate says how to stop. */
const LONG_RUN_S = 300;

/** A problem of the settings together, as the runner words it, without its command-line prefix ("--set: "). */
function settingsProblem(p: string): string {
  return p.replace(/^--set:? /, '');
}

/** The selected experiment, its parameters, Run and Stop, the time it will take, and the progress. */
export function RunPanel({ lab }: { lab: LabController }) {
  const form = useAtom(lab.form.form);
  const run = useAtom(lab.runs.run);
  const ready = useAtom(lab.link.machine).phase === 'ready';
  const spec = experimentById(form.experimentId);
  const { errors, problems, notes, settings } = checkForm(form);
  const [focused, setFocused] = useState<string | null>(null);
  const running = isRunning(run);
  const speed = useAtom(lab.speed);
  const againNote = useAtom(lab.runAgainNote);
  // About how long it takes: before the run (the form's settings), and for the run going on (its own).
  const estimate = useMemo(
    () => (settings ? estimateRun(form.experimentId, settings, speed.instructionsPerSecond) : null),
    [form.experimentId, settings && JSON.stringify(settings), speed.instructionsPerSecond],
  );
  const runEstimate = useMemo(
    () => (run ? estimateRun(run.experiment, run.settings, speed.instructionsPerSecond) : null),
    [run?.runId, speed.instructionsPerSecond],
  );
  // Read so that the note below follows the Sweep panel's Workers field.
  useAtom(lab.sweeps.form);
  const workers = estimate ? workersWords(estimate, lab.sweeps.parallelFor(form.experimentId, estimate.seeds), lab.pool.availability().available) : null;
  const fraction = running ? runFraction(run, runEstimate) : null;
  const progress = progressText(run, runEstimate, form.experimentId);

  if (!spec) return <section className="panel run-panel"><p>No experiment selected.</p></section>;
  const typed = form.params[spec.id] ?? {};
  const why = !ready
    ? 'The machine is not ready yet.'
    : running
      ? null
      : !settings
        ? Object.keys(errors).length > 0 ? 'Fix the settings marked in red.' : 'These settings cannot run together (listed below).'
        : null;
  const title = spec.title.replace(new RegExp(`^(Table \\d+), ${spec.id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `), '$1: ');

  return (
    <section className="panel run-panel" aria-labelledby="run-title">
      <div className="run-head">
        <h2 id="run-title">
          <code className="experiment-chip">{spec.id}</code> <span>{title}</span>
        </h2>
      </div>
      <p className="description">{withCode(spec.description)}</p>
      <p className="paper-ref">Paper: {spec.paperRef}</p>

      <form
        id="run-form"
        {...settingsFormEvents(lab, setFocused)}
      >
        <div className="run-row">
          {Object.entries(spec.parameters).map(([name, dflt]) => {
            const id = `param-${name}`;
            const err = errors[id];
            const value = typed[name] ?? String(dflt);
            const help = `${spec.parameterHelp[name] ?? name}. Default ${dflt.toLocaleString('en-US')}.`;
            return (
              <div className="field param" key={name}>
                <label htmlFor={id} title={help}>{name}</label>
                <input
                  id={id} data-testid={id} type="text" inputMode="numeric" autoComplete="off" size={9}
                  className={value.trim() !== '' && value.trim() !== String(dflt) ? 'changed' : undefined}
                  value={value} aria-invalid={err ? true : undefined}
                  aria-describedby={`${id}-help${err ? ` ${id}-error` : ''}`}
                  onChange={(e) => lab.form.setParameter(name, e.target.value)}
                />
                <span className="visually-hidden" id={`${id}-help`}>{help}</span>
                <FieldError id={`${id}-error`} message={err} />
              </div>
            );
          })}
          <div className="field profile-toggle">
            <label title="The emulator's profiler: every instruction charged to the function it ran in, calls counted exactly; the guest runs the same, the host a little slower">
              <input type="checkbox" data-testid="profile-toggle" checked={form.profile}
                onChange={(e) => lab.form.setProfile(e.target.checked)} />
              {' '}Profile
            </label>
          </div>
          <div className="actions">
            <button type="submit" className="primary run" data-testid="run-button" disabled={!ready || running || !settings}
              aria-describedby={why ? 'run-why' : undefined} aria-keyshortcuts="Enter">
              Run
            </button>
            <button type="button" data-testid="stop-button" disabled={!running || run?.status === 'stopping'} onClick={() => lab.stop()}
              title="Stop the run (Esc)" aria-keyshortcuts="Escape">
              Stop
            </button>
          </div>
        </div>
        {focused?.startsWith('param-') && spec.parameters[focused.slice(6)] !== undefined ? (
          <FieldHelp text={`${spec.parameterHelp[focused.slice(6)] ?? focused.slice(6)}. Default ${spec.parameters[focused.slice(6)]!.toLocaleString('en-US')}.`} />
        ) : null}
        {why ? <p className="hint why" id="run-why">{why}</p> : null}
        {againNote ? (
          <div className="run-again-note" data-testid="run-again-note" role="status">
            {againNote.notRun ? <p className="failure">{againNote.notRun}</p> : null}
            {againNote.dropped.length ? (
              <>
                <p>Run again left out what this lab cannot set{againNote.notRun ? '' : ', and ran without it'}:</p>
                <ul>{againNote.dropped.map((d) => <li key={d}>{d}</li>)}</ul>
              </>
            ) : null}
          </div>
        ) : null}
        {problems.length > 0 ? (
          <ul className="problems" id="settings-problems" role="alert">
            {problems.map((p) => <li key={p}>{settingsProblem(p)}</li>)}
          </ul>
        ) : null}
        {estimate && !running ? (
          <p className={`hint estimate${estimate.hostSeconds > LONG_RUN_S ? ' long' : ''}`} data-testid="run-estimate">
            Takes {durationWords(estimate.hostSeconds)} here ({Math.round(estimate.virtualSeconds).toLocaleString('en-US')} virtual
            seconds of machine time, each machine’s set-up included{estimate.seeds > 1 ? `, each step ${estimate.seeds} times` : ''}{speed.measured ? ', at the speed of your last run' : ''}).
            {estimate.hostSeconds > LONG_RUN_S ? ' A long run: Stop (Esc) ends it, keeping the rows done.' : ''}
          </p>
        ) : null}
        {workers && !running ? <p className="hint" data-testid="run-workers">{workers}</p> : null}
        {notes.length > 0 ? (
          <ul className="notes">
            {notes.map((n) => <li key={n}>{n}</li>)}
          </ul>
        ) : null}
        <div className="run-progress" data-testid="run-progress" aria-live="polite">
          {run && fraction !== null && (run.status === 'running' || run.status === 'stopping') ? (
            <progress max={1000} value={Math.round(1000 * fraction)} aria-label="Run progress"
              aria-valuetext={`${Math.round(100 * fraction)}%: step ${run.progress!.step} of ${run.progress!.steps}`} />
          ) : null}
          <span>{progress ?? (ready ? 'Not run yet. Enter runs it; Esc stops a run.' : 'Not run yet.')}</span>
        </div>
      </form>
    </section>
  );
}
