/*
 * ffs.h — read a 4.3BSD Berkeley Fast File System from a disk image, on
 * the host (to boot the machine, to inspect an installed system, and in
 * tests).  Read-only.
 *
 * The on-disk format is the VAX one: little-endian, 32-bit `long`s and
 * disk addresses (daddr_t), 512-byte sectors (DEV_BSIZE).  The layout is
 * that of 4.3BSD's <sys/fs.h>, <sys/inode.h> and <sys/dir.h>:
 *   - the superblock is at byte 8192 (SBLOCK = sector 16) of the
 *     partition, magic 0x011954 at offset 1372;
 *   - cylinder group c starts at fragment fs_fpg*c + fs_cgoffset*(c &
 *     ~fs_cgmask); its inodes at fs_iblkno fragments from there;
 *   - inodes (struct dinode) are 128 bytes: mode u16 @0, nlink i16 @2,
 *     uid u16 @4, gid u16 @6, size @8 (the low longword of a quad),
 *     atime @16, mtime @24, ctime @32, 12 direct block addresses @40,
 *     single/double/triple indirect @88, blocks @104;
 *   - block addresses count fragments (fs_fsize bytes) from the start of
 *     the partition; 0 is a hole; the last block of a small file may be
 *     a run of fragments;
 *   - directories are 512-byte chunks (DIRBLKSIZ) of variable-length
 *     entries: d_ino u32, d_reclen u16, d_namlen u16, d_name.
 *
 * Every number read from the disk is checked before it is used; a damaged
 * or truncated image gives an error message, never a crash.
 */
#ifndef VAX_BOOT_FFS_H
#define VAX_BOOT_FFS_H

#include <stddef.h>
#include <stdint.h>

#include "storage/blockdev.h"

typedef struct ffs_fs ffs_fs;

/* File types (the IFMT bits of the mode). */
#define FFS_IFMT 0170000u
#define FFS_IFIFO 0010000u
#define FFS_IFCHR 0020000u
#define FFS_IFDIR 0040000u
#define FFS_IFBLK 0060000u
#define FFS_IFREG 0100000u
#define FFS_IFLNK 0120000u
#define FFS_IFSOCK 0140000u

#define FFS_ROOTINO 2u

/* Largest file ffs_read_file will hand back (a sanity bound: a 4.3BSD
 * file's size is a signed 32-bit long anyway). */
#define FFS_MAX_READ (256u << 20)

/* Open the file system whose partition starts partition_offset bytes into
 * disk.  NULL and a message in err (e.g. "not a 4.3BSD file system: bad
 * superblock magic 0x... at byte 8192", "image too small: ...") on error.
 * The disk must outlive the ffs. */
ffs_fs *ffs_open(const vax_blockdev *disk, uint64_t partition_offset, char *err, size_t errlen);
void ffs_close(ffs_fs *fs);

/* Read the whole file at path (absolute; symbolic links are followed) into
 * a malloc'd buffer (*data, *len; free() it).  Returns 0, or -1 with a
 * message.  A zero-length file gives a non-NULL *data and *len 0. */
int ffs_read_file(ffs_fs *fs, const char *path, uint8_t **data, size_t *len, char *err, size_t errlen);

typedef struct {
    uint32_t ino;
    uint16_t mode;     /* type and permission bits, FFS_IF* */
    uint16_t nlink;
    uint32_t uid, gid;
    uint64_t size;     /* bytes */
    int32_t mtime;     /* seconds since 1970 (VAX time_t) */
} ffs_stat;

/* Status of the inode path names.  Like lstat(2): a symbolic link as the
 * last component is described itself (intermediate ones are followed). */
int ffs_stat_path(ffs_fs *fs, const char *path, ffs_stat *st, char *err, size_t errlen);

/* Call each(ctx, name, ino) for every entry of the directory at path, in
 * directory order, "." and ".." included (entries with d_ino 0 are free
 * space and are skipped).  Returns 0, or -1 with a message (on an error in
 * the middle, the entries before it have been reported). */
int ffs_list_dir(ffs_fs *fs, const char *path, void (*each)(void *ctx, const char *name, uint32_t ino),
                 void *ctx, char *err, size_t errlen);

/* Summary of the superblock (for tools and tests). */
typedef struct {
    uint32_t bsize, fsize, frag;   /* block and fragment sizes, frags per block */
    uint32_t ncg, ipg, fpg;        /* cylinder groups, inodes and fragments per group */
    uint32_t size, dsize;          /* fragments in the file system, data fragments */
    uint32_t nsect, ntrak, ncyl;   /* geometry mkfs was told */
    int32_t time;                  /* last time written */
    char fsmnt[64];                /* where it was last mounted (often "/" or empty) */
} ffs_info;
void ffs_get_info(const ffs_fs *fs, ffs_info *info);

/* Byte offset, from the start of the image, of inode ino's 128 bytes
 * (for tools and tests that patch an image).  0, or -1 with a message. */
int ffs_inode_location(const ffs_fs *fs, uint32_t ino, uint64_t *byte_offset, char *err, size_t errlen);

/* The 16-bit checksum of 4.3BSD's /bin/sum (sum.c): for each byte c,
 * rotate the 16-bit sum right by one (sum = (sum >> 1) + ((sum & 1) << 15))
 * and add c, modulo 2^16.  `sum file` prints "%05u%6ld" of this and the
 * size in 1024-byte (BUFSIZ) blocks, rounded up; ffs_bsd_sum_line formats
 * the same into buf (at least 16 bytes). */
uint16_t ffs_bsd_sum(const uint8_t *data, size_t len);
void ffs_bsd_sum_line(const uint8_t *data, size_t len, char *buf, size_t buflen);

#endif
