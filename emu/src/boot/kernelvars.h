/*
 * kernelvars.h — host-side set-up shared by the headless CLI
 * (tools/vax780.c) and the WebAssembly glue (wasm/vax780_wasm.c):
 * patching kernel variables before the kernel runs, and the TODR a boot
 * from a given disk starts with.
 */
#ifndef VAX_BOOT_KERNELVARS_H
#define VAX_BOOT_KERNELVARS_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"
#include "vax.h"

typedef struct {
    const char *name;   /* without the leading underscore: "nchsize" sets _nchsize */
    uint32_t value;
    uint32_t old;       /* filled in: the value the loaded kernel had */
} boot_kernel_setting;

#define BOOT_SET_IMAGE_ERROR (-1)   /* the kernel could not be read from the disk, or its symbol table is damaged */
#define BOOT_SET_BAD_NAME (-2)      /* no such symbol, or not a variable in data or bss */

/* Set the longword kernel variables _NAME in physical memory, after
 * vax_boot(BOOT_DIRECT_KERNEL) has loaded kernel_path (NULL = "/vmunix")
 * from partition a of disk and before it runs (the kernel is linked at
 * 0x80000000 and loaded at physical 0).  The symbols are looked up in the
 * kernel file's symbol table.  Returns 0, or BOOT_SET_IMAGE_ERROR /
 * BOOT_SET_BAD_NAME with a message in err; the settings before the failing
 * one have been applied then.
 *
 * One name is a code setting rather than a variable: sosend_cluster_min
 * (512, the 4.3BSD release's, or 1024, the paper's 1985 kernel's: the
 * smallest socket or pipe write that goes into a 1 KB mbuf cluster rather
 * than 112-byte mbufs) patches the constant in the kernel's sosend()
 * (kernelvars.c says why and how). */
int boot_set_kernel_variables(vax_machine *m, const vax_blockdev *disk, const char *kernel_path,
                              boot_kernel_setting *set, int n, char *err, size_t errlen);

/* Look up symbols (with their underscore: "_cnt") in the symbol table of
 * kernel_path (NULL = "/vmunix") on partition a of disk: values[i] gets
 * the address, or 0 when the kernel has no such symbol.  Returns how many
 * were found, or BOOT_SET_IMAGE_ERROR with a message. */
int boot_lookup_kernel_symbols(const vax_blockdev *disk, const char *kernel_path, const char *const *names,
                               uint32_t *values, int n, char *err, size_t errlen);

/* The same two, for a kernel file the host holds (vax_boot_kernel_image):
 * kernel/len is the whole a.out file, name is for messages. */
int boot_set_kernel_variables_image(vax_machine *m, const uint8_t *kernel, size_t len, const char *name,
                                    boot_kernel_setting *set, int n, char *err, size_t errlen);
int boot_lookup_kernel_symbols_image(const uint8_t *kernel, size_t len, const char *name, const char *const *names,
                                     uint32_t *values, int n, char *err, size_t errlen);

/* Like the look-ups above, for variables the host will read while the
 * kernel runs (_panicstr, _cons): a symbol that is not an aligned longword
 * in the kernel's data or bss — a damaged symbol table pointing anywhere —
 * counts as not found, so the host never watches the wrong memory. */
int boot_lookup_kernel_variables(const vax_blockdev *disk, const char *kernel_path, const char *const *names,
                                 uint32_t *values, int n, char *err, size_t errlen);
int boot_lookup_kernel_variables_image(const uint8_t *kernel, size_t len, const char *name, const char *const *names,
                                       uint32_t *values, int n, char *err, size_t errlen);

/* The battery-backed TODR of a real 780 would hold the date; ours is set
 * from the time the root file system (partition a) was last written, plus
 * a minute, so the kernel's clock check agrees and every run starts at
 * the same time.  Returns 0, or -1 with a message (not a file system). */
int boot_todr_from_disk(const vax_blockdev *disk, uint32_t *todr, char *err, size_t errlen);

#endif
