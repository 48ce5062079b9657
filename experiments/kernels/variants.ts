// The 4.3BSD kernels the installer builds in the guest (installer/lib/kernels.ts):
// GENERIC from the distribution's sources, and variants of it, each reverting
// one of the improvements of McKusick, Leffler and Karels, "Measuring and
// Improving the Performance of Berkeley UNIX", section 4 (and section 5.1.6's
// two-handed page clock), to the 4.2BSD behaviour the paper describes, by our
// own patches (patches/*.patch, each with a header saying what it changes and
// why that is 4.2BSD's way).  One of them, the page daemon's thresholds and
// scan rates, is not in the paper: its 4.2BSD values were read in the CSRG
// SCCS history of vm_sched.c and vax/vmparam.h, which dates the change to
// February and March 1985.
//
// Data only, for the installer, the experiment runner and the lab page: no
// Node or browser APIs here.  A variant is always "4.3BSD without ...": none of
// them is 4.2BSD, whose kernel differs in much more than these changes.
//
// Some variants are of another kind: "4.3BSD with ... as of spring 1985"
// takes back, in the same way (our own patches), changes that the CSRG SCCS
// history dates between the spring of 1985, when the paper's 4.3BSD column
// was measured, and the June 1986 release we run.  None is the paper's kernel
// either: only those changes are undone.  One of them, paper-1985, is what
// Table 2 boots by default (PAPER_KERNEL_VARIANT in experiments/runner).

export interface KernelVariant {
  /** File-name-safe id: the kernel ships as IMAGE-kernel-NAME.gz, its
   *  sources are /usr/src/sys-NAME in the guest while it is built. */
  name: string;
  /** What the lab shows: "4.3BSD without ..." or "4.3BSD with ... as of
   *  spring 1985" (GENERIC says what it is). */
  label: string;
  /** The paper's sections (and tables) the variant is about. */
  paper: string;
  /** One or two sentences: what is reverted and what to expect. */
  description: string;
  /** Patch files of experiments/kernels/patches, applied in this order to a
   *  copy of /usr/src/sys; empty for GENERIC itself. */
  patches: readonly string[];
}

/** A variant reverting one of the paper's improvements (section 4, or 5.1.6's page clock): "4.3BSD
 *  without ..." (never 4.2BSD, whose kernel differs in much more). */
export function isWithoutLabel(label: string): boolean {
  return label.startsWith('4.3BSD without ') && !label.includes('4.2BSD');
}

/** A variant taking back one change the CSRG SCCS history dates between the
 *  paper's measurements and the June 1986 release: "4.3BSD with ..., as of
 *  spring 1985" (never 4.2BSD, nor the paper's kernel: only that change). */
export function isSpring1985Label(label: string): boolean {
  return label.startsWith('4.3BSD with ') && label.endsWith(', as of spring 1985') && !label.includes('4.2BSD');
}

/** GENERIC as the distribution configures it, compiled from /usr/src/sys by
 *  config and make in the guest: the reference the variants differ from, and
 *  a check that building in the guest gives the distributed /vmunix's
 *  behaviour. */
export const GENERIC_KERNEL: KernelVariant = {
  name: 'generic',
  label: '4.3BSD GENERIC, built from source in the guest',
  paper: 'the June 1986 release (the image\'s /vmunix is its GENERIC), the reference the variants differ from',
  description: 'config GENERIC and make in /usr/src/sys/GENERIC, after make clean: every object compiled by the ' +
    'guest\'s cc. It should behave as the distributed /vmunix does.',
  patches: [],
};

export const NO_OFFSET_CACHE: KernelVariant = {
  name: 'no-offset-cache',
  label: '4.3BSD without the per-process directory offset cache',
  paper: 'section 4.1.1, Tables 4 and 9',
  description: 'namei searches every directory from its beginning, as 4.2BSD did; the paper: `ls -l` of 600 files ' +
    'took 22.3 s of system time before the per-process cache and 3.3 s after it.',
  patches: ['no-offset-cache.patch'],
};

