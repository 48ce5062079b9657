/*
 * session.h — a whole VAX-11/780 as a host drives it: build it, boot it the
 * way an operator at its console would, run it in slices, type on its console
 * and read what it prints, follow the reboots the kernel asks for, and notice
 * a kernel panic.
 *
 * The hosts — the command-line machine (tools/vax780.c) and the WebAssembly
 * glue (wasm/vax780_wasm.c) — are thin layers over this: option parsing,
 * files and scripts in one, wasm memory and JavaScript in the other.  This is
 * their whole interface to the system; they need nothing from machine.h.
 *
 * The boot disk is hp0, or, without hp0, ra0 (an RA drive on the UDA50;
 * /boot and the kernel are then told R10 = ra, boot.h's BOOT_DEVICE(9,...)).
 *
 * Booting (once, after creation; the console's ways, boot/boot.h,
 * boot/standalone.h and boot/vmb.h):
 *   vax_session_boot_disk        /boot from partition a of the boot disk, as
 *                                the 780 console's DEFBOO does (howto in R11)
 *   vax_session_boot_kernel      the kernel loaded by the host in the state
 *                                /boot leaves it (faster, same kernel), with
 *                                the kernel variables of
 *                                vax_session_set_kernel_variable patched in
 *   vax_session_boot_standalone  a 4.3BSD standalone program (copy, boot)
 *   vax_session_boot_tape_block  the tape's boot block, as tstoggle leaves it
 *   vax_session_console_load / _start   LOAD and START: DEC's diagnostics
 *   vax_session_boot_vmb         DEC's primary bootstrap VMB from an RA drive,
 *                                as the console's BOOT command starts it (the
 *                                Diagnostic Supervisor, or what the disk holds)
 * When the kernel later asks the console to reboot (reboot(8), a panic), the
 * session does what the 780's console does: INIT, then a multi-user boot from
 * the boot disk — through /boot, or by loading the kernel again (with its
 * variables) if the first boot did that, or through VMB again (same device
 * and flags) if the first boot did that.
 *
 * Panics: when the session booted a 4.3BSD kernel it finds the kernel's
 * `_panicstr` in the kernel file's symbol table; panic() sets it before it
 * prints anything, so a panic is known from the kernel's own state, never
 * from text on the console (a user typing "panic:" is not one).
 */
#ifndef VAX_SYSTEM_SESSION_H
#define VAX_SYSTEM_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"
#include "vax.h"

typedef struct vax_session vax_session;

#define VAX_SESSION_MAX_DISKS 8   /* hp0-hp3 on MBA0 (TR 8), hp4-hp7 on MBA1 (TR 9) */
#define VAX_SESSION_MAX_RA 4      /* ra0-ra3: units 0-3 of the UDA50 at 772150 on UBA0 */

/* The CPU presets: each picks a processor model (cpu/timing.h: the 780 or
 * the 750, each with its own cycle, cache and TB), whose costs run as they
 * are — the cost model's scale, ns_per_instruction / 2000, is 1 for both.
 * The old preset "a 750 is 0.6 of a 780" was the 780's model at 3333
 * (VAX_NS_PER_INSTRUCTION_750X06, the CLI's --cpu 750x0.6).  The runner's
 * TypeScript names the same numbers (experiments' and the page's "cpu"
 * setting). */
#define VAX_NS_PER_INSTRUCTION_780 2000u
#define VAX_NS_PER_INSTRUCTION_750 2000u
#define VAX_NS_PER_INSTRUCTION_750X06 3333u

