/*
 * ffs.c — a read-only reader for the 4.3BSD Fast File System (see ffs.h
 * for the format).  Modelled on what 4.3BSD's standalone library does
 * (/sys/stand/sys.c: openi, find, sbmap, dlook, readdir), with every
 * on-disk number checked:
 *   - superblock fields must be self-consistent (power-of-two sizes whose
 *     shifts and masks agree, inodes-per-block = bsize/128, ...), and the
 *     file system must fit in the image;
 *   - inode numbers must be below ncg*ipg; block addresses must lie inside
 *     the file system (full blocks block-aligned, fragment runs inside one
 *     block); file sizes must be non-negative;
 *   - directory entries must have a sane d_reclen (>= 12, multiple of 4,
 *     not crossing a 512-byte chunk) and d_namlen (fits in the record);
 *   - symbolic links are followed at most 8 times (MAXSYMLINKS).
 */
#include "boot/ffs.h"
#include "boot/util.h"
#include "le.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SBOFF 8192u           /* superblock byte offset in the partition */
#define SBREAD 2048u          /* bytes of it we read (fs_sbsize on 4.3 is 2048) */
#define FS_MAGIC 0x011954
#define DINODE_SIZE 128u
#define NDADDR 12
#define NIADDR 3
#define DIRBLKSIZ 512u
#define DIRHDR 8u             /* d_ino, d_reclen, d_namlen */
#define MAXNAMLEN 255u
#define MAXSYMLINKS 8
#define MAXPATHLEN 1024u
#define MAX_DIR_BYTES (16u << 20)   /* sanity bound on one directory */

struct ffs_fs {
    const vax_blockdev *disk;
    uint64_t base;            /* partition offset in the image, bytes */
    /* Superblock, as checked int64s. */
    int64_t sblkno, cblkno, iblkno, dblkno, cgoffset, cgmask;
    int64_t size, dsize, ncg, bsize, fsize, frag;
    int64_t bshift, fshift, fragshift, fsbtodb, nindir, inopb, nspf;
    int64_t ipg, fpg, ntrak, nsect, ncyl;
    int32_t time;
    char fsmnt[64];
    /* One cached indirect block per level (as sys.c's b[]/blknos[]). */
    uint8_t *ind[NIADDR];
    int64_t ind_blk[NIADDR];
};

/* An inode as read from disk. */
typedef struct {
    uint32_t ino;
    uint16_t mode;
    int16_t nlink;
    uint16_t uid, gid;
    int64_t size;
    int32_t mtime;
    int32_t db[NDADDR];
    int32_t ib[NIADDR];
} dinode;



static int32_t sle32(const uint8_t *p) { return (int32_t)le32_get(p); }


/* log2 of v if v is a power of two, else -1. */
static int ilog2(int64_t v)
{
    if (v <= 0 || (v & (v - 1)) != 0)
        return -1;
    int n = 0;
    while ((v >>= 1) != 0)
        n++;
    return n;
}