export const NO_NAME_CACHE: KernelVariant = {
  name: 'no-name-cache',
  label: '4.3BSD without the system-wide name cache',
  paper: 'section 4.1.1, Tables 9 and 10',
  description: 'namei has no cache of recent translations compiled in (nchsize is 0): the per-process offset cache ' +
    'alone, the paper\'s 3.3 s for `ls -l` (3.7 s with both caches).',
  patches: ['no-name-cache.patch'],
};

export const EXEC_BYTES: KernelVariant = {
  name: 'exec-bytes',
  label: '4.3BSD without string-at-a-time exec argument copying',
  paper: 'section 4.1.8, Tables 2 and 3 (exec)',
  description: 'execve copies the arguments and environment in and back out a byte at a time (fubyte, subyte), as ' +
    '4.2BSD did; the paper: string copies made argument processing ten times faster and exec 25% faster.',
  patches: ['exec-bytes.patch'],
};

export const PROC_SCANS: KernelVariant = {
  name: 'proc-scans',
  label: '4.3BSD without the threaded process table',
  paper: 'sections 3.2.5 and 4.1.3, Table 2 (fork, exec)',
  description: 'fork, exit, wait, kill, schedcpu and sched search the whole process table (84 slots in GENERIC) as ' +
    '4.2BSD did, instead of the lists of active, zombie and free processes and of each one\'s children.',
  patches: ['proc-scans.patch'],
};

export const SOFTCLOCK_EVERY_TICK: KernelVariant = {
  name: 'softclock-every-tick',
  label: '4.3BSD without the clock interrupt\'s software-interrupt savings',
  paper: 'sections 3.2.3 and 4.1.5',
  description: 'hardclock posts a software clock interrupt on every tick, 100 a second, as 4.2BSD did, instead of ' +
    'only when there is work for softclock, and never runs softclock directly; the paper: 3% of the machine to ' +
    'trap and return, 2% more to find nothing to do.',
  patches: ['softclock-every-tick.patch'],
};

export const ONE_HAND_CLOCK: KernelVariant = {
  name: 'one-hand-clock',
  label: '4.3BSD without the two-handed page clock',
  paper: 'section 5.1.6, Tables 7 and 8',
  description: 'The page daemon runs one clock hand that both marks (clears the valid bit standing in for the ' +
    'reference bit) and frees a page still unreferenced when it comes round again, a revolution later, as 4.2BSD\'s ' +
    'did; 4.3BSD frees from a back hand 2 MB of the core map behind the marking one.',
  patches: ['one-hand-clock.patch'],
};

export const PAGING_THRESHOLDS_42: KernelVariant = {
  name: 'paging-thresholds-4.2',
  label: '4.3BSD without the 512 KB lotsfree, the memory-independent scan rates and the resident-set limit',
  paper: 'section 5.1.6, Tables 7 and 8 (dated by the CSRG SCCS history: vm_sched.c 6.4, 6.5; vax/vmparam.h 6.3; init_main.c 6.7)',
  description: 'The page daemon starts when free memory falls below a quarter of the clock\'s loop (LOOPPAGES / 4), ' +
    'as 4.2BSD\'s did, instead of 512 KB, and paces itself by a time per revolution that grows with memory ' +
    '(fastscan = the loop\'s clusters / 200 seconds, slowscan twice that, interpolated by the memory available), as ' +
    'before vm_sched.c deltas 6.4 and 6.5 (22 February and 3 March 1985); and no process has a resident-set limit, as ' +
    'before init_main.c delta 6.7 (3 March 1985), so the clock takes a large process\'s pages only when they go ' +
    'unreferenced, not at random once it fills memory. desfree, minfree and maxpgio were 4.2BSD\'s already.',
  patches: ['paging-thresholds-4.2.patch'],
};

