// The page's address says what the page is set to, as Compiler Explorer's
// does: the experiment and every setting changed from the paper's, in the
// fragment, kept up to date as the form changes, so a reload or a copied
// address comes back to the same configuration, results or not.  A result's
// permalink (permalink.ts) sits beside them as r=.
//
//   #x=syscall&p.iterations=2000&cpu=780&mem=5&disk=eagle&k.nchsize=0&r=2.…
//
//   x         the experiment
//   p.NAME    one of its parameters, as typed
//   k.NAME    a kernel variable, as typed
//   cpu, mem, disk, kernel   the machine (when not the experiment's own)
//   spin      locked: the disks' platters in step with virtual time (absent: drifting)
//             (disk and spin: config.ts's NAMED_MACHINE_SETTINGS, named only when not the default)
//   variant   the kernel booted when not the experiment's own: a variant (experiments/kernels/variants.ts), or vmunix
//   profile   1: the run is profiled
//   seeds     N: each step run with seeds 1..N, each row the median (absent: 1, one run)
//   r         a permalink's value (a run, or two compared)
//
// Values are kept as typed (a half-typed number comes back as it was, and is
// marked in red as it would be); names that are not the experiment's or the
// lab's are left out, and an unknown experiment is reported.  No DOM.

import { effectiveKernelName, isKernelChoice } from '../../../experiments/kernels/variants';
import {
  defaultChoice, experimentById, heldChoice, isNamedMachineSetting, KERNEL_TOGGLES, NAMED_MACHINE_SETTINGS, type FormState,
  type NamedMachineSetting,
} from './config';
import { PERMALINK_KEY } from './permalink';

/** Longest value of a setting the address carries (characters). */
const MAX_VALUE = 40;

/** The form's settings as the address's fragment parameters (without '#'), only what differs from the paper's. */
export function formParams(form: FormState): string {
  const out = new URLSearchParams();
  out.set('x', form.experimentId);
  const spec = experimentById(form.experimentId);
  for (const [name, raw] of Object.entries(form.params[form.experimentId] ?? {})) {
    const dflt = spec?.parameters[name];
    if (raw.trim() !== '' && raw.trim() !== String(dflt)) out.set(`p.${name}`, raw);
  }
  if (form.cpu !== null && form.cpu.trim() !== '' && form.cpu.trim() !== spec?.machine.cpu) out.set('cpu', form.cpu);
  if (form.memoryMB !== null && form.memoryMB.trim() !== '' && form.memoryMB.trim() !== String(spec?.machine.memoryMB)) {
    out.set('mem', form.memoryMB);
  }
  for (const name of NAMED_MACHINE_SETTINGS) {
    const held = form[name];
    if (held !== null && held.trim() !== '' && held.trim() !== defaultChoice(name)) out.set(name, held);
  }
  if (form.kernel !== '4.3BSD') out.set('kernel', form.kernel);
  // Only a kernel other than the one the experiment boots anyway: a run opened from the history names the kernel it
  // ran (config.ts, adoptShared), which is often the experiment's own, and its address is then the one a fresh run of
  // the same settings has.
  if (form.variant !== null && form.variant !== '' &&
    effectiveKernelName(spec?.kernel, form.variant) !== effectiveKernelName(spec?.kernel, null)) out.set('variant', form.variant);
  if (form.profile) out.set('profile', '1');
  if (form.seeds !== null && form.seeds.trim() !== '' && form.seeds.trim() !== '1') out.set('seeds', form.seeds);
  for (const t of KERNEL_TOGGLES) {
    const raw = form.kernelToggles[t.name];
    if (raw !== undefined && raw.trim() !== '') out.set(`k.${t.name}`, raw);
  }
  return out.toString();
}

/** The whole fragment: the form's parameters, then the permalink's value when there is one. */
export function fragmentFor(form: FormState, link: string | null): string {
  return `#${formParams(form)}${link ? `&${PERMALINK_KEY}=${link}` : ''}`;
}

/** What an address's fragment says. */
export interface AddressContents {
  /** The settings it names (null: it names none), and what of it this lab could not take. */
  form: ((previous: FormState) => FormState) | null;
  problems: string[];
  /** A permalink's value (r=), or null. */
  link: string | null;
}

/** Reads a fragment ('#…', or a format-1 '#r=1.…' link alone). */
export function readFragment(hash: string): AddressContents {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  if (text === '') return { form: null, problems: [], link: null };
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(text);
  } catch {
    return { form: null, problems: ['The address’s settings could not be read.'], link: null };
  }
  const link = params.get(PERMALINK_KEY);
  const id = params.get('x');
  if (id === null) return { form: null, problems: [], link };
  const spec = experimentById(id);
  if (!spec) return { form: null, problems: [`The address names an experiment this lab does not have: “${id.slice(0, MAX_VALUE)}”.`], link };

  const problems: string[] = [];
  const ignored: string[] = [];
  const value = (v: string) => v.slice(0, MAX_VALUE);
  const typedParams: Record<string, string> = {};
  const kernelToggles: Record<string, string> = {};
  let cpu: string | null = null;
  let memoryMB: string | null = null;
  let machine: Pick<FormState, NamedMachineSetting> = { disk: null, spin: null };
  let kernel: FormState['kernel'] = '4.3BSD';
  let profile = false;
  let variant: string | null = null;
  let seeds: string | null = null;
  for (const [key, v] of params) {
    if (key === 'x' || key === PERMALINK_KEY) continue;
    const held = isNamedMachineSetting(key) ? heldChoice(key, value(v)) : null;
    if (key.startsWith('p.') && Object.hasOwn(spec.parameters, key.slice(2))) typedParams[key.slice(2)] = value(v);
    else if (key.startsWith('k.') && KERNEL_TOGGLES.some((t) => t.name === key.slice(2))) kernelToggles[key.slice(2)] = value(v);
    else if (key === 'cpu') cpu = value(v);
    else if (key === 'mem') memoryMB = value(v);
    else if (held) machine = { ...machine, ...held };
    else if (key === 'kernel' && (v === '4.3BSD' || v === '4.2BSD')) kernel = v;
    else if (key === 'profile' && (v === '1' || v === '0')) profile = v === '1';
    // As typed, as the other numbers are: one the page does not run is marked in the form.
    else if (key === 'seeds') seeds = value(v);
    else if (key === 'variant') {
      // The image's /vmunix by name too: where the experiment boots a variant by default, that is what it asks for.
      if (isKernelChoice(v)) variant = v;
      // Left out, the experiment's own kernel boots (Table 2's paper-1985, the paging tables' like-4.2), which is
      // the distributed /vmunix only for the others: named, so the words say what the run will boot.
      else {
        const own = effectiveKernelName(spec.kernel, null);
        problems.push(`The address names a kernel variant this lab does not have: “${value(v)}”; ` +
          `${own === null ? 'the distributed /vmunix' : `the experiment’s own kernel, ${own},`} is used.`);
      }
    }
    else ignored.push(key.slice(0, MAX_VALUE));
  }
  if (ignored.length) problems.push(`The address has settings this lab does not know, left out: ${ignored.join(', ')}.`);
  return {
    link,
    problems,
    form: (previous) => ({
      ...previous, experimentId: spec.id, params: { ...previous.params, [spec.id]: typedParams }, kernelToggles, cpu, memoryMB, ...machine,
      kernel, profile, variant, seeds,
    }),
  };
}
