// Building the kernel as a workload: the job the paper's machines ran every
// day ("the kernel ... compiled ... on the 780s"), timed like any experiment.
// config GENERIC and make clean come first, untimed; then `make vmunix`
// compiles every one of GENERIC's C files with the guest's cc, assembles
// locore and links, under /bin/time (make's children's times are summed in).
// make writes its commands to a file in the guest, not to the console: at
// 9600 baud the console would otherwise time the terminal as much as the
// compiler.
//
// Data only, like variants.ts; the runner's EXPERIMENTS lists it.

import { GROUPS, type ExperimentSpec, type StepSpec } from '../runner/spec';

/** Where make's own output goes in the guest while it is timed. */
export const KERNEL_BUILD_LOG = '/tmp/make-vmunix.log';

const STEP: StepSpec = {
  id: 'make-vmunix',
  label: 'config GENERIC; make vmunix',
  setup: [
    'cd /sys/conf',
    'config GENERIC > /dev/null 2>&1',
    'cd ../GENERIC',
    'make clean > /dev/null 2>&1',
  ],
  // /bin/time times the shell, and so make and every cc, as, ld it runs.
  command: `sh -c 'make vmunix > ${KERNEL_BUILD_LOG} 2>&1'`,
  count: null,
  parse: 'time',
  kernel: {},
  readback: [],
  paper: null,
  // About 2,600 virtual seconds on the 780 model, 1.7 times that on the 750.
  limitSeconds: 12_000,
};

export const KERNEL_BUILD_EXPERIMENT: ExperimentSpec = {
  id: 'kernel-build',
  title: 'Building the 4.3BSD kernel: config GENERIC and make vmunix in the guest',
  group: GROUPS.workloads,
  description: 'config GENERIC and make clean, then `make vmunix` timed with /bin/time: 143 C files compiled by the ' +
    'guest\'s cc, locore assembled, vmunix linked, on a fresh single-user 4.3BSD.\n' +
    'The paper gives no figure for it; run it on the 780 and the 750 (cpu setting) or on a kernel variant to compare.',
  paperRef: '§1 and §2: the machines\' daily work (no table)',
  machine: {
    cpu: '780', memoryMB: 8, boot: 'single',
    memoryNote: 'a 780 with 8 MB, like the Berkeley machines that built kernels',
  },
  steps: [STEP],
  parameters: {},
  parameterHelp: {},
  counters: ['cpu.us', 'cpu.sy', 'faults.sy', 'faults.pf', 'paging.pi'],
  compare: 'ours = the guest\'s /bin/time of the whole build (real, user, sys); the paper has no figure to compare with',
  view: 'table2',
};
