import { useState } from 'react';

import { DISK_TIMINGS, type Spin } from '../../../../emu/js/constants';
import { LOCKED_SPIN_WORDS } from '../../../../experiments/runner/result';
import { DISK_TIMING_NAMES, findToggle, toggleHelp } from '../../../../experiments/runner/toggles';
import {
  DISTRIBUTED_KERNEL_LABEL, DISTRIBUTED_KERNEL_NAME, KERNELS, effectiveKernelName, kernelByName,
} from '../../../../experiments/kernels/variants';
import {
  changedSettings, checkForm, defaultChoice, experimentById, KERNEL_TOGGLES, MACHINE_TOGGLES, machineChoices,
  MAX_PAGE_SEEDS, NAMED_MACHINE_SETTINGS, shownChoice, type NamedMachineSetting,
} from '../config';
import { ownKernelWords } from '../compare';
import type { LabController } from '../controller';
import { useAtom, useAtomSelect } from '../state/atom';
import { isRunning } from '../state/runs';
import { FieldError, FieldHelp, settingsFormEvents } from './fields';

/** The processors modelled (emu/docs/timing.md), in a few words. */
const CPU_WORDS: Readonly<Record<string, string>> = {
  '750': '320 ns microcycle, 4 KB direct-mapped cache, 512-entry TB',
  '780': '200 ns microcycle, 8 KB two-way cache, 128-entry TB',
};

/** The selects of the machine settings with named values: the label, each name's words in the select, and what
 *  the machine's line says of a name other than the default (given its words). */
const CHOICE_FIELDS: { [K in NamedMachineSetting]: { label: string; what: string; options: Record<string, string>; note: (words: string) => string } } = {
  disk: {
    label: 'Disk timing',
    what: 'a disk timing',
    options: Object.fromEntries(DISK_TIMINGS.map((id) => [id, DISK_TIMING_NAMES[id].label])),
    note: (words) => `${words} disk timing on the RP06 pack`,
  },
  spin: {
    label: 'Disk rotation',
    what: 'a rotation',
    options: { drifting: 'Drifting', locked: 'Locked' } satisfies Record<Spin, string>,
    // The one other than the default.
    note: () => LOCKED_SPIN_WORDS,
  },
};

/** A named machine setting's help: its toggle's own words, as the command line's usage says them too, and the
 *  paper's section. */
function choiceHelp(name: NamedMachineSetting): string {
  const t = findToggle(name);
  return t ? `${toggleHelp(t)} Paper §${t.section.split(' ')[0]}.` : '';
}

/** A select can only show one of its choices, so a value it cannot hold (a hand-made address's `cpu=123` or
 *  `disk=ssd`) is named in its error, and the select shows "(pick one)": showing a valid choice instead would hide
 *  why Run is off, and picking that same choice would change nothing. */
function badChoice(value: string | null, error: string | undefined, what: string): string | undefined {
  return error === undefined ? undefined : `“${(value ?? '').slice(0, 24)}”, from the address, is not ${what} here: pick one`;
}

/** What the machine's line says of a named machine setting: nothing for the default. */
function machineNote(name: NamedMachineSetting, shown: string): string {
  const field = CHOICE_FIELDS[name];
  return shown === defaultChoice(name) ? '' : `; ${field.note(field.options[shown] ?? shown)}`;
}


