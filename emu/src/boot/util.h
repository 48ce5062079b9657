/*
 * util.h — small helpers shared by the host-side readers of BSD disks and
 * programs (ffs.c, aout.c, boot.c): error messages into caller buffers
 * (their little-endian fields: le.h).
 */
#ifndef VAX_BOOT_UTIL_H
#define VAX_BOOT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Format a message into err (if err is non-NULL and errlen > 0). */
void boot_seterr(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