/* Read len bytes at byte offset off of the partition. */
static int dev_read(ffs_fs *fs, uint64_t off, void *buf, size_t len, char *err, size_t errlen)
{
    uint64_t abs = fs->base + off;
    if (abs < fs->base || abs > fs->disk->size || len > fs->disk->size - abs) {
        boot_seterr(err, errlen, "read of %zu bytes at byte %llu is past the end of the image (%llu bytes)",
               len, (unsigned long long)abs, (unsigned long long)fs->disk->size);
        return -1;
    }
    if (fs->disk->read(fs->disk, abs, buf, len) != 0) {
        boot_seterr(err, errlen, "I/O error reading %zu bytes at byte %llu of the image", len,
               (unsigned long long)abs);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ superblock */

ffs_fs *ffs_open(const vax_blockdev *disk, uint64_t partition_offset, char *err, size_t errlen)
{
    if (!disk || !disk->read) {
        boot_seterr(err, errlen, "no disk");
        return NULL;
    }
    if (partition_offset > disk->size || disk->size - partition_offset < SBOFF + SBREAD) {
        boot_seterr(err, errlen,
               "image too small: %llu bytes, but the superblock is at byte %u of the partition "
               "starting at byte %llu",
               (unsigned long long)disk->size, SBOFF, (unsigned long long)partition_offset);
        return NULL;
    }
    uint8_t sb[SBREAD];
    if (disk->read(disk, partition_offset + SBOFF, sb, sizeof sb) != 0) {
        boot_seterr(err, errlen, "I/O error reading the superblock at byte %llu",
               (unsigned long long)(partition_offset + SBOFF));
        return NULL;
    }
    uint32_t magic = le32_get(sb + 1372);
    if (magic != FS_MAGIC) {
        boot_seterr(err, errlen,
               "not a 4.3BSD file system: bad superblock magic 0x%x at byte %u (expected 0x%x)",
               magic, SBOFF, FS_MAGIC);
        return NULL;
    }

    ffs_fs *fs = calloc(1, sizeof *fs);
    if (!fs) {
        boot_seterr(err, errlen, "out of memory");
        return NULL;
    }
    fs->disk = disk;
    fs->base = partition_offset;
#define SBL(off) ((int64_t)sle32(sb + (off)))
    fs->sblkno = SBL(8);
    fs->cblkno = SBL(12);
    fs->iblkno = SBL(16);
    fs->dblkno = SBL(20);
    fs->cgoffset = SBL(24);
    fs->cgmask = SBL(28);
    fs->time = sle32(sb + 32);
    fs->size = SBL(36);
    fs->dsize = SBL(40);
    fs->ncg = SBL(44);
    fs->bsize = SBL(48);
    fs->fsize = SBL(52);
    fs->frag = SBL(56);
    int64_t bmask = SBL(72), fmask = SBL(76);
    fs->bshift = SBL(80);
    fs->fshift = SBL(84);
    fs->fragshift = SBL(96);
    fs->fsbtodb = SBL(100);
    fs->nindir = SBL(116);
    fs->inopb = SBL(120);
    fs->nspf = SBL(124);
    fs->ntrak = SBL(164);
    fs->nsect = SBL(168);
    fs->ncyl = SBL(176);
    fs->ipg = SBL(184);
    fs->fpg = SBL(188);
#undef SBL
    memcpy(fs->fsmnt, sb + 212, sizeof fs->fsmnt - 1);
    fs->fsmnt[sizeof fs->fsmnt - 1] = 0;
    for (char *p = fs->fsmnt; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
            *p = '?';

    const char *bad = NULL;
    char why[160];
    if (ilog2(fs->bsize) < 12 || fs->bsize > 65536)
        bad = "block size";
    else if (ilog2(fs->fsize) < 9 || fs->fsize > fs->bsize)
        bad = "fragment size";
    else if (fs->frag != fs->bsize / fs->fsize || fs->frag > 8)
        bad = "fragments per block";
    else if (fs->bshift != ilog2(fs->bsize) || bmask != -fs->bsize)
        bad = "block shift/mask";
    else if (fs->fshift != ilog2(fs->fsize) || fmask != -fs->fsize)
        bad = "fragment shift/mask";
    else if (fs->fragshift != ilog2(fs->frag))
        bad = "fragment shift";
    else if (fs->fsbtodb != ilog2(fs->fsize / 512) || fs->nspf != fs->fsize / 512)
        bad = "sectors per fragment";
    else if (fs->nindir != fs->bsize / 4)
        bad = "indirect addresses per block";
    else if (fs->inopb != fs->bsize / (int64_t)DINODE_SIZE)
        bad = "inodes per block";
    else if (fs->ncg <= 0 || fs->ncg > 100000)
        bad = "number of cylinder groups";
    else if (fs->ipg <= 0 || fs->ipg % fs->inopb != 0 || fs->ipg > (1 << 20))
        bad = "inodes per group";
    else if (fs->fpg <= 0 || fs->fpg % fs->frag != 0 || fs->fpg > (1 << 24))
        bad = "fragments per group";
    else if (fs->size <= 0 || fs->size > fs->ncg * fs->fpg)
        bad = "file system size";
    else if (fs->cgoffset < 0 || fs->cgoffset > fs->fpg)
        bad = "cylinder group offset";
    else if (fs->iblkno < 0 || fs->iblkno % fs->frag != 0 ||
             fs->iblkno + fs->cgoffset + fs->ipg / fs->inopb * fs->frag > fs->fpg)
        bad = "inode block offset";
    if (bad) {
        snprintf(why, sizeof why, "bad %s in the superblock (bsize %lld, fsize %lld, frag %lld, ncg %lld, ipg %lld, fpg %lld, size %lld)",
                 bad, (long long)fs->bsize, (long long)fs->fsize, (long long)fs->frag,
                 (long long)fs->ncg, (long long)fs->ipg, (long long)fs->fpg, (long long)fs->size);
        boot_seterr(err, errlen, "not a usable 4.3BSD file system: %s", why);
        free(fs);
        return NULL;
    }
    uint64_t need = (uint64_t)fs->size * (uint64_t)fs->fsize;
    uint64_t have = disk->size - partition_offset;
    if (need > have) {
        boot_seterr(err, errlen,
               "image too small: the file system needs %llu bytes from byte %llu, the image has "
               "only %llu there",
               (unsigned long long)need, (unsigned long long)partition_offset,
               (unsigned long long)have);
        free(fs);
        return NULL;
    }
    for (int i = 0; i < NIADDR; i++) {
        fs->ind[i] = malloc((size_t)fs->bsize);
        fs->ind_blk[i] = -1;
        if (!fs->ind[i]) {
            boot_seterr(err, errlen, "out of memory");
            ffs_close(fs);
            return NULL;
        }
    }
    return fs;
}

void ffs_close(ffs_fs *fs)
{
    if (!fs)
        return;
    for (int i = 0; i < NIADDR; i++)
        free(fs->ind[i]);
    free(fs);
}

void ffs_get_info(const ffs_fs *fs, ffs_info *info)
{
    memset(info, 0, sizeof *info);
    info->bsize = (uint32_t)fs->bsize;
    info->fsize = (uint32_t)fs->fsize;
    info->frag = (uint32_t)fs->frag;
    info->ncg = (uint32_t)fs->ncg;
    info->ipg = (uint32_t)fs->ipg;
    info->fpg = (uint32_t)fs->fpg;
    info->size = (uint32_t)fs->size;
    info->dsize = (uint32_t)fs->dsize;
    info->nsect = (uint32_t)fs->nsect;
    info->ntrak = (uint32_t)fs->ntrak;
    info->ncyl = (uint32_t)fs->ncyl;
    info->time = fs->time;
    memcpy(info->fsmnt, fs->fsmnt, sizeof info->fsmnt);
}

/* ----------------------------------------------------------------- inodes */

/* Byte offset of inode ino in the partition (itod/itoo of fs.h). */
static int inode_offset(const ffs_fs *fs, uint32_t ino, uint64_t *off, char *err, size_t errlen)
{
    if (ino == 0 || (int64_t)ino >= fs->ncg * fs->ipg) {
        boot_seterr(err, errlen, "inode number %u out of range (the file system has %lld inodes)", ino,
               (long long)(fs->ncg * fs->ipg));
        return -1;
    }
    int64_t cg = ino / fs->ipg;
    int64_t cgstart = fs->fpg * cg + fs->cgoffset * (cg & ~fs->cgmask);
    int64_t frag = cgstart + fs->iblkno + ((int64_t)(ino % fs->ipg) / fs->inopb) * fs->frag;
    if (frag < 0 || frag + fs->frag > fs->size) {
        boot_seterr(err, errlen, "inode %u lies outside the file system (fragment %lld)", ino,
               (long long)frag);
        return -1;
    }
    *off = (uint64_t)frag * (uint64_t)fs->fsize + (uint64_t)(ino % fs->inopb) * DINODE_SIZE;
    return 0;
}

int ffs_inode_location(const ffs_fs *fs, uint32_t ino, uint64_t *byte_offset, char *err, size_t errlen)
{
    uint64_t off;
    if (inode_offset(fs, ino, &off, err, errlen) != 0)
        return -1;
    *byte_offset = fs->base + off;
    return 0;
}

static int read_inode(ffs_fs *fs, uint32_t ino, dinode *di, char *err, size_t errlen)
{
    uint64_t off;
    if (inode_offset(fs, ino, &off, err, errlen) != 0)
        return -1;
    uint8_t b[DINODE_SIZE];
    if (dev_read(fs, off, b, sizeof b, err, errlen) != 0)
        return -1;
    di->ino = ino;
    di->mode = le16_get(b + 0);
    di->nlink = (int16_t)le16_get(b + 2);
    di->uid = le16_get(b + 4);
    di->gid = le16_get(b + 6);
    di->size = sle32(b + 8);   /* i_size is ic_size.val[0] on the VAX */
    di->mtime = sle32(b + 24);
    for (int i = 0; i < NDADDR; i++)
        di->db[i] = sle32(b + 40 + 4 * i);
    for (int i = 0; i < NIADDR; i++)
        di->ib[i] = sle32(b + 88 + 4 * i);
    if (di->size < 0) {
        boot_seterr(err, errlen, "inode %u has an impossible size %lld", ino, (long long)di->size);
        return -1;
    }
    return 0;
}

/* Check that nfrags fragments from address bn lie inside the file system
 * and inside one block. */
static int check_frags(ffs_fs *fs, const dinode *di, int64_t bn, int64_t nfrags, char *err, size_t errlen)
{
    if (bn < 0 || bn >= fs->size || nfrags > fs->size - bn) {
        boot_seterr(err, errlen, "inode %u: block address %lld is outside the file system (%lld fragments)",
               di->ino, (long long)bn, (long long)fs->size);
        return -1;
    }
    if ((bn & (fs->frag - 1)) + nfrags > fs->frag) {
        boot_seterr(err, errlen, "inode %u: block address %lld is not aligned for a %lld-fragment run",
               di->ino, (long long)bn, (long long)nfrags);
        return -1;
    }
    return 0;
}

/* File system address of logical block lbn of the inode (0: a hole), as
 * sys.c's sbmap(), with the indirect blocks cached one per level. */
static int bmap(ffs_fs *fs, const dinode *di, int64_t lbn, int64_t *out, char *err, size_t errlen)
{
    if (lbn < 0) {
        boot_seterr(err, errlen, "inode %u: negative block number", di->ino);
        return -1;
    }
    if (lbn < NDADDR) {
        *out = di->db[lbn];
        return 0;
    }
    int64_t bn = lbn - NDADDR, sh = 1;
    int j;
    for (j = NIADDR; j > 0; j--) {
        sh *= fs->nindir;
        if (bn < sh)
            break;
        bn -= sh;
    }
    if (j == 0) {
        boot_seterr(err, errlen, "inode %u: block %lld is beyond triple indirection", di->ino,
               (long long)lbn);
        return -1;
    }
    int64_t nb = di->ib[NIADDR - j];
    for (; j <= NIADDR; j++) {
        if (nb == 0) {   /* a hole in the indirect tree */
            *out = 0;
            return 0;
        }
        if (fs->ind_blk[j - 1] != nb) {
            if (check_frags(fs, di, nb, fs->frag, err, errlen) != 0)
                return -1;
            fs->ind_blk[j - 1] = -1;
            if (dev_read(fs, (uint64_t)nb * (uint64_t)fs->fsize, fs->ind[j - 1], (size_t)fs->bsize,
                         err, errlen) != 0)
                return -1;
            fs->ind_blk[j - 1] = nb;
        }
        sh /= fs->nindir;
        int64_t i = (bn / sh) % fs->nindir;
        nb = sle32(fs->ind[j - 1] + 4 * i);
    }
    *out = nb;
    return 0;
}

/* Read the inode's contents: len bytes from byte 0 (len <= size). */
static int read_data(ffs_fs *fs, const dinode *di, uint8_t *buf, size_t len, char *err, size_t errlen)
{
    size_t done = 0;
    for (int64_t lbn = 0; done < len; lbn++) {
        int64_t nb;
        if (bmap(fs, di, lbn, &nb, err, errlen) != 0)
            return -1;
        size_t want = len - done;
        if (want > (size_t)fs->bsize)
            want = (size_t)fs->bsize;
        if (nb == 0) {
            memset(buf + done, 0, want);
        } else {
            /* The block's allocated size (dblksize): a full block, or for
             * the last direct block of a small file only the fragments
             * its size needs. */
            int64_t bsz = fs->bsize;
            if (lbn < NDADDR && di->size < (lbn + 1) * fs->bsize) {
                int64_t rem = di->size & (fs->bsize - 1);
                bsz = (rem + fs->fsize - 1) & ~(fs->fsize - 1);
            }
            if ((int64_t)want > bsz) {
                boot_seterr(err, errlen, "inode %u: block %lld is shorter than the file size", di->ino,
                       (long long)lbn);
                return -1;
            }
            if (check_frags(fs, di, nb, bsz / fs->fsize, err, errlen) != 0)
                return -1;
            if (dev_read(fs, (uint64_t)nb * (uint64_t)fs->fsize, buf + done, want, err, errlen) != 0)
                return -1;
        }
        done += want;
    }
    return 0;
}

/* ------------------------------------------------------------ directories */

typedef int (*dir_fn)(void *ctx, const char *name, size_t namlen, uint32_t ino);

/* Walk the entries of directory inode di; fn returns nonzero to stop
 * (that value is returned).  -1 on a damaged directory. */
static int walk_dir(ffs_fs *fs, const dinode *di, dir_fn fn, void *ctx, const char *path, char *err,
                    size_t errlen)
{
    if ((di->mode & FFS_IFMT) != FFS_IFDIR) {
        boot_seterr(err, errlen, "%s: not a directory", path);
        return -1;
    }
    if (di->size == 0) {
        boot_seterr(err, errlen, "%s: zero-length directory (inode %u)", path, di->ino);
        return -1;
    }
    if (di->size > (int64_t)MAX_DIR_BYTES) {
        boot_seterr(err, errlen, "%s: directory inode %u has an absurd size %lld", path, di->ino,
               (long long)di->size);
        return -1;
    }
    size_t len = (size_t)di->size;
    uint8_t *buf = malloc(len);
    if (!buf) {
        boot_seterr(err, errlen, "out of memory");
        return -1;
    }
    if (read_data(fs, di, buf, len, err, errlen) != 0) {
        free(buf);
        return -1;
    }
    int rc = 0;
    /* Entries never cross a DIRBLKSIZ chunk; a trailing partial chunk
     * (a directory whose size is not a multiple of 512) is parsed as far
     * as it goes. */
    for (size_t chunk = 0; chunk < len && rc == 0; chunk += DIRBLKSIZ) {
        size_t end = chunk + DIRBLKSIZ < len ? chunk + DIRBLKSIZ : len;
        size_t off = chunk;
        while (off < end) {
            if (end - off < DIRHDR) {
                boot_seterr(err, errlen, "%s: damaged directory (inode %u): entry header cut off at offset %zu",
                       path, di->ino, off);
                rc = -1;
                break;
            }
            uint32_t ino = le32_get(buf + off);
            uint16_t reclen = le16_get(buf + off + 4);
            uint16_t namlen = le16_get(buf + off + 6);
            if (reclen < DIRHDR + 4 || (reclen & 3) != 0 || reclen > end - off) {
                boot_seterr(err, errlen, "%s: damaged directory (inode %u): bad record length %u at offset %zu",
                       path, di->ino, reclen, off);
                rc = -1;
                break;
            }
            if (ino != 0) {
                if (namlen == 0 || namlen > MAXNAMLEN || DIRHDR + namlen + 1u > reclen) {
                    boot_seterr(err, errlen, "%s: damaged directory (inode %u): bad name length %u at offset %zu",
                           path, di->ino, namlen, off);
                    rc = -1;
                    break;
                }
                char name[MAXNAMLEN + 1];
                memcpy(name, buf + off + DIRHDR, namlen);
                name[namlen] = 0;
                rc = fn(ctx, name, namlen, ino);
                if (rc != 0)
                    break;
            }
            off += reclen;
        }
    }
    free(buf);
    return rc;
}

typedef struct {
    const char *want;
    size_t wantlen;
    uint32_t found;
} lookup_ctx;

static int lookup_fn(void *ctx, const char *name, size_t namlen, uint32_t ino)
{
    lookup_ctx *l = ctx;
    if (namlen == l->wantlen && memcmp(name, l->want, namlen) == 0) {
        l->found = ino;
        return 1;
    }
    return 0;
}

/* Resolve path to an inode.  follow_last: follow a symbolic link that is
 * the last component.  *links counts symbolic links followed so far. */
static int namei(ffs_fs *fs, const char *path, int follow_last, dinode *out, int *links, char *err,
                 size_t errlen)
{
    if (!path || !*path) {
        boot_seterr(err, errlen, "empty path");
        return -1;
    }
    size_t plen = strlen(path);
    if (plen >= MAXPATHLEN) {
        boot_seterr(err, errlen, "path too long (%zu bytes)", plen);
        return -1;
    }
    dinode dir;
    if (read_inode(fs, FFS_ROOTINO, &dir, err, errlen) != 0)
        return -1;
    if ((dir.mode & FFS_IFMT) != FFS_IFDIR) {
        boot_seterr(err, errlen, "the root inode is not a directory (mode 0%o)", dir.mode);
        return -1;
    }
    dinode cur = dir;
    /* The path walked so far, for messages. */
    char walked[MAXPATHLEN + 2];
    size_t wlen = 0;
    walked[0] = 0;
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != '/')
            q++;
        size_t n = (size_t)(q - p);
        if (n > MAXNAMLEN) {
            boot_seterr(err, errlen, "file name too long (%zu bytes, the limit is %u) after %s", n,
                   MAXNAMLEN, wlen ? walked : "/");
            return -1;
        }
        if (wlen + 1 + n >= sizeof walked) {   /* cannot happen: plen < MAXPATHLEN */
            boot_seterr(err, errlen, "%s: path too long", path);
            return -1;
        }
        walked[wlen++] = '/';
        memcpy(walked + wlen, p, n);
        wlen += n;
        walked[wlen] = 0;
        if ((cur.mode & FFS_IFMT) != FFS_IFDIR) {
            boot_seterr(err, errlen, "%s: not a directory", walked);
            return -1;
        }
        dir = cur;
        lookup_ctx l = { p, n, 0 };
        int rc = walk_dir(fs, &dir, lookup_fn, &l, wlen ? walked : "/", err, errlen);
        if (rc < 0)
            return -1;
        if (l.found == 0) {
            boot_seterr(err, errlen, "%s: no such file or directory", walked);
            return -1;
        }
        if (read_inode(fs, l.found, &cur, err, errlen) != 0)
            return -1;
        int last = 1;
        for (const char *r = q; *r; r++)
            if (*r != '/') {
                last = 0;
                break;
            }
        if ((cur.mode & FFS_IFMT) == FFS_IFLNK && (!last || follow_last)) {
            if (++*links > MAXSYMLINKS) {
                boot_seterr(err, errlen, "%s: too many levels of symbolic links", walked);
                return -1;
            }
            if (cur.size <= 0 || cur.size >= (int64_t)MAXPATHLEN) {
                boot_seterr(err, errlen, "%s: symbolic link of bad length %lld", walked,
                       (long long)cur.size);
                return -1;
            }
            char target[2 * MAXPATHLEN + 2];
            size_t tlen = (size_t)cur.size;
            if (read_data(fs, &cur, (uint8_t *)target, tlen, err, errlen) != 0)
                return -1;
            target[tlen] = 0;
            if (strlen(target) != tlen) {
                boot_seterr(err, errlen, "%s: symbolic link contains a NUL byte", walked);
                return -1;
            }
            /* New path: the target (relative to the directory holding the
             * link, or to the root), then the rest of this path. */
            char newpath[2 * MAXPATHLEN + 2];
            size_t dlen = wlen - n - 1;   /* the directory part of walked */
            int k;
            if (target[0] == '/')
                k = snprintf(newpath, sizeof newpath, "%s%s", target, q);
            else
                k = snprintf(newpath, sizeof newpath, "%.*s/%s%s", (int)dlen, walked, target, q);
            if (k < 0 || (size_t)k >= MAXPATHLEN) {
                boot_seterr(err, errlen, "%s: path too long after following a symbolic link", walked);
                return -1;
            }
            return namei(fs, newpath, follow_last, out, links, err, errlen);
        }
        p = q;
    }
    *out = cur;
    return 0;
}

/* ------------------------------------------------------------- public API */

int ffs_read_file(ffs_fs *fs, const char *path, uint8_t **data, size_t *len, char *err, size_t errlen)
{
    *data = NULL;
    *len = 0;
    dinode di;
    int links = 0;
    if (namei(fs, path, 1, &di, &links, err, errlen) != 0)
        return -1;
    uint16_t type = di.mode & FFS_IFMT;
    if (type == FFS_IFDIR) {
        boot_seterr(err, errlen, "%s: is a directory", path);
        return -1;
    }
    if (type != FFS_IFREG) {
        boot_seterr(err, errlen, "%s: not a regular file (mode 0%o)", path, di.mode);
        return -1;
    }
    if (di.size > (int64_t)FFS_MAX_READ) {
        boot_seterr(err, errlen, "%s: file too large to read (%lld bytes, limit %u)", path,
               (long long)di.size, FFS_MAX_READ);
        return -1;
    }
    size_t n = (size_t)di.size;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        boot_seterr(err, errlen, "out of memory (%zu bytes for %s)", n, path);
        return -1;
    }
    char why[256];
    if (read_data(fs, &di, buf, n, why, sizeof why) != 0) {
        boot_seterr(err, errlen, "%s: %s", path, why);
        free(buf);
        return -1;
    }
    *data = buf;
    *len = n;
    return 0;
}

