// The Configure form as the user types it (config.ts checks it and makes the
// run's settings from it), and the experiment list's search.

import { adoptShared, experimentById, heldChoice, initialForm, type FormState, type NamedMachineSetting } from '../config';
import type { SharedRun } from '../permalink';
import type { KernelName } from '../../worker/protocol';
import { Atom } from './atom';

export class Form {
  readonly form = new Atom<FormState>(initialForm());
  /** The experiment list's search. */
  readonly filter = new Atom('');

  select(id: string): void {
    if (!experimentById(id)) return;
    this.form.update((f) => ({ ...f, experimentId: id }));
  }

  setFilter(filter: string): void {
    this.filter.set(filter);
  }

  setParameter(name: string, raw: string): void {
    this.form.update((f) => {
      const id = f.experimentId;
      return { ...f, params: { ...f.params, [id]: { ...f.params[id], [name]: raw } } };
    });
  }

  setKernelToggle(name: string, raw: string): void {
    this.form.update((f) => ({ ...f, kernelToggles: { ...f.kernelToggles, [name]: raw } }));
  }

  setCpu(raw: string): void {
    this.form.update((f) => ({ ...f, cpu: raw }));
  }

  setMemory(raw: string): void {
    this.form.update((f) => ({ ...f, memoryMB: raw }));
  }

  /** The disk's timing (rp06, eagle, ideal, rm05) or the disks' rotation (drifting, locked) by name; a name the
   *  rotation does not have changes nothing. */
  setMachineChoice(name: NamedMachineSetting, choice: string): void {
    const held = heldChoice(name, choice);
    if (held) this.form.update((f) => ({ ...f, ...held }));
  }

  /** How many seeds each step runs with, as typed (config.ts checks it: 1..MAX_PAGE_SEEDS). */
  setSeeds(raw: string): void {
    this.form.update((f) => ({ ...f, seeds: raw }));
  }

  /** Profile the next runs (or not). */
  setProfile(on: boolean): void {
    this.form.update((f) => ({ ...f, profile: on }));
  }

  /** A kernel variant by name (experiments/kernels/variants.ts), 'vmunix' (the image's /vmunix), or null: the
   *  experiment's own (ExperimentSpec.kernel; none: /vmunix). */
  setVariant(variant: string | null): void {
    this.form.update((f) => ({ ...f, variant }));
  }

  setKernel(kernel: KernelName): void {
    this.form.update((f) => ({ ...f, kernel }));
  }

  /** Back to the paper's settings: the experiment's parameters and machine, the kernel's variables (the seeds stay:
   *  how often each step is measured, not a setting of the paper's; changedSettings). */
  reset(): void {
    this.form.update((f) => ({
      ...f, params: { ...f.params, [f.experimentId]: {} }, kernelToggles: {}, cpu: null, memoryMB: null, disk: null, spin: null,
      variant: null,
    }));
  }

  /** The settings a shared run was made with (to show them, or to run it again); what of them this lab
   *  cannot set, in words (adoptShared). */
  adopt(shared: SharedRun): string[] {
    // A run that was profiled runs again profiled.
    const profiled = shared.result.rows.some((r) => r.profile !== undefined);
    let dropped: string[] = [];
    this.form.update((f) => {
      const adopted = adoptShared(shared, f);
      dropped = adopted.dropped;
      return { ...adopted.form, profile: profiled || f.profile };
    });
    return dropped;
  }
}
