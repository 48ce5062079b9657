/*
 * symbols.h — the symbols the profiler names code with (profile/profile.h),
 * read on the host from a.out files on a 4.3BSD disk: the kernel's from the
 * kernel file that was booted, a program's from its file, found by the name
 * the kernel keeps for the process (u.u_comm: the last component of the path
 * exec'd, at most 16 characters) in a list of directories.
 *
 * Text symbols only (n_type N_TEXT, 04, local or external 05; not the
 * debugger's stabs), and not the linker's file-name symbols ("crt0.o").
 */
#ifndef VAX_BOOT_SYMBOLS_H
#define VAX_BOOT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "storage/blockdev.h"

/* The directories a program is looked for in, in order (the lab's own
 * programs first: the experiments run them from /lab/bin). */
#define BOOT_PROGRAM_PATH "/lab/bin:/bin:/etc:/usr/lab/bin:/usr/bin:/usr/ucb:/usr/lib:/usr/local"

/* The text symbols of the a.out in file (len bytes) into out (empty on
 * entry).  Returns 0, or -1 with a note: not an a.out, no symbol table
 * (stripped), a damaged one. */
int boot_aout_text_symbols(const uint8_t *file, size_t len, profile_symbols *out, char *note, size_t notelen);

/* Read path from disk's 4.3BSD file systems as 4.3BSD mounts them on the
 * lab's packs: / from partition a, /usr from partition g (of the drive
 * type's table, partitions.h; NULL: an RP06).  Returns 0 (free *data), or -1
 * with a message. */
int boot_read_system_file(const vax_blockdev *disk, const char *disk_type, const char *path, uint8_t **data,
                          size_t *len, char *err, size_t errlen);

/* The symbols of the program called name: the first file dir/name for the
 * directories of search (colon-separated) that exists; its path goes to
 * path.  Returns 0, or -1 with a note (not found, stripped, not an a.out). */
int boot_program_symbols(const vax_blockdev *disk, const char *disk_type, const char *search, const char *name,
                         profile_symbols *out, char *path, size_t pathlen, char *note, size_t notelen);

#endif
