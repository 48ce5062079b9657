/*
 * aout.h — the VAX a.out executable header (4.3BSD <sys/exec.h>) and
 * loading a program into physical memory the way 4.3BSD's /boot does
 * (/sys/stand/boot.c, copyunix()).
 *
 * The header is eight little-endian longwords, 32 bytes:
 *   a_magic  0407 (OMAGIC: text and data contiguous, impure),
 *            0410 (NMAGIC: read-only text; data starts on the next
 *                  1024-byte boundary), 0413 (ZMAGIC: demand paged, as
 *                  0410 in memory, but the text starts at byte 1024 of the
 *                  file rather than right after the header);
 *   a_text, a_data, a_bss, a_syms, a_entry, a_trsize, a_drsize.
 * In the file, text is at N_TXTOFF (32, or 1024 for 0413) and data right
 * after it.
 *
 * Loading (copyunix): text to the load address; for 0410/0413 zeros up to
 * the next 1024-byte boundary (CLOFSET: the VAX page cluster is CLSIZE=2
 * pages of 512); the data; then the bss and 128*512 bytes of "slop"
 * cleared.  The entry is a_entry & 0x7fffffff (the kernel is linked at
 * 0x80000000 but runs unmapped at first), and /boot CALLS it, so the first
 * instruction executed is 2 bytes past it (the entry mask word).
 */
#ifndef VAX_BOOT_AOUT_H
#define VAX_BOOT_AOUT_H

#include <stddef.h>
#include <stdint.h>

#include "vax.h"

#define AOUT_OMAGIC 0407u
#define AOUT_NMAGIC 0410u
#define AOUT_ZMAGIC 0413u
#define AOUT_HEADER_SIZE 32u
#define AOUT_ZMAGIC_TEXT_OFFSET 1024u
#define AOUT_DATA_ALIGN 1024u            /* CLOFSET + 1 in boot.c */
#define AOUT_BOOT_BSS_SLOP (128u * 512u)  /* boot.c: x.a_bss += 128*512 */

typedef struct {
    uint32_t magic, text, data, bss, syms, entry, trsize, drsize;
} aout_header;

/* Decode and check the header of the file (len bytes): a known magic, and
 * the text and data the header claims all present in the file.  Returns
 * 0, or -1 with a message. */
int aout_parse(const uint8_t *file, size_t len, aout_header *h, char *err, size_t errlen);

/* Byte offset of the text in the file (N_TXTOFF). */
uint32_t aout_text_offset(const aout_header *h);

/* Where each part goes in physical memory. */
typedef struct {
    uint32_t text_addr, text_size;
    uint32_t data_addr, data_size;
    uint32_t bss_addr, bss_size;   /* bss_size includes the slop actually cleared */
    uint32_t end;                  /* first byte past what was written or cleared */
    uint32_t entry;                /* a_entry & 0x7fffffff */
} aout_layout;

/* Load file (already checked by aout_parse into h) at physical address
 * load_addr as boot.c does, clearing bss and then up to bss_slop more
 * bytes (the slop stops quietly at the end of memory; text, data and bss
 * themselves must fit).  Returns 0, or -1 with a message ("a.out too
 * large for memory: ..."). */
int aout_load(vax_machine *m, const uint8_t *file, size_t len, const aout_header *h,
              uint32_t load_addr, uint32_t bss_slop, aout_layout *lay, char *err, size_t errlen);

/* Check where the header puts the symbol table (after text, data and the
 * relocation entries: a_syms bytes of 12-byte entries) and the string
 * table after it (a longword size, at least 4, then the strings): both
 * must lie inside the file, and every symbol's name inside the string
 * table.  A file without symbols (a_syms 0) passes.  Returns 0, or -1 with a message
 * (e.g. a damaged header or a truncated file). */
int aout_check_symbols(const uint8_t *file, size_t len, const aout_header *h, char *err, size_t errlen);

/* The value of symbol `name` (as the linker spells it, e.g. "_nchsize")
 * in the file's symbol table; 0, or -1 if absent or the table is bad. */
int aout_find_symbol(const uint8_t *file, size_t len, const aout_header *h, const char *name, uint32_t *value);

/* Call each(ctx, name, type, value) for every entry of the file's symbol
 * table (struct nlist: n_type is type; names from the string table).
 * Returns how many there were, 0 for a file without one (stripped), or -1
 * if the table is damaged. */
int aout_for_each_symbol(const uint8_t *file, size_t len, const aout_header *h,
                         void (*each)(void *ctx, const char *name, uint8_t type, uint32_t value), void *ctx);

/* "0407"/"0410"/"0413" names for messages. */
const char *aout_magic_name(uint32_t magic);

#endif
