import { checkForm, experimentById, KERNEL_TOGGLES, MACHINE_TOGGLES } from '../config';
import type { LabController, LabState } from '../controller';
import { progressText } from '../status';

/** The error under an input: its first clause (the rest, the kernel's reasons, on hover). */
function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  const short = message.split(' (')[0]!;
  return <span className="field-error" id={id} title={short === message ? undefined : message}>{short}</span>;
}

export function ConfigurePanel({ state, lab }: { state: LabState; lab: LabController }) {
  const { form } = state;
  const spec = experimentById(form.experimentId);
  const { errors, problems, notes, settings } = checkForm(form);
  const running = lab.running;
  const ready = state.machine.phase === 'ready';
  const progress = progressText(state);
  const run = state.run;

  if (!spec) return <section className="panel configure"><p>No experiment selected.</p></section>;
  const typed = form.params[spec.id] ?? {};
  const cpuToggle = MACHINE_TOGGLES.find((t) => t.name === 'cpu');
  const memToggle = MACHINE_TOGGLES.find((t) => t.name === 'memoryMB');
  const cpu = form.cpu ?? spec.machine.cpu;
  const memory = form.memoryMB ?? String(spec.machine.memoryMB);
  const why = !ready
    ? 'The machine is not ready yet.'
    : running
      ? 'An experiment is running.'
      : !settings
        ? 'Fix the settings marked above.'
        : null;

  return (
    <section className="panel configure" aria-labelledby="configure-title">
      <h2 id="configure-title">Configure</h2>
      <div className="selected-experiment">
        <div className="selected-title">{spec.title}</div>
        <p className="muted">{spec.description}</p>
        <p className="paper-ref">Paper: {spec.paperRef}</p>
      </div>

      <form
        onSubmit={(e) => {
          e.preventDefault();
          lab.run();
        }}
      >
        <div className="run-bar">
          {problems.length > 0 ? (
            <ul className="problems" id="settings-problems" role="alert">
              {problems.map((p) => <li key={p}>{p.replace(/^--set /, '')}</li>)}
            </ul>
          ) : null}
          {notes.length > 0 ? (
            <ul className="notes">
              {notes.map((n) => <li key={n}>{n}</li>)}
            </ul>
          ) : null}
          <div className="actions">
            <button type="submit" className="primary" data-testid="run-button" disabled={!ready || running || !settings}
              aria-describedby={why ? 'run-why' : undefined}>
              Run
            </button>
            <button type="button" data-testid="stop-button" disabled={!running || run?.status === 'stopping'} onClick={() => lab.stop()}>
              Stop
            </button>
            <button type="button" className="quiet" onClick={() => lab.resetForm()} disabled={running}>
              Paper’s settings
            </button>
            {why && !running ? <span className="hint" id="run-why">{why}</span> : null}
          </div>
          <div className="run-progress" data-testid="run-progress" aria-live="polite">
            {run && run.progress && (run.status === 'running' || run.status === 'stopping') ? (
              <progress max={run.progress.steps} value={run.progress.step - 1} aria-label="Rows done" />
            ) : null}
            <span>{progress ?? 'Not run yet.'}</span>
          </div>
        </div>

        <fieldset className="kernel-choice">
          <legend>Kernel</legend>
          <label className="radio">
            <input type="radio" name="kernel" value="4.3BSD" checked={form.kernel === '4.3BSD'} onChange={() => lab.setKernel('4.3BSD')} />
            4.3BSD (June 1986, GENERIC)
          </label>
          <label className={state.bsd42.available ? 'radio' : 'radio disabled'}>
            <input
              type="radio" name="kernel" value="4.2BSD" checked={form.kernel === '4.2BSD'} disabled={!state.bsd42.available}
              aria-describedby={state.bsd42.available ? undefined : 'bsd42-reason'} onChange={() => lab.setKernel('4.2BSD')}
            />
            4.2BSD
          </label>
          {state.bsd42.available ? null : <p className="hint" id="bsd42-reason">{state.bsd42.reason}</p>}
        </fieldset>

        {Object.keys(spec.parameters).length > 0 ? (
          <fieldset>
            <legend>Experiment parameters</legend>
            {Object.entries(spec.parameters).map(([name, dflt]) => {
              const id = `param-${name}`;
              const err = errors[id];
              return (
                <div className="field" key={name}>
                  <label htmlFor={id}>{name}</label>
                  <input
                    id={id} data-testid={id} type="text" inputMode="numeric" autoComplete="off"
                    value={typed[name] ?? String(dflt)} aria-invalid={err ? true : undefined}
                    aria-describedby={`${id}-help${err ? ` ${id}-error` : ''}`}
                    onChange={(e) => lab.setParameter(name, e.target.value)}
                  />
                  <FieldError id={`${id}-error`} message={err} />
                  <span className="hint" id={`${id}-help`}>
                    {spec.parameterHelp[name] ?? ''} Default {dflt.toLocaleString('en-US')}.
                  </span>
                </div>
              );
            })}
          </fieldset>
        ) : null}

        <fieldset>
          <legend>Machine</legend>
          <div className="field">
            <label htmlFor="toggle-cpu">Processor (VAX-11/…)</label>
            <input
              id="toggle-cpu" data-testid="toggle-cpu" type="text" inputMode="numeric" autoComplete="off" list="cpu-models"
              value={cpu} aria-invalid={errors['toggle-cpu'] ? true : undefined}
              aria-describedby={`toggle-cpu-help${errors['toggle-cpu'] ? ' toggle-cpu-error' : ''}`}
              onChange={(e) => lab.setCpu(e.target.value)}
            />
            <datalist id="cpu-models">
              <option value="750">VAX-11/750, 3333 ns per instruction</option>
              <option value="780">VAX-11/780, 2000 ns per instruction</option>
            </datalist>
            <FieldError id="toggle-cpu-error" message={errors['toggle-cpu']} />
            <span className="hint" id="toggle-cpu-help">
              750 or 780: the timing model (2000 ns per instruction on a 780; a 750 runs at 0.6 of that). The paper ran
              this experiment on a {spec.machine.cpu}
              {cpuToggle ? ` (§${cpuToggle.section.split(' ')[0]})` : ''}.
            </span>
          </div>
          <div className="field">
            <label htmlFor="toggle-memoryMB">Memory (MB)</label>
            <input
              id="toggle-memoryMB" data-testid="toggle-memoryMB" type="text" inputMode="numeric" autoComplete="off" value={memory}
              aria-invalid={errors['toggle-memoryMB'] ? true : undefined}
              aria-describedby={`toggle-memoryMB-help${errors['toggle-memoryMB'] ? ' toggle-memoryMB-error' : ''}`}
              onChange={(e) => lab.setMemory(e.target.value)}
            />
            <FieldError id="toggle-memoryMB-error" message={errors['toggle-memoryMB']} />
            <span className="hint" id="toggle-memoryMB-help">
              {memToggle ? `${memToggle.min}–${memToggle.max} MB. ` : ''}
              <span className="default-note" title={spec.machine.memoryNote}>Default: {spec.machine.memoryNote}.</span>
            </span>
          </div>
        </fieldset>

        <details className="kernel-vars" open>
          <summary>
            Kernel variables{' '}
            <span className="muted">
              ({Object.values(form.kernelToggles).filter((v) => v.trim() !== '').length} of {KERNEL_TOGGLES.length} set)
            </span>
          </summary>
          <p className="hint">Patched into /vmunix before it boots. Empty: the kernel’s own value, as the paper ran.</p>
          <div className="toggle-grid">
            {KERNEL_TOGGLES.map((t) => {
              const id = `toggle-${t.name}`;
              const err = errors[id];
              const section = t.section.split(' ')[0];
              return (
                <div className="field toggle" key={t.name}>
                  <label htmlFor={id}>
                    <code>{t.name}</code> <span className="section-ref" title={`Paper section ${t.section}`}>§{section}</span>
                  </label>
                  <input
                    id={id} data-testid={id} type="text" inputMode="numeric" autoComplete="off"
                    placeholder={`${t.min}–${t.max}`} value={form.kernelToggles[t.name] ?? ''}
                    aria-invalid={err ? true : undefined} aria-describedby={`${id}-help${err ? ` ${id}-error` : ''}`}
                    onChange={(e) => lab.setKernelToggle(t.name, e.target.value)}
                  />
                  <FieldError id={`${id}-error`} message={err} />
                  <span className="hint toggle-help" id={`${id}-help`}>
                    {t.description} <span className="default-note" title={[t.defaultNote, t.notes, ...(t.related ?? [])].filter(Boolean).join('\n')}>
                      Default: {t.defaultNote}
                    </span>
                  </span>
                </div>
              );
            })}
          </div>
        </details>

      </form>

    </section>
  );
}
