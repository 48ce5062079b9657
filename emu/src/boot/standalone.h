/*
 * standalone.h — starting a 4.3BSD standalone program (boot, copy, format)
 * that is not on the disk: from the tp archive in the first file of a
 * distribution tape, or from a host file.
 *
 * On the real machine (Installing and Operating 4.3BSD, section 2; the
 * sources in /sys/mdec and /sys/stand): a 780 with its TS11 has no console
 * command to boot from tape, so the operator deposits the toggle-in program
 * /sys/mdec/tstoggle.s and starts it; it reads the tape's first record
 * (tsboot) to physical 0 and halts leaving R10 = the UBA0 registers
 * (0x20006000) and R11 = the TS11's registers (0x2013F550, UNIBUS 772520);
 * START 0 runs tsboot, which prompts "=", reads a name, finds it in the tp
 * directory (tp.h), reads the file "bits as is" to physical 0 (the tp
 * copies of boot, copy and format are headerless: /sys/stand/Makefile
 * strips them with dd ibs=32 skip=1) and does `calls $0,(r5)` with r5 = 0,
 * so the program's first instruction is at 2 (word 0 is its entry mask).
 * A program built with tpsrt0 (copy, format) ends main with `ret` and so
 * returns to tsboot; tpboot relocates itself to 0x70000 and never returns.
 *
 * vax_boot_standalone puts the machine in that state directly: the program
 * at physical 0 (an a.out 0407/0410/0413 is loaded as /boot loads one,
 * header stripped, bss cleared; anything else is taken as a headerless
 * image "bits as is"), the processor as after the console's INIT
 * (boot.h), R10/R11 as given, and a CALLS $0 frame on a stack in the last
 * page of memory whose return PC points at a zero longword: a program that
 * returns (copy, when done) halts the machine.  PC = 2.  No program used
 * here depends on where the frame is: srt0 sets its own SP at once and
 * relsrt0 (boot) clears memory only up to 1 MB.
 */
#ifndef VAX_BOOT_STANDALONE_H
#define VAX_BOOT_STANDALONE_H

#include <stddef.h>
#include <stdint.h>

#include "boot/boot.h"
#include "storage/blockdev.h"
#include "boot/tp.h"
#include "vax.h"

/* What tstoggle leaves for tsboot, and tsboot for the program it calls. */
#define TSBOOT_R10_UBA0 0x20006000u    /* UBA0's registers (TR 3) */
#define TSBOOT_R11_TSCSR 0x2013F550u   /* UBA0's UNIBUS space 0x20100000 + 0772520 */

/* Read tape file fileno (0 = the first) of a SIMH .tap image: its data
 * records concatenated into a malloc'ed buffer (*data, *len; the caller
 * frees it).  Returns 0, or -1 with a message (no such file, a corrupt
 * image...). */
int standalone_tape_file(const vax_blockdev *tape, unsigned fileno, uint8_t **data, size_t *len, char *err,
                         size_t errlen);

/* Extract the program called name from the tp archive in the tape's first
 * file: *prog (malloc'ed, *len bytes) and its directory entry (e may be
 * NULL).  Returns 0, or -1 with a message. */
int standalone_from_tape(const vax_blockdev *tape, const char *name, uint8_t **prog, size_t *len,
                         tp_entry *e, char *err, size_t errlen);

/* Load prog (len bytes) and set the processor up to run it, as described
 * above.  info (may be NULL) gets the a.out fields (magic 0 for a
 * headerless image), pc = 2 and end = the first byte past the program.
 * Returns 0, or -1 with a message. */
int vax_boot_standalone(vax_machine *m, const uint8_t *prog, size_t len, uint32_t r10, uint32_t r11,
                        vax_boot_info *info, char *err, size_t errlen);

/* The operator's way instead: what tstoggle does, done from the host — the
 * tape's first record (tsboot, 512 bytes) at physical 0, the processor as
 * after INIT with R10 = TSBOOT_R10_UBA0 and R11 = TSBOOT_R11_TSCSR, PC = 0
 * (tsboot has no entry mask).  tsboot then prompts "=" on the console and
 * does the rest through the emulated TS11; a program that returns (copy)
 * returns to it, and it prompts again.  Returns 0, or -1 with a message. */
int vax_boot_tape_block(vax_machine *m, const vax_blockdev *tape, char *err, size_t errlen);

/* The 780 console's LOAD and START, for programs that are neither 4.3BSD
 * standalone programs nor on a disk — DEC's diagnostics (EVKAA) and the
 * primary bootstrap VMB.  vax_console_load writes len bytes "as is" at
 * physical address addr (nothing is written if they do not fit);
 * vax_console_start leaves the processor as after the console's INIT
 * (kernel mode, interrupt stack, IPL 31, memory management off, R0..R13 =
 * 0, SP = the top of memory) with PC = start; memory is kept.  The host may
 * then set registers (vax_set_reg) as a console command file would.  Both
 * return 0, or -1 with a message naming the bad address. */
int vax_console_load(vax_machine *m, uint32_t addr, const uint8_t *data, size_t len, char *err, size_t errlen);
int vax_console_start(vax_machine *m, uint32_t start, char *err, size_t errlen);

#endif