typedef struct {
    uint32_t memory_kb;           /* a multiple of 256 from 256 to 65536; 0 = 8192 */
    int cpu_model;                /* the processor modelled: 780 (0 = the default) or 750 */
    uint32_t ns_per_instruction;  /* the cost model's scale (above); 0 = 2000, as it is */
    uint32_t disk_spin_seed;      /* 0: disks turn in step with virtual time; N: each disk command
                                   * finds the platter at a pseudo-random angle (massbus/rp.h), each
                                   * clock interrupt comes a pseudo-random delay after its overflow
                                   * (system/clock.h) */
    int flat_timing;              /* the first, flat model: 2000 ns an instruction (scaled) */
    int no_idle_skip;             /* run idle loops instruction by instruction */
    const char *disk_timing;      /* "rp06", "eagle", "ideal", "rm05"; NULL = each drive's own */
    struct {
        const char *type;         /* "RP06", "RM03", ...; NULL = no drive */
        vax_blockdev *image;      /* the session does not own it */
    } disk[VAX_SESSION_MAX_DISKS];
    struct {
        const char *type;         /* "RA60", "RA80", "RA81", "RA82"; NULL = no drive */
        vax_blockdev *image;      /* exactly the pack's size (vax_session_ra_bytes); not owned */
    } ra[VAX_SESSION_MAX_RA];     /* with any of these, a UDA50 on UBA0 */
    vax_blockdev *tape;           /* TS11 image (SIMH .tap), or NULL */
} vax_session_config;

/* The disks' timing profiles (massbus/rp.c): whether name is one, and their
 * names for messages ("rp06, eagle, ideal"). */
int vax_session_disk_timing_known(const char *name);
const char *vax_session_disk_timing_names(void);

/* The RA drive types (unibus/uda50.h): a pack's size in bytes (0 for a
 * name that is not one, case-insensitive), its canonical name ("RA81") or
 * NULL, and all of them for messages ("RA60 RA80 RA81 RA82"). */
uint64_t vax_session_ra_bytes(const char *type);
const char *vax_session_ra_name(const char *type);
const char *vax_session_ra_names(void);

/* Build the system.  The TODR is set from the time the boot disk's root file
 * system was last written (so every run of an image starts at the same guest
 * time); without a boot disk, or when it holds no 4.3BSD file system (DEC's
 * diagnostic disk), it keeps a default and only the boots that need a 4.3BSD
 * disk fail.  NULL with a message on failure. */
vax_session *vax_session_create(const vax_session_config *cfg, char *err, size_t errlen);
void vax_session_destroy(vax_session *s);

/* Why 4.3BSD cannot be booted from the boot disk (no hp0 or ra0, no 4.3BSD
 * root file system on it), or NULL when it can. */
const char *vax_session_unbootable(const vax_session *s);

/* Kernel variables (_name, a longword in the kernel's data) to set after the
 * host loads the kernel and before it runs, at every boot of
 * vax_session_boot_kernel (boot/kernelvars.h).  Before booting.  0, or -1
 * with a message (too many, a bad name). */
#define VAX_SESSION_MAX_SETTINGS 32
int vax_session_set_kernel_variable(vax_session *s, const char *name, uint32_t value, char *err, size_t errlen);

/* The kernel vax_session_boot_kernel loads: instead of a file of hp0's root,
 * an a.out file the host holds (a kernel variant the installer built), len
 * bytes copied into the session; name is what messages call it.  Kernel
 * variables, symbol look-ups, the panic watch and reboots then use it.
 * Before booting.  0, or -1 with a message (out of memory, empty). */
int vax_session_set_kernel_image(vax_session *s, const uint8_t *kernel, size_t len, const char *name);

/* The boots.  Each returns 0, or with a message (vax_session_error)
 * VAX_SESSION_ERR_IMAGE when the disk, kernel, tape or program cannot be
 * used, VAX_SESSION_ERR_INPUT when what was asked is wrong (an unknown kernel
 * variable, an address outside memory, a second boot). */