/** The machine and the kernel: processor, memory, which kernel, and its variables (folded away). */
export function SettingsPanel({ lab }: { lab: LabController }) {
  const form = useAtom(lab.form.form);
  const running = useAtomSelect(lab.runs.run, isRunning);
  const bsd42 = useAtom(lab.bsd42);
  const built = useAtom(lab.link.machine).variants;
  const spec = experimentById(form.experimentId);
  const { errors } = checkForm(form);
  const [focused, setFocused] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  if (!spec) return null;

  const changed = changedSettings(form);
  const cpuToggle = MACHINE_TOGGLES.find((t) => t.name === 'cpu');
  const memToggle = MACHINE_TOGGLES.find((t) => t.name === 'memoryMB');
  const cpu = form.cpu && CPU_WORDS[form.cpu] ? form.cpu : spec.machine.cpu;
  const memory = form.memoryMB ?? String(spec.machine.memoryMB);
  const kernelErrors = KERNEL_TOGGLES.some((t) => errors[`toggle-${t.name}`]);
  // A variable with an error keeps the list open, so the error is seen.
  const kernelOpen = open || kernelErrors;

  const help: Record<string, string> = {
    kernel: bsd42.available
      ? 'The kernel the machine boots: 4.3BSD as distributed (June 1986, GENERIC), or 4.2BSD.'
      : `The kernel the machine boots: 4.3BSD as distributed (June 1986, GENERIC). 4.2BSD: ${bsd42.reason}.`,
    'toggle-cpu': `The processor modelled: a 780 (${CPU_WORDS['780']}) or a 750 (${CPU_WORDS['750']}), each with its cache and TB simulated. ` +
      `The paper ran this experiment on a ${spec.machine.cpu}${cpuToggle ? ` (§${cpuToggle.section.split(' ')[0]})` : ''}.`,
    'toggle-memoryMB': `${memToggle ? `${memToggle.min}–${memToggle.max} MB${memToggle.step ? ` in steps of ${memToggle.step} (256 KB), e.g. 4.5` : ''}. ` : ''}` +
      `Default: ${spec.machine.memoryNote}.`,
  };
  for (const name of NAMED_MACHINE_SETTINGS) help[`toggle-${name}`] = choiceHelp(name);
  help.seeds = `How many times each step runs, with seeds 1..N (1–${MAX_PAGE_SEEDS}): each seed moves the disks' phase, the ` +
    'clock interrupts\' phase against the work and the physical pages the command lands on. Each row is then the median ' +
    'run, with its range over the seeds, as `npx vaxlab run --seeds N` gives it (the README\'s fidelity figures: 3 and 5 seeds). ' +
    'Not a setting of the paper\'s: "Paper’s settings" keeps it.';
  for (const t of KERNEL_TOGGLES) {
    help[`toggle-${t.name}`] = `${t.name}: ${t.description} Range ${t.min}–${t.max}. Default: ${t.defaultNote}. Paper §${t.section}.`;
  }
  const machineIds = ['kernel', 'toggle-cpu', 'toggle-memoryMB', ...NAMED_MACHINE_SETTINGS.map((name) => `toggle-${name}`), 'seeds'];
  const seeds = form.seeds ?? '1';

  return (
    <section className="panel settings" aria-labelledby="settings-title">
      <div className="panel-head">
        <h2 id="settings-title">Machine and kernel</h2>
        <button type="button" className="quiet small" onClick={() => lab.form.reset()} disabled={running || changed.total === 0}
          title="The experiment’s parameters, machine and kernel as the paper ran them">
          Paper’s settings
        </button>
      </div>
      <form
        {...settingsFormEvents(lab, setFocused)}
        noValidate
      >
        <div className="field-grid machine-grid">
          <div className="field">
            <label htmlFor="kernel" title={help.kernel}>Kernel</label>
            <select id="kernel" value={form.kernel} aria-describedby="kernel-help"
              onChange={(e) => lab.setKernel(e.target.value === '4.2BSD' ? '4.2BSD' : '4.3BSD')}>
              <option value="4.3BSD">4.3BSD</option>
              <option value="4.2BSD" disabled={!bsd42.available}>4.2BSD{bsd42.available ? '' : ' (not installed)'}</option>
            </select>
            <span className="visually-hidden" id="kernel-help">{help.kernel}</span>
          </div>
          {focused === 'kernel' ? <FieldHelp text={help.kernel!} /> : null}
          <div className="field">
            <label htmlFor="toggle-cpu" title={help['toggle-cpu']}>Processor</label>
            <select id="toggle-cpu" data-testid="toggle-cpu" value={errors['toggle-cpu'] ? '' : cpu}
              aria-invalid={errors['toggle-cpu'] ? true : undefined}
              aria-describedby={`toggle-cpu-help${errors['toggle-cpu'] ? ' toggle-cpu-error' : ''}`}
              className={cpu !== spec.machine.cpu ? 'changed' : undefined} onChange={(e) => lab.form.setCpu(e.target.value)}>
              {errors['toggle-cpu'] ? <option value="" disabled>(pick one)</option> : null}
              <option value="750">VAX-11/750</option>
              <option value="780">VAX-11/780</option>
            </select>
            <FieldError id="toggle-cpu-error" message={badChoice(form.cpu, errors['toggle-cpu'], 'a processor')} />
            <span className="visually-hidden" id="toggle-cpu-help">{help['toggle-cpu']}</span>
          </div>
          {focused === 'toggle-cpu' ? <FieldHelp text={help['toggle-cpu']!} /> : null}
          <div className="field">
            <label htmlFor="toggle-memoryMB" title={help['toggle-memoryMB']}>Memory (MB)</label>
            <input
              id="toggle-memoryMB" data-testid="toggle-memoryMB" type="text" inputMode="decimal" autoComplete="off" value={memory}
              className={memory.trim() !== '' && memory.trim() !== String(spec.machine.memoryMB) ? 'changed' : undefined}
              aria-invalid={errors['toggle-memoryMB'] ? true : undefined}
              aria-describedby={`toggle-memoryMB-help${errors['toggle-memoryMB'] ? ' toggle-memoryMB-error' : ''}`}
              onChange={(e) => lab.form.setMemory(e.target.value)}
            />
            <FieldError id="toggle-memoryMB-error" message={errors['toggle-memoryMB']} />
            <span className="visually-hidden" id="toggle-memoryMB-help">{help['toggle-memoryMB']}</span>
          </div>
          {focused === 'toggle-memoryMB' ? <FieldHelp text={help['toggle-memoryMB']!} /> : null}
          {NAMED_MACHINE_SETTINGS.map((name) => {
            const id = `toggle-${name}`;
            const field = CHOICE_FIELDS[name];
            const shown = shownChoice(form, name);
            return [
              <div className="field" key={name}>
                <label htmlFor={id} title={help[id]}>{field.label}</label>
                <select id={id} data-testid={id} value={errors[id] ? '' : shown}
                  aria-invalid={errors[id] ? true : undefined} aria-describedby={`${id}-help${errors[id] ? ` ${id}-error` : ''}`}
                  className={shown !== defaultChoice(name) ? 'changed' : undefined}
                  onChange={(e) => lab.form.setMachineChoice(name, e.target.value)}>
                  {errors[id] ? <option value="" disabled>(pick one)</option> : null}
                  {machineChoices(name).map((c) => <option key={c} value={c}>{field.options[c]}</option>)}
                </select>
                <FieldError id={`${id}-error`} message={badChoice(form[name], errors[id], field.what)} />
                <span className="visually-hidden" id={`${id}-help`}>{help[id]}</span>
              </div>,
              focused === id ? <FieldHelp key={`${name}-help`} text={help[id]!} /> : null,
            ];
          })}
          <div className="field">
            <label htmlFor="seeds" title={help.seeds}>Seeds</label>
            <input
              id="seeds" data-testid="seeds" type="text" inputMode="numeric" autoComplete="off" value={seeds}
              aria-invalid={errors.seeds ? true : undefined}
              aria-describedby={`seeds-help${errors.seeds ? ' seeds-error' : ''}`}
              onChange={(e) => lab.form.setSeeds(e.target.value)}
            />
            <FieldError id="seeds-error" message={errors.seeds} />
            <span className="visually-hidden" id="seeds-help">{help.seeds}</span>
          </div>
          {focused === 'seeds' ? <FieldHelp text={help.seeds} /> : null}
        </div>
        <KernelVariantField variant={form.variant} own={spec?.kernel} built={built} disabled={running} error={errors['kernel-variant']}
          onChange={(v) => lab.form.setVariant(v)} />
        {focused && machineIds.includes(focused) ? null : (
          <p className="machine-note hint">
            VAX-11/{cpu}: {CPU_WORDS[cpu]}{cpu === spec.machine.cpu ? '' : ` (the paper’s: a ${spec.machine.cpu})`}
            {NAMED_MACHINE_SETTINGS.map((name) => machineNote(name, shownChoice(form, name))).join('')}.{' '}
            <span className={changed.total ? 'changed-count' : undefined}>
              {changed.total ? `${changed.total} setting${changed.total === 1 ? '' : 's'} changed from the paper’s.` : 'All as the paper ran it.'}
            </span>
          </p>
        )}

        <details className="kernel-vars" open={kernelOpen} onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary>
            Kernel variables{' '}
            <span className={changed.kernel.length ? 'summary-note changed-count' : 'summary-note'}>
              {changed.kernel.length === 0
                ? 'as distributed'
                : `${changed.kernel.length} changed: ${changed.kernel.join(', ')}`}
            </span>
          </summary>
          <p className="hint">Patched into /vmunix before it boots. Empty: the kernel’s own value, as the paper ran.</p>
          <div className="field-grid toggle-grid">
            {KERNEL_TOGGLES.map((t) => {
              const id = `toggle-${t.name}`;
              const err = errors[id];
              const section = t.section.split(' ')[0];
              const value = form.kernelToggles[t.name] ?? '';
              return [
                <div className="field toggle" key={t.name}>
                  <label htmlFor={id} title={help[id]}>
                    <code>{t.name}</code> <span className="section-ref">§{section}</span>
                  </label>
                  <input
                    id={id} data-testid={id} type="text" inputMode="numeric" autoComplete="off"
                    placeholder={`${t.min}–${t.max}`} value={value} className={value.trim() !== '' ? 'changed' : undefined}
                    aria-invalid={err ? true : undefined} aria-describedby={`${id}-help${err ? ` ${id}-error` : ''}`}
                    onChange={(e) => lab.form.setKernelToggle(t.name, e.target.value)}
                  />
                  <FieldError id={`${id}-error`} message={err} />
                  <span className="visually-hidden" id={`${id}-help`}>{help[id]}</span>
                </div>,
                focused === id ? <FieldHelp key={`${t.name}-help`} text={help[id]!} /> : null,
              ];
            })}
          </div>
        </details>
      </form>
    </section>
  );
}