export const RESCHED_AFTER_IDLE: KernelVariant = {
  name: 'resched-after-idle',
  label: '4.3BSD without cancelling a pending reschedule at the context switch',
  paper: 'section 4.1.9, Tables 2 (csw, pipes) and 8',
  description: 'Swtch clears the reschedule flag (runrun) before it idles, as 4.2BSD did, instead of after choosing ' +
    'the process to run: a process woken while the processor idled switches out and straight back in again on its ' +
    'way to user mode (every page-in that waits for the disk, every wakeup from idle). Only that part of section ' +
    '4.1.9 is in the release to take back: Table 2\'s pipe and signal rows, whose processes never wait for an idle ' +
    'processor, do not change.',
  patches: ['resched-after-idle.patch'],
};

export const LIKE_42: KernelVariant = {
  name: 'like-4.2',
  label: '4.3BSD without the name caches, string exec copying, the process lists, the clock\'s savings, the reschedule cancel at a context switch, the two-handed page clock and the 1985 paging thresholds',
  paper: 'sections 3.2.3, 3.2.5, 4.1.1, 4.1.3, 4.1.5, 4.1.8, 4.1.9 and 5.1.6; Table 2\'s 4.2 column, Tables 7 and 8',
  description: 'All eight reverts together: the nearest these patches come to 4.2BSD\'s kernel. It is still 4.3BSD ' +
    '(its pipes, signals, the context switch but for the reschedule it cancels, setjmp, inline expansions and much ' +
    'else stay as they are).',
  patches: ['no-offset-cache.patch', 'no-name-cache.patch', 'exec-bytes.patch', 'proc-scans.patch', 'softclock-every-tick.patch',
    'one-hand-clock.patch', 'paging-thresholds-4.2.patch', 'resched-after-idle.patch'],
};

export const OFILE_SCANS_1985: KernelVariant = {
  name: 'ofile-scans-1985',
  label: '4.3BSD with fork, exec and exit scanning all 48 open-file slots, as of spring 1985',
  paper: 'Table 2\'s 4.3 column (forks, vforks, execs, vexecs), measured on a kernel of spring 1985',
  description: 'fork, exec and exit look at all 48 slots of the open-file table (exit calls closef for each, open or ' +
    'not), as before the high-water mark of 27 May 1985 (CSRG SCCS history: kern_fork.c 6.6, kern_exit.c 6.9, ' +
    'kern_exec.c 6.12; NOFILE 48 from param.h 6.6); the release looks only up to the highest open descriptor.',
  patches: ['ofile-scans-1985.patch'],
};

export const SIGNALS_1985: KernelVariant = {
  name: 'signals-1985',
  label: '4.3BSD with the signal return by chmk 139 and inline system-call argument copying, as of spring 1985',
  paper: 'Table 2\'s 4.3 column (signocsw, csw; every system call with arguments), if measured before 11 March 1985',
  description: 'sendsig probes the handler\'s frame inline, the trampoline returns through chmk 139 and the user\'s own REI ' +
    'instead of the sigreturn system call, and syscall copies arguments inline instead of calling copyin, as before ' +
    '11-12 March 1985 (CSRG SCCS history: machdep.c 6.13, locore.s 6.24, trap.c 6.5). Whether the kernel the paper ' +
    'measured predates those deltas is not known.',
  patches: ['signals-1985.patch'],
};

export const SPRING_1985: KernelVariant = {
  name: 'spring-1985',
  label: '4.3BSD with the open-file scans, the chmk 139 signal return and inline argument copying, as of spring 1985',
  paper: 'Table 2\'s 4.3 column, if measured before 11 March 1985',
  description: 'Both spring-1985 variants together: fork, exec and exit scan all 48 open-file slots (before 27 May ' +
    '1985), and signals return through chmk 139 with system-call arguments copied inline (before 11-12 March 1985). ' +
    'Still the June 1986 release in everything else; whether the kernel the paper measured predates March 1985 is ' +
    'not known.',
  patches: ['ofile-scans-1985.patch', 'signals-1985.patch'],
};