#define VAX_SESSION_ERR_IMAGE (-1)
#define VAX_SESSION_ERR_INPUT (-2)
int vax_session_boot_disk(vax_session *s, uint32_t howto);
int vax_session_boot_kernel(vax_session *s, uint32_t howto, const char *kernel_path);
int vax_session_boot_standalone(vax_session *s, const uint8_t *prog, size_t len, uint32_t r10, uint32_t r11);
int vax_session_boot_tape_block(vax_session *s);
int vax_session_console_load(vax_session *s, uint32_t addr, const uint8_t *data, size_t len);
int vax_session_console_start(vax_session *s, uint32_t start);
/* VMB (len bytes, a VMS image file: whole 512-byte blocks; copied) loaded at
 * 0x200 and started with the registers of the console's BOOT command for
 * device ("dua0".."dua3", an RA drive that must exist) and R5 = flags
 * (0x10: stop in the Diagnostic Supervisor).  No 4.3BSD disk is needed. */
int vax_session_boot_vmb(vax_session *s, const uint8_t *vmb, size_t len, const char *device, uint32_t flags);

/* After vax_session_set_kernel_variable and a kernel boot: each variable's
 * value before it was patched (for messages); 0 for an index not set. */
uint32_t vax_session_kernel_variable_old(const vax_session *s, int index);

/* Run at most n instructions.  Returns a vax_stop_reason (VAX_STOP_BUDGET:
 * the n were run), VAX_SESSION_REBOOTED when the kernel asked for a reboot
 * and the session rebooted it (keep running), VAX_SESSION_PANICKED when the
 * kernel panicked (vax_session_panic has its message; running on reboots it,
 * as the console would), or -1 when a reboot failed (vax_session_error). */
#define VAX_SESSION_REBOOTED 100
#define VAX_SESSION_PANICKED 101
int vax_session_run(vax_session *s, uint64_t n);

/* The kernel's panic message ("panic: ..." without the prefix), or NULL when
 * it has not panicked (or the session did not boot a 4.3BSD kernel). */
const char *vax_session_panic(const vax_session *s);

/* The console terminal.  Typed text is queued and delivered as the guest
 * reads it; returns how many characters fitted.  What the guest prints is
 * kept in a ring of VAX_SESSION_OUTPUT_RING bytes (NULs, the kernel's fill
 * characters, dropped; bit 7 stripped): read it out often enough, or the
 * oldest is dropped and counted. */
#define VAX_SESSION_OUTPUT_RING 65536u
uint32_t vax_session_type(vax_session *s, const char *text, uint32_t len);
uint32_t vax_session_console_read(vax_session *s, uint8_t *buf, uint32_t max);
uint32_t vax_session_console_pending(const vax_session *s);
uint64_t vax_session_console_dropped(const vax_session *s);

/* The machine underneath, for vax.h's functions (registers, memory,
 * instruction count, state digest). */
vax_machine *vax_session_machine(vax_session *s);
uint64_t vax_session_time_ns(const vax_session *s);
const char *vax_session_stop_detail(const vax_session *s);
const char *vax_session_error(const vax_session *s);
uint32_t vax_session_reboots(const vax_session *s);

/* Timing knobs, only before the first instruction (a run is timed by one
 * model from power-on): the CPU preset, the disks' timing profile.  0, or -1
 * with a message. */
int vax_session_set_ns_per_instruction(vax_session *s, uint32_t ns);
int vax_session_set_disk_timing(vax_session *s, const char *profile);
/* The processor model (780 or 750) and the disks' spin seed, likewise. */
int vax_session_set_cpu_model(vax_session *s, int model);
int vax_session_set_disk_spin_seed(vax_session *s, uint32_t seed);
/* The disks' platters in step with virtual time, the clock's sampling as
 * the spin seed drew it (vax780_lock_disk_spin); after the seed, likewise. */
int vax_session_lock_disk_spin(vax_session *s);
/* One more RP-type drive, hpN (vax780_attach_disk), before the first
 * instruction: e.g. a second drive over another view of the same pack, so
 * that a file system can be mounted from another arm. */
int vax_session_attach_disk(vax_session *s, int unit, const char *type, vax_blockdev *bd);