/**
 * Which kernel the machine boots: the experiment's own (Table 2's rows: the paper's kernel as the CSRG history
 * dates it, paper-1985; Tables 7 and 8 and the paging rows: like-4.2, the lab's closest to the paper's
 * 4.2BSD column; the other experiments: the image's /vmunix), the image's /vmunix as distributed,
 * GENERIC built from source in the guest, or a variant "4.3BSD without ..." one of the paper's improvements or
 * "... as of spring 1985" (experiments/kernels/variants.ts, the installer's list).  Only the chosen one is
 * fetched, when a run needs it; a variant the image's manifest does not list (not built) cannot be chosen.
 */
function KernelVariantField({ variant, own, built, disabled, error, onChange }: {
  variant: string | null; own: string | undefined; built: string[] | null; disabled: boolean; error: string | undefined;
  onChange: (variant: string | null) => void;
}) {
  const ownVariant = own !== undefined ? kernelByName(own) : undefined;
  // What boots: the choice, else the experiment's own.
  const effective = effectiveKernelName(own, variant);
  const chosen = effective !== null ? kernelByName(effective) : undefined;
  const changed = effective !== effectiveKernelName(own);
  const ownWords = ownVariant ? ownKernelWords(ownVariant.name) : undefined;
  const ownLabel = ownVariant
    ? `The experiment’s: ${ownVariant.label}${ownWords ? ` (${ownWords.option})` : ''}`
    : `The experiment’s: /vmunix as distributed (4.3BSD GENERIC, June 1986)`;
  return (
    <div className="field variant-field">
      <label htmlFor="kernel-variant">Kernel build</label>
      <select id="kernel-variant" data-testid="kernel-variant" value={variant ?? ''} disabled={disabled}
        className={changed ? 'changed' : undefined} aria-describedby="kernel-variant-info"
        aria-invalid={error ? true : undefined} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}>
        <option value="">{ownLabel}</option>
        <option value={DISTRIBUTED_KERNEL_NAME}>/vmunix as distributed (4.3BSD GENERIC, June 1986)</option>
        {KERNELS.map((k) => {
          const missing = built !== null && !built.includes(k.name);
          return (
            <option key={k.name} value={k.name} disabled={missing}>
              {k.label}{missing ? ' (not built)' : ''}
            </option>
          );
        })}
      </select>
      <FieldError id="kernel-variant-error" message={error} />
      {/* The variant's label and what it changes stay in view; why it is this experiment's default (a paragraph of
          dating evidence) opens on request, so the panel stays short. */}
      <div className="hint variant-info" id="kernel-variant-info" data-testid="kernel-variant-info">
        {chosen
          ? <>
            <p><strong>{chosen.label}</strong> · paper {chosen.paper}. {chosen.description}</p>
            {ownVariant && chosen.name === ownVariant.name && ownWords?.why
              ? <details className="variant-why"><summary>Why this experiment boots it</summary><p>{ownWords.why}</p></details>
              : null}
          </>
          : <p>{`${DISTRIBUTED_KERNEL_LABEL}: the kernel on the disk image. The installer also builds GENERIC from source ` +
            'in the guest and variants of it, each “4.3BSD without” one of the paper’s improvements, and some “as of ' +
            'spring 1985”, taking back a change made after the paper was measured; a variant is fetched only when chosen.'}</p>}
      </div>
    </div>
  );
}