export const TEXT_RELEASE_1985: KernelVariant = {
  name: 'text-release-1985',
  label: '4.3BSD with each text released at its last process\'s exit (no text cache), as of spring 1985',
  paper: 'Table 2\'s 4.3 column (execs, vexecs), measured on a kernel of spring 1985',
  description: 'xfree releases a program\'s text at its last process\'s exit (maxtextcache starts at 0), so the next ' +
    'exec builds the text\'s page table from the file and reclaims its pages from the free list, instead of reading ' +
    'the cached page table back from swap: the cache came with the free list of texts of 9 November 1985 (CSRG SCCS ' +
    'history: h/text.h 6.4 and 6.5, 26 November 1985). The rest of the release\'s vm_text.c stays.',
  patches: ['text-release-1985.patch'],
};

/** Table 2's default since 26 November 2026 (PAPER_KERNEL_VARIANT): both changes the CSRG SCCS history dates after
 *  the spring of 1985 that show in Table 2's exec and fork rows, taken back together. */
export const PAPER_1985: KernelVariant = {
  name: 'paper-1985',
  label: '4.3BSD with the open-file scans and without the text cache, as of spring 1985',
  paper: 'Table 2\'s 4.3 column (forks, vforks, execs, vexecs), measured on a kernel of spring 1985',
  description: 'Both dated changes of Table 2\'s fork and exec paths taken back: fork, exec and exit scan all 48 ' +
    'open-file slots (before 27 May 1985), and a text is released at its last process\'s exit instead of cached ' +
    '(before 9 November 1985). Still the June 1986 release in everything else.',
  patches: ['ofile-scans-1985.patch', 'text-release-1985.patch'],
};

/** Every kernel the installer builds, GENERIC first. */
export const KERNELS: readonly KernelVariant[] = [
  GENERIC_KERNEL, NO_OFFSET_CACHE, NO_NAME_CACHE, EXEC_BYTES, PROC_SCANS, SOFTCLOCK_EVERY_TICK, ONE_HAND_CLOCK,
  PAGING_THRESHOLDS_42, RESCHED_AFTER_IDLE, LIKE_42,
  OFILE_SCANS_1985, SIGNALS_1985, SPRING_1985, TEXT_RELEASE_1985, PAPER_1985,
];

export function kernelByName(name: string): KernelVariant | undefined {
  return KERNELS.find((k) => k.name === name);
}

/** The name that asks for the image's own /vmunix, the kernel as distributed (June 1986), where an experiment
 *  boots another by default (Table 2: PAPER_KERNEL_VARIANT, Tables 7 and 8: PAGING_KERNEL_VARIANT, in
 *  experiments/runner/experiments.ts). */
export const DISTRIBUTED_KERNEL_NAME = 'vmunix';
/** The distributed kernel in words, as results and the lab name it. */
export const DISTRIBUTED_KERNEL_LABEL = '4.3BSD as distributed (the image\'s /vmunix, GENERIC of June 1986)';

/** A kernel a run can ask for by name: a variant the installer builds, or the distributed /vmunix. */
export function isKernelChoice(name: string): boolean {
  return name === DISTRIBUTED_KERNEL_NAME || kernelByName(name) !== undefined;
}

/** The kernel a run boots, by name: the one asked for (DISTRIBUTED_KERNEL_NAME: the image's /vmunix), else the
 *  experiment's own default (ExperimentSpec.kernel); null: the image's /vmunix. */
export function effectiveKernelName(experimentDefault: string | undefined, requested?: string | null): string | null {
  const name = requested ?? experimentDefault ?? null;
  return name === null || name === DISTRIBUTED_KERNEL_NAME ? null : name;
}

/** How a result names a kernel: "NAME: label" (the CLI's and the page's runs agree), for a variant or /vmunix. */
export function kernelResultName(name: string | null): string {
  if (name === null || name === DISTRIBUTED_KERNEL_NAME) return `${DISTRIBUTED_KERNEL_NAME}: ${DISTRIBUTED_KERNEL_LABEL}`;
  const v = kernelByName(name);
  return v ? `${v.name}: ${v.label}` : name;
}

/** The gzipped kernel's file name beside the disk image (web/public/images),
 *  e.g. 43bsd-kernel-no-name-cache.gz: the page fetches only the chosen one. */
export function kernelFileName(image: string, name: string): string {
  return `${image}-kernel-${name}.gz`;
}
