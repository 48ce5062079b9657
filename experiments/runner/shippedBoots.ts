// The machines the image builder boots, saves at their prompts and ships
// beside the image (installer/lib/shipped.ts), so that the page starts them
// without booting (web/src/worker): Table 2's machine, which the page's
// default experiment and every Table 2 row run on; the paging tables'; and
// the Terminal tab's multi-user machine at its login prompt.  Each is
// configured exactly as the runner (stepMachineOptions) or the terminal
// creates it, and booted the way they wait for their prompt, so a restored
// one is the machine they would have booted.

import { CPU_NS_PER_INSTRUCTION, type CpuModel } from '../../emu/js/constants';
import type { Vax780Options } from '../../emu/js/vax780';
import { SINGLE_USER_BOOT, TERMINAL_BOOT, type BootRecipe } from './bootSnapshots';
import { PAGING_KERNEL_VARIANT, PAPER_KERNEL_VARIANT, findExperiment } from './experiments';
import { resolveRun, stepMachineOptions } from './runner';

/** The Terminal tab's machine (web/src/lab/state/terminal.ts asks the worker for it). */
export const TERMINAL_MACHINE: { cpu: CpuModel; memoryMB: number } = { cpu: '780', memoryMB: 8 };

/** The terminal's machine options (web/src/worker/terminal.ts creates it so). */
export function terminalMachineOptions(cpu: CpuModel, memoryMB: number): Omit<Vax780Options, 'disk'> {
  return { memoryMB, boot: 'multi', cpuModel: cpu, nsPerInstruction: CPU_NS_PER_INSTRUCTION[cpu] };
}

export interface ShippedBoot {
  /** The file's part of the name (43bsd-boot-NAME.snap.gz). */
  name: string;
  what: string;
  options: Omit<Vax780Options, 'disk'>;
  recipe: BootRecipe;
  /** The kernel variant the machine boots, by name (ExperimentSpec.kernel: Table 2's is the paper's, the paging
   *  tables' like-4.2); absent: the image's /vmunix.  The installer boots it from the file it built beside the
   *  image, and the manifest names it with its SHA-256, which the runner's boot key has. */
  kernel?: string;
}

/** A step's machine of an experiment, with the runner's default spin seed (1), and its default kernel. */
function experimentMachine(id: string): { options: Omit<Vax780Options, 'disk'>; kernel?: string } {
  const spec = findExperiment(id)!;
  const run = resolveRun(spec);
  return { options: stepMachineOptions(run, run.steps[0]!.kernel, 1, spec.machine.drives), ...(spec.kernel ? { kernel: spec.kernel } : {}) };
}

export function shippedBoots(): ShippedBoot[] {
  return [
    {
      name: 'table2',
      what: `Table 2's machine at its single-user prompt: a 750 with 4.5 MB, the paper's kernel (${PAPER_KERNEL_VARIANT}) and sosend`,
      ...experimentMachine('table2'), recipe: SINGLE_USER_BOOT,
    },
    {
      name: 'paging',
      what: `the paging tables' machine (Tables 6-8) at its single-user prompt: a 750 with 4.5 MB, on ${PAGING_KERNEL_VARIANT}`,
      ...experimentMachine('table7'), recipe: SINGLE_USER_BOOT,
    },
    {
      name: 'terminal', what: 'the Terminal tab\'s machine at its first multi-user login prompt: a 780 with 8 MB',
      options: terminalMachineOptions(TERMINAL_MACHINE.cpu, TERMINAL_MACHINE.memoryMB), recipe: TERMINAL_BOOT,
    },
  ];
}
