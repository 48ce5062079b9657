// Numbers and names the C side defines too, in one place on the TypeScript
// side.  Each says where C defines it; constants.test.ts reads those C files
// and fails when the two disagree, so a change on one side cannot go
// unnoticed on the other.

/** vax_stop_reason, emu/src/vax.h (the enum's order). */
export const StopReason = {
  Budget: 0,
  Halt: 1,
  DoubleFault: 2,
  HostRequest: 3,
  ScbHalt: 4,
} as const;
export type StopReason = (typeof StopReason)[keyof typeof StopReason];

/** What a run of the whole system returns beyond the processor's stops
 *  (vax780w_run()): the kernel asked the console to reboot and the system was
 *  booted again (keep running), or the kernel panicked.  VAX_SESSION_REBOOTED
 *  and VAX_SESSION_PANICKED, emu/src/system/session.h. */
export const VAX780_REBOOTED = 100;
export const VAX780_PANICKED = 101;

/** The CPU presets' scale of the cost model, virtual ns per "2000": each
 *  processor model (780, 750: emu/docs/timing.md) runs its own costs
 *  unscaled.  VAX_NS_PER_INSTRUCTION_780 and _750, emu/src/system/session.h
 *  (the headless machine's --cpu; 3333 on the 780 model is its old "750 =
 *  0.6 x 780" preset, --cpu 750x0.6). */
export const CPU_NS_PER_INSTRUCTION = { '780': 2000, '750': 2000 } as const;
export type CpuModel = keyof typeof CPU_NS_PER_INSTRUCTION;
/** Instructions between looks at the console output when a script waits for text: the native machine's
 *  (tools/vax780.c SLICE), so that a session in Node or the browser types, and stops, at the same instruction. */
export const CONSOLE_SLICE = 200_000;
/** The processors modelled (Vax780Options.cpuModel; vax_set_cpu_model). */
export const CPU_MODELS = ['780', '750'] as const satisfies readonly CpuModel[];

/** The disk timing profiles, the default first: rp_timing_names(),
 *  emu/src/massbus/rp.c (vax780w_set_disk_timing takes these names); new
 *  ones go at the end (toggles.ts numbers them in this order). */
export const DISK_TIMINGS = ['rp06', 'eagle', 'ideal', 'rm05'] as const;
export type DiskTiming = (typeof DISK_TIMINGS)[number];

/** How the disks turn, the default first (toggles.ts numbers them in this
 *  order): 'drifting', a request that finds a drive idle a turn or more
 *  finds its platter at an angle drawn from the spin seed
 *  (Vax780Options.diskSpinSeed), or 'locked', the platters in step with
 *  virtual time (Vax780Options.diskSpinLocked, vax780w_lock_disk_spin). */
export const SPINS = ['drifting', 'locked'] as const;
export type Spin = (typeof SPINS)[number];

/** The drives a Vax780's disk can be on: the MASSBUS RP06 (hp0), or an RA
 *  drive on the UDA50 (ra0): ra_type_names(), emu/src/unibus/uda50.c. */
export const DISK_TYPES = ['RP06', 'RA60', 'RA80', 'RA81', 'RA82'] as const;
export type DiskType = (typeof DISK_TYPES)[number];
/** The RA drives' logical blocks (host-visible, 512 bytes each): the lbns of
 *  ra_types[], emu/src/unibus/uda50.c. */
export const RA_BLOCKS: Record<Exclude<DiskType, 'RP06'>, number> = { RA60: 400176, RA80: 237212, RA81: 891072, RA82: 1216665 };

/** vaxw_abi_version(), emu/wasm/vax_wasm.c: the glue this binding was written for. */
export const ABI_VERSION = 14;

/** The boot flag for single-user that vax780w_create() takes in `howto` (0
 *  boots multi-user): RB_SINGLE, emu/src/boot/boot.h (4.3BSD's <sys/reboot.h>). */
export const RB_SINGLE = 2;