int ffs_stat_path(ffs_fs *fs, const char *path, ffs_stat *st, char *err, size_t errlen)
{
    dinode di;
    int links = 0;
    if (namei(fs, path, 0, &di, &links, err, errlen) != 0)
        return -1;
    memset(st, 0, sizeof *st);
    st->ino = di.ino;
    st->mode = di.mode;
    st->nlink = (uint16_t)di.nlink;
    st->uid = di.uid;
    st->gid = di.gid;
    st->size = (uint64_t)di.size;
    st->mtime = di.mtime;
    return 0;
}

typedef struct {
    void (*each)(void *ctx, const char *name, uint32_t ino);
    void *ctx;
} list_ctx;

static int list_fn(void *ctx, const char *name, size_t namlen, uint32_t ino)
{
    (void)namlen;
    list_ctx *l = ctx;
    l->each(l->ctx, name, ino);
    return 0;
}

int ffs_list_dir(ffs_fs *fs, const char *path, void (*each)(void *ctx, const char *name, uint32_t ino),
                 void *ctx, char *err, size_t errlen)
{
    dinode di;
    int links = 0;
    if (namei(fs, path, 1, &di, &links, err, errlen) != 0)
        return -1;
    list_ctx l = { each, ctx };
    return walk_dir(fs, &di, list_fn, &l, path, err, errlen) < 0 ? -1 : 0;
}

/* ---------------------------------------------------------------- sum(1) */

uint16_t ffs_bsd_sum(const uint8_t *data, size_t len)
{
    unsigned sum = 0;
    for (size_t i = 0; i < len; i++) {
        if (sum & 1)
            sum = (sum >> 1) + 0x8000;
        else
            sum >>= 1;
        sum = (sum + data[i]) & 0xFFFF;
    }
    return (uint16_t)sum;
}

void ffs_bsd_sum_line(const uint8_t *data, size_t len, char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%05u%6lu", (unsigned)ffs_bsd_sum(data, len),
             (unsigned long)((len + 1023) / 1024));
}