/* Addresses of kernel symbols (with their underscore) from the symbol table
 * of the kernel the session booted (the boot disk's /vmunix for a /boot boot): out[i]
 * = address, 0 when absent.  Returns how many were found, or -1. */
int vax_session_kernel_symbols(vax_session *s, const char *const *names, uint32_t *out, int n);

/* Profiling (profile/profile.h): an exact call-graph profile of everything
 * the processor runs, by function, process and mode, that changes nothing
 * the guest sees.  vax_session_profile_start turns it on: before the boot,
 * from the first instruction (the profiler is made when the system boots);
 * later, from now, meeting the running code where it is.  After a boot of a
 * 4.3BSD kernel it names code by the kernel file's symbols, processes by
 * their u.u_comm and their programs' symbols by looking that name up in
 * boot/symbols.h's BOOT_PROGRAM_PATH.  _clear zeroes the counts (what
 * follows is profiled on its own), _stop turns it off, _json returns the
 * profile so far (a malloc'd "vaxlab-profile-raw" JSON text, profile.c; free
 * it) or NULL when off.  0, or -1 with a message (out of host memory). */
int vax_session_profile_start(vax_session *s);
int vax_session_profile_clear(vax_session *s);
void vax_session_profile_stop(vax_session *s);
int vax_session_profiling(const vax_session *s);
char *vax_session_profile_json(vax_session *s, size_t *len);

/* The hardware model's counters (system/vax780_stats.h) as uint64: up to max
 * of them, in the order of vax_session_stats_names (comma-separated, a
 * constant).  Returns how many there are. */
size_t vax_session_stats(const vax_session *s, uint64_t *out, size_t max);
const char *vax_session_stats_names(void);

/* Snapshots (snapshot/snap.h: the format).  A snapshot is the whole system
 * between two runs — processor, memory, TB and cache simulations, every
 * device with its pending events, the disks' written chunks, the session's
 * own state (what it watches, how it reboots, console output not yet read)
 * — so that a system restored from it runs on exactly as the saved one
 * would have: the same instructions, virtual time, output and counters.
 *
 * vax_session_snapshot: the system as it is now, as a malloc'd file of *len
 * bytes (the caller frees it), or NULL with a message (vax_session_error).
 * disk_id: the host's identity of the pristine image under the disks
 * (SNAP_ID_BYTES, e.g. its SHA-256; NULL for none), which a restore must
 * match.  Every disk must be a copy-on-write overlay (system/overlay.h):
 * the snapshot holds what was written, not the pack.  host: host_len bytes
 * of the host's own (what the console printed so far, say), carried along
 * and given back by vax_session_restored_host.
 *
 * vax_session_restore: instead of booting, a session created with the same
 * configuration (memory, processor, disks and their timing, spin seed,
 * kernel variables and kernel image) takes the snapshot's state.  boot and
 * howto say how the host would have booted it (VAX_SESSION_BOOT_*, the
 * RB_* flags), which must be how the saved system was first booted.  0,
 * or VAX_SESSION_ERR_IMAGE (not a snapshot, damaged, another emulator build
 * or disk image) or VAX_SESSION_ERR_INPUT (another configuration, already
 * booted) with a message; after a failure the session is in no defined
 * state: destroy it.  Profiling asked for before the restore starts with
 * it, from then on. */
enum { VAX_SESSION_BOOT_DISK = 1, VAX_SESSION_BOOT_KERNEL = 2, VAX_SESSION_BOOT_STANDALONE = 3, VAX_SESSION_BOOT_VMB = 4 };
uint8_t *vax_session_snapshot(vax_session *s, const uint8_t *disk_id, const uint8_t *host, uint32_t host_len,
                              size_t *len);
int vax_session_restore(vax_session *s, const uint8_t *buf, size_t len, const uint8_t *disk_id, int boot,
                        uint32_t howto);
/* The host's bytes of the snapshot last restored (NULL, *len 0 if none). */
const uint8_t *vax_session_restored_host(const vax_session *s, uint32_t *len);

#endif
