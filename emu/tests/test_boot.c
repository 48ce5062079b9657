/*
 * test_boot.c — the host-side 4.3BSD disk reader and boot loader
 * (src/boot/): the Fast File System reader, the a.out loader, the
 * partition tables and vax_boot().
 *
 * Most of it runs on a small file system built here in memory (so it
 * needs nothing from outside), including damaged copies of it and a
 * byte-flipping fuzz: every damage must give an error message, never a
 * crash or a read outside a buffer (the asan build checks that).
 *
 * The rest reads the reference 4.3BSD RP06 pack: $VAXLAB_REF_IMAGE, or
 * build/images/43bsd-rp06.dsk (made by `make images`) relative to emu/.
 * If it is absent those tests are skipped, with a message.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot/aout.h"
#include "boot/boot.h"
#include "boot/ffs.h"
#include "boot/kernelvars.h"
#include "boot/partitions.h"
#include "cpu/cpu.h"
#include "storage/blockdev.h"
#include "vax.h"

#include "check.h"

/* An error message contains the expected words. */
#define CHECK_ERR(rc, err, words)                                                            \
    CHECK((rc) != 0 && strstr((err), (words)) != NULL, "expected an error with \"%s\", got rc %d: %s", \
          (words), (int)(rc), (err))

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t phys32(vax_machine *m, uint32_t pa)
{
    uint8_t b[4] = { 0 };
    vax_phys_read(m, pa, b, 4);
    return get32(b);
}

/* ===================================================== a small file system
 * bsize 8192, fsize 1024 (frag 8), one cylinder group of 512 fragments,
 * 128 inodes (two inode blocks at fragment 32), data from fragment 48. */

#define MK_BSIZE 8192u
#define MK_FSIZE 1024u
#define MK_FRAG 8u
#define MK_FPG 512u
#define MK_IPG 128u
#define MK_IBLKNO 32u
#define MK_DBLKNO 48u
#define MK_BYTES (MK_FPG * MK_FSIZE)

enum {
    INO_ROOT = 2, INO_HELLO = 3, INO_SUB = 4, INO_BIG = 5, INO_LINK = 6, INO_SPARSE = 7,
    INO_LOOP = 8, INO_ABSLINK = 9, INO_SUBFILE = 10, INO_BOOT = 11, INO_VMUNIX = 12
};

#define BIG_SIZE (13u * MK_BSIZE + 100u)            /* direct blocks + single indirect */
#define SPARSE_LBN (12u + 2048u)                   /* first double-indirect block */
#define SPARSE_SIZE ((SPARSE_LBN + 1u) * MK_BSIZE)

static const char hello_text[] = "Hello, world!\n";
static const char subfile_text[] = "in sub\n";

typedef struct {
    uint8_t *img;
    uint32_t next_block;   /* next free block (fragment address, aligned) */
    uint32_t frag_block;   /* the block small fragment runs come from */
    uint32_t frag_used;
} mkfs;

static uint32_t alloc_block(mkfs *k)
{
    uint32_t b = k->next_block;
    k->next_block += MK_FRAG;
    return b;
}

static uint32_t alloc_frag(mkfs *k)
{
    if (k->frag_used == MK_FRAG || k->frag_block == 0) {
        k->frag_block = alloc_block(k);
        k->frag_used = 0;
    }
    return k->frag_block + k->frag_used++;
}

static uint8_t *frag_ptr(mkfs *k, uint32_t f) { return k->img + (size_t)f * MK_FSIZE; }

static uint8_t *inode_ptr(uint8_t *img, uint32_t ino)
{
    return img + (size_t)MK_IBLKNO * MK_FSIZE + (size_t)ino * 128u;
}

static void set_inode(mkfs *k, uint32_t ino, uint16_t mode, uint16_t nlink, uint32_t size,
                      const uint32_t *db, int ndb, const uint32_t *ib, int nib)
{
    uint8_t *d = inode_ptr(k->img, ino);
    memset(d, 0, 128);
    put16(d + 0, mode);
    put16(d + 2, nlink);
    put16(d + 4, 3);   /* uid */
    put16(d + 6, 10);  /* gid */
    put32(d + 8, size);
    put32(d + 16, 500000000u);  /* atime */
    put32(d + 24, 532961201u);  /* mtime */
    put32(d + 32, 532961201u);  /* ctime */
    for (int i = 0; i < ndb; i++)
        put32(d + 40 + 4 * i, db[i]);
    for (int i = 0; i < nib; i++)
        put32(d + 88 + 4 * i, ib[i]);
}

/* A one-fragment file with these bytes. */
static void small_file(mkfs *k, uint32_t ino, uint16_t mode, const void *data, uint32_t len)
{
    uint32_t f = alloc_frag(k);
    memcpy(frag_ptr(k, f), data, len);
    set_inode(k, ino, mode, 1, len, &f, 1, NULL, 0);
}

typedef struct {
    uint8_t buf[512];
    uint32_t off, last;
} dirbuf;

static void dir_add(dirbuf *d, const char *name, uint32_t ino)
{
    uint16_t namlen = (uint16_t)strlen(name);
    uint16_t reclen = (uint16_t)(8 + ((namlen + 1 + 3) & ~3));
    uint8_t *e = d->buf + d->off;
    put32(e, ino);
    put16(e + 4, reclen);
    put16(e + 6, namlen);
    memcpy(e + 8, name, namlen);
    d->last = d->off;
    d->off += reclen;
}

static void dir_finish(mkfs *k, dirbuf *d, uint32_t ino, uint16_t nlink)
{
    put16(d->buf + d->last + 4, (uint16_t)(512 - d->last));   /* the last entry takes the rest */
    uint32_t f = alloc_frag(k);
    memcpy(frag_ptr(k, f), d->buf, 512);
    set_inode(k, ino, 040755, nlink, 512, &f, 1, NULL, 0);
}

static uint8_t big_byte(uint32_t i) { return (uint8_t)(i * 7u + i / 8192u); }

/* A 0407 /boot and an 0410 /vmunix, for vax_boot without the real disk.
 * The kernel: text 0x300 (entry mask 0x4C00 at 0x100: IV, save R10, R11),
 * data 0x20 of 0x5A, bss 0x40, entry 0x80000100; two symbols, _nchsize
 * (0x80000404) and _panicstr (0x80000408), both in its data. */
#define FAKE_K_TEXT 0x300u
#define FAKE_K_DATA 0x20u
#define FAKE_K_BSS 0x40u
#define FAKE_K_MASK 0x4C00u
#define FAKE_K_SYMOFF (32u + FAKE_K_TEXT + FAKE_K_DATA)
#define FAKE_K_STROFF (FAKE_K_SYMOFF + 24u)
static size_t fake_kernel(uint8_t *out)
{
    static const char strings[] = "_nchsize\0_panicstr";   /* at string offsets 4 and 13 */
    size_t len = FAKE_K_STROFF + 4 + sizeof strings;
    memset(out, 0, len);
    put32(out + 0, AOUT_NMAGIC);
    put32(out + 4, FAKE_K_TEXT);
    put32(out + 8, FAKE_K_DATA);
    put32(out + 12, FAKE_K_BSS);
    put32(out + 16, 24);   /* two nlist entries */
    put32(out + 20, 0x80000100u);
    for (uint32_t i = 0; i < FAKE_K_TEXT; i++)
        out[32 + i] = (uint8_t)(0x80 + (i & 0x3F));
    put16(out + 32 + 0x100, FAKE_K_MASK);
    memset(out + 32 + FAKE_K_TEXT, 0x5A, FAKE_K_DATA);
    uint8_t *sym = out + FAKE_K_SYMOFF;
    put32(sym + 0, 4);            /* n_strx */
    sym[4] = 0x07;                /* n_type: N_DATA | N_EXT */
    put32(sym + 8, 0x80000404u);  /* n_value */
    put32(sym + 12, 13);
    sym[16] = 0x07;
    put32(sym + 20, 0x80000408u);
    put32(out + FAKE_K_STROFF, (uint32_t)(4 + sizeof strings));
    memcpy(out + FAKE_K_STROFF + 4, strings, sizeof strings);
    return len;
}

#define FAKE_B_TEXT 0x40u
#define FAKE_B_DATA 0x10u
static size_t fake_boot(uint8_t *out)
{
    memset(out, 0, 32 + FAKE_B_TEXT + FAKE_B_DATA);
    put32(out + 0, AOUT_OMAGIC);
    put32(out + 4, FAKE_B_TEXT);
    put32(out + 8, FAKE_B_DATA);
    put32(out + 12, 0x100);
    for (uint32_t i = 0; i < FAKE_B_TEXT + FAKE_B_DATA; i++)
        out[32 + i] = (uint8_t)(0x10 + i);
    out[32] = 0;
    out[33] = 0;   /* entry mask */
    return 32 + FAKE_B_TEXT + FAKE_B_DATA;
}

/* Build the image (MK_BYTES, malloc'd). */
static uint8_t *make_fs(void)
{
    uint8_t *img = calloc(1, MK_BYTES);
    if (!img)
        return NULL;
    mkfs k = { img, MK_DBLKNO, 0, 0 };

    uint8_t *sb = img + 8192;
    put32(sb + 8, 16);          /* sblkno */
    put32(sb + 12, 24);         /* cblkno */
    put32(sb + 16, MK_IBLKNO);  /* iblkno */
    put32(sb + 20, MK_DBLKNO);  /* dblkno */
    put32(sb + 24, 0);          /* cgoffset */
    put32(sb + 28, 0xFFFFFFFFu);/* cgmask */
    put32(sb + 32, 532961201u); /* time */
    put32(sb + 36, MK_FPG);     /* size */
    put32(sb + 40, MK_FPG - MK_DBLKNO);
    put32(sb + 44, 1);          /* ncg */
    put32(sb + 48, MK_BSIZE);
    put32(sb + 52, MK_FSIZE);
    put32(sb + 56, MK_FRAG);
    put32(sb + 72, (uint32_t)-(int32_t)MK_BSIZE);
    put32(sb + 76, (uint32_t)-(int32_t)MK_FSIZE);
    put32(sb + 80, 13);         /* bshift */
    put32(sb + 84, 10);         /* fshift */
    put32(sb + 96, 3);          /* fragshift */
    put32(sb + 100, 1);         /* fsbtodb */
    put32(sb + 104, 2048);      /* sbsize */
    put32(sb + 116, MK_BSIZE / 4);
    put32(sb + 120, MK_BSIZE / 128);
    put32(sb + 124, 2);         /* nspf */
    put32(sb + 164, 19);
    put32(sb + 168, 22);
    put32(sb + 176, 2);
    put32(sb + 180, 16);
    put32(sb + 184, MK_IPG);
    put32(sb + 188, MK_FPG);
    memcpy(sb + 212, "/", 2);
    put32(sb + 1372, 0x011954);

    dirbuf root = { { 0 }, 0, 0 };
    dir_add(&root, ".", INO_ROOT);
    dir_add(&root, "..", INO_ROOT);
    dir_add(&root, "hello", INO_HELLO);
    dir_add(&root, "sub", INO_SUB);
    dir_add(&root, "big", INO_BIG);
    dir_add(&root, "link", INO_LINK);
    dir_add(&root, "sparse", INO_SPARSE);
    dir_add(&root, "loop", INO_LOOP);
    dir_add(&root, "abslink", INO_ABSLINK);
    dir_add(&root, "boot", INO_BOOT);
    dir_add(&root, "vmunix", INO_VMUNIX);
    dir_finish(&k, &root, INO_ROOT, 3);

    dirbuf sub = { { 0 }, 0, 0 };
    dir_add(&sub, ".", INO_SUB);
    dir_add(&sub, "..", INO_ROOT);
    dir_add(&sub, "file", INO_SUBFILE);
    dir_finish(&k, &sub, INO_SUB, 2);

    small_file(&k, INO_HELLO, 0100644, hello_text, (uint32_t)strlen(hello_text));
    small_file(&k, INO_SUBFILE, 0100600, subfile_text, (uint32_t)strlen(subfile_text));
    small_file(&k, INO_LINK, 0120777, "sub/file", 8);
    small_file(&k, INO_LOOP, 0120777, "loop", 4);
    small_file(&k, INO_ABSLINK, 0120777, "/hello", 6);
    uint8_t prog[1024];
    size_t n = fake_boot(prog);
    small_file(&k, INO_BOOT, 0100644, prog, (uint32_t)n);
    n = fake_kernel(prog);
    small_file(&k, INO_VMUNIX, 0100755, prog, (uint32_t)n);

    /* big: 14 full blocks, the last two through the single indirect. */
    uint32_t db[12], ind = 0, blk[14];
    for (int i = 0; i < 14; i++)
        blk[i] = alloc_block(&k);
    ind = alloc_block(&k);
    for (uint32_t i = 0; i < BIG_SIZE; i++)
        frag_ptr(&k, blk[i / MK_BSIZE])[i % MK_BSIZE] = big_byte(i);
    for (int i = 0; i < 12; i++)
        db[i] = blk[i];
    put32(frag_ptr(&k, ind) + 0, blk[12]);
    put32(frag_ptr(&k, ind) + 4, blk[13]);
    set_inode(&k, INO_BIG, 0100644, 1, BIG_SIZE, db, 12, &ind, 1);

    /* sparse: all holes but logical block SPARSE_LBN, reached through the
     * double indirect block. */
    uint32_t d1 = alloc_block(&k), d2 = alloc_block(&k), data = alloc_block(&k);
    put32(frag_ptr(&k, d1), d2);
    put32(frag_ptr(&k, d2), data);
    memset(frag_ptr(&k, data), 0xAB, MK_BSIZE);
    uint32_t sib[2] = { 0, d1 };
    set_inode(&k, INO_SPARSE, 0100644, 1, SPARSE_SIZE, NULL, 0, sib, 2);
    return img;
}

/* ============================================================== helpers */

typedef struct {
    char names[64][32];
    uint32_t inos[64];
    int n;
} listing;

static void collect(void *ctx, const char *name, uint32_t ino)
{
    listing *l = ctx;
    if (l->n < 64) {
        snprintf(l->names[l->n], sizeof l->names[0], "%s", name);
        l->inos[l->n] = ino;
        l->n++;
    }
}

static uint32_t listed(const listing *l, const char *name)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->names[i], name) == 0)
            return l->inos[i];
    return 0;
}

static void ignore_entry(void *ctx, const char *name, uint32_t ino)
{
    (void)name;
    (void)ino;
    (*(int *)ctx)++;
}

/* Open the file system in a copy of img after applying a change, and
 * return the error of the first of: open, then reading path. */
static int try_damaged(const uint8_t *img, size_t size, void (*damage)(uint8_t *img), const char *path,
                       char *err, size_t errlen)
{
    uint8_t *copy = malloc(size);
    if (!copy) {
        snprintf(err, errlen, "malloc");
        return -1;
    }
    memcpy(copy, img, size);
    if (damage)
        damage(copy);
    vax_blockdev bd;
    blockdev_memory(&bd, copy, size, 1);
    err[0] = 0;
    int rc = -1;
    ffs_fs *fs = ffs_open(&bd, 0, err, errlen);
    if (fs) {
        rc = 0;
        if (path) {
            uint8_t *data = NULL;
            size_t len = 0;
            rc = ffs_read_file(fs, path, &data, &len, err, errlen);
            free(data);
        }
        ffs_close(fs);
    }
    free(copy);
    return rc;
}

/* =============================================================== tests */

static void test_sum(void)
{
    CHECK(ffs_bsd_sum((const uint8_t *)"", 0) == 0, "sum of nothing");
    CHECK(ffs_bsd_sum((const uint8_t *)"a", 1) == 97, "sum of a");
    /* "ab": 0 -> 97; 97 is odd: (97>>1)+0x8000 = 32816; +98 = 32914. */
    CHECK(ffs_bsd_sum((const uint8_t *)"ab", 2) == 32914, "sum of ab = %u", ffs_bsd_sum((const uint8_t *)"ab", 2));
    char line[32];
    ffs_bsd_sum_line((const uint8_t *)"ab", 2, line, sizeof line);
    CHECK(strcmp(line, "32914     1") == 0, "sum line \"%s\"", line);
    uint8_t ff[2048];
    memset(ff, 0xFF, sizeof ff);
    ffs_bsd_sum_line(ff, 1025, line, sizeof line);
    CHECK(strlen(line) == 11 && strcmp(line + 5, "     2") == 0, "1025 bytes are 2 blocks: \"%s\"", line);
}

static void test_partitions(void)
{
    const bsd_disktype *t = bsd_disktype_find("rp06");
    CHECK(t && strcmp(t->name, "RP06") == 0, "RP06 found case-insensitively");
    if (!t)
        return;
    uint64_t off, len;
    CHECK(bsd_partition_range(t, 0, &off, &len) == 0 && off == 0 && len == 15884u * 512u,
          "hp0a: 0 + %llu", (unsigned long long)len);
    CHECK(bsd_partition_range(t, 1, &off, &len) == 0 && off == 38ull * 418 * 512 && len == 33440u * 512u,
          "hp0b at %llu", (unsigned long long)off);
    CHECK(bsd_partition_range(t, 2, &off, &len) == 0 && off == 0 && len == 340670ull * 512,
          "hp0c is the whole pack");
    CHECK(bsd_partition_range(t, 6, &off, &len) == 0 && off == 118ull * 418 * 512 && len == 291280ull * 512,
          "hp0g at %llu", (unsigned long long)off);
    CHECK(bsd_partition_range(t, 7, &off, &len) != 0, "RP06 has no h");
    CHECK(bsd_partition_range(t, 8, &off, &len) != 0, "no partition 8");
    CHECK(bsd_disktype_bytes(t) == 340670ull * 512, "RP06 size");
    CHECK((t->standalone_mask & 0x47) == 0x47 && (t->standalone_mask & 0xB8) == 0,
          "standalone RP06 partitions a b c g: mask 0x%02x", t->standalone_mask);
    CHECK(bsd_disktype_find("RM03") && bsd_disktype_find("RM05") && bsd_disktype_find("RM80") &&
              bsd_disktype_find("RP07") && !bsd_disktype_find("RX50") && !bsd_disktype_find(NULL),
          "other types");
    const bsd_disktype *rm05 = bsd_disktype_find("RM05");
    CHECK(rm05 && bsd_partition_range(rm05, 7, &off, &len) == 0 && off == 82ull * 608 * 512,
          "RM05 h at cylinder 82");
    /* Every partition of every type lies inside its pack. */
    for (int i = 0; bsd_disktype_at(i); i++) {
        const bsd_disktype *d = bsd_disktype_at(i);
        for (int p = 0; p < 8; p++)
            if (bsd_partition_range(d, p, &off, &len) == 0)
                CHECK(off + len <= bsd_disktype_bytes(d), "%s %c ends past the pack", d->name, 'a' + p);
    }
}

static void test_aout(void)
{
    char err[256];
    aout_header h;
    uint8_t file[4096];
    memset(file, 0, sizeof file);
    CHECK_ERR(aout_parse(file, 10, &h, err, sizeof err), err, "only 10 bytes");
    put32(file, 0x12345);
    CHECK_ERR(aout_parse(file, sizeof file, &h, err, sizeof err), err, "bad magic");
    put32(file, AOUT_NMAGIC);
    put32(file + 4, 5000);
    CHECK_ERR(aout_parse(file, sizeof file, &h, err, sizeof err), err, "truncated a.out");
    put32(file + 4, 0xFFFFFFF0u);
    put32(file + 8, 0xFFFFFFF0u);
    CHECK_ERR(aout_parse(file, sizeof file, &h, err, sizeof err), err, "truncated a.out");

    /* 0410: text 0x123 of 0x11, data 0x10 of 0x22, bss 0x40. */
    put32(file + 4, 0x123);
    put32(file + 8, 0x10);
    put32(file + 12, 0x40);
    put32(file + 20, 0x80000010u);
    memset(file + 32, 0x11, 0x123);
    memset(file + 32 + 0x123, 0x22, 0x10);
    CHECK(aout_parse(file, 32 + 0x133, &h, err, sizeof err) == 0, "0410 parse: %s", err);
    vax_config cfg = { 1u << 20 };
    vax_machine *m = vax_create(&cfg);
    if (!m)
        return;
    static uint8_t ff[1u << 20];
    memset(ff, 0xFF, sizeof ff);
    vax_phys_write(m, 0, ff, sizeof ff);
    aout_layout lay;
    CHECK(aout_load(m, file, 32 + 0x133, &h, 0, 0x100, &lay, err, sizeof err) == 0, "0410 load: %s", err);
    uint8_t mem[0x800];
    vax_phys_read(m, 0, mem, sizeof mem);
    int ok = 1;
    for (uint32_t i = 0; i < 0x800; i++) {
        uint8_t want = i < 0x123 ? 0x11 : i < 0x400 ? 0 : i < 0x410 ? 0x22 : i < 0x410 + 0x40 + 0x100 ? 0 : 0xFF;
        if (mem[i] != want) {
            CHECK(0, "0410 image byte 0x%x is 0x%02x, want 0x%02x", i, mem[i], want);
            ok = 0;
            break;
        }
    }
    CHECK(ok && lay.data_addr == 0x400 && lay.bss_addr == 0x410 && lay.end == 0x410 + 0x140 &&
              lay.entry == 0x10,
          "0410 layout data 0x%x bss 0x%x end 0x%x entry 0x%x", lay.data_addr, lay.bss_addr, lay.end,
          lay.entry);

    /* 0407: data right after the text. */
    put32(file, AOUT_OMAGIC);
    CHECK(aout_parse(file, 32 + 0x133, &h, err, sizeof err) == 0 &&
              aout_load(m, file, 32 + 0x133, &h, 0, 0, &lay, err, sizeof err) == 0 &&
              lay.data_addr == 0x123 && phys32(m, 0x123) == 0x22222222u,
          "0407 data at 0x%x", lay.data_addr);

    /* 0413: text from byte 1024 of the file. */
    put32(file, AOUT_ZMAGIC);
    CHECK_ERR(aout_parse(file, 32 + 0x133, &h, err, sizeof err), err, "truncated");
    memset(file + 1024, 0x33, 0x123);
    memset(file + 1024 + 0x123, 0x44, 0x10);
    CHECK(aout_parse(file, 1024 + 0x133, &h, err, sizeof err) == 0 &&
              aout_load(m, file, 1024 + 0x133, &h, 0, 0, &lay, err, sizeof err) == 0 &&
              phys32(m, 0) == 0x33333333u && lay.data_addr == 0x400 && phys32(m, 0x400) == 0x44444444u,
          "0413 load");

    /* Larger than memory; and slop that runs off the end is cut short. */
    put32(file + 12, 2u << 20);
    CHECK(aout_parse(file, 1024 + 0x133, &h, err, sizeof err) == 0, "parse");
    CHECK_ERR(aout_load(m, file, 1024 + 0x133, &h, 0, 0, &lay, err, sizeof err), err, "too large for memory");
    put32(file + 12, (1u << 20) - 0x410);
    aout_parse(file, 1024 + 0x133, &h, err, sizeof err);
    CHECK(aout_load(m, file, 1024 + 0x133, &h, 0, AOUT_BOOT_BSS_SLOP, &lay, err, sizeof err) == 0 &&
              lay.end == (1u << 20),
          "bss to the end of memory, slop dropped: %s end 0x%x", err, lay.end);
    vax_destroy(m);
}

static void test_synthetic_fs(const uint8_t *img)
{
    char err[256];
    vax_blockdev bd;
    blockdev_memory(&bd, (uint8_t *)img, MK_BYTES, 1);
    ffs_fs *fs = ffs_open(&bd, 0, err, sizeof err);
    CHECK(fs != NULL, "open the synthetic file system: %s", err);
    if (!fs)
        return;
    ffs_info info;
    ffs_get_info(fs, &info);
    CHECK(info.bsize == 8192 && info.fsize == 1024 && info.frag == 8 && info.ncg == 1 &&
              info.size == MK_FPG && strcmp(info.fsmnt, "/") == 0,
          "info");

    listing l = { .n = 0 };
    CHECK(ffs_list_dir(fs, "/", collect, &l, err, sizeof err) == 0, "ls /: %s", err);
    CHECK(l.n == 11 && listed(&l, ".") == 2 && listed(&l, "..") == 2 && listed(&l, "hello") == INO_HELLO &&
              listed(&l, "vmunix") == INO_VMUNIX && strcmp(l.names[0], ".") == 0,
          "ls / gave %d entries", l.n);
    l.n = 0;
    CHECK(ffs_list_dir(fs, "/sub/", collect, &l, err, sizeof err) == 0 && l.n == 3 &&
              listed(&l, "file") == INO_SUBFILE && listed(&l, "..") == INO_ROOT,
          "ls /sub: %s", err);
    l.n = 0;
    CHECK(ffs_list_dir(fs, "//sub/../sub/.", collect, &l, err, sizeof err) == 0 && l.n == 3,
          "ls //sub/../sub/.: %s", err);

    ffs_stat st;
    CHECK(ffs_stat_path(fs, "/hello", &st, err, sizeof err) == 0 && st.ino == INO_HELLO &&
              st.mode == 0100644 && st.size == strlen(hello_text) && st.uid == 3 && st.gid == 10 &&
              st.nlink == 1 && st.mtime == 532961201,
          "stat /hello: %s", err);
    CHECK(ffs_stat_path(fs, "/", &st, err, sizeof err) == 0 && st.ino == 2 && (st.mode & FFS_IFMT) == FFS_IFDIR &&
              st.nlink == 3,
          "stat /");
    CHECK(ffs_stat_path(fs, "/link", &st, err, sizeof err) == 0 && (st.mode & FFS_IFMT) == FFS_IFLNK &&
              st.size == 8,
          "stat /link describes the link");

    uint8_t *data = NULL;
    size_t len = 0;
    CHECK(ffs_read_file(fs, "/hello", &data, &len, err, sizeof err) == 0 && len == strlen(hello_text) &&
              memcmp(data, hello_text, len) == 0,
          "read /hello: %s", err);
    free(data);
    CHECK(ffs_read_file(fs, "/sub/file", &data, &len, err, sizeof err) == 0 && len == strlen(subfile_text) &&
              memcmp(data, subfile_text, len) == 0,
          "read /sub/file: %s", err);
    free(data);
    CHECK(ffs_read_file(fs, "/link", &data, &len, err, sizeof err) == 0 && len == strlen(subfile_text) &&
              memcmp(data, subfile_text, len) == 0,
          "read /link (relative symbolic link): %s", err);
    free(data);
    CHECK(ffs_read_file(fs, "/abslink", &data, &len, err, sizeof err) == 0 && len == strlen(hello_text),
          "read /abslink (absolute symbolic link): %s", err);
    free(data);

    CHECK(ffs_read_file(fs, "/big", &data, &len, err, sizeof err) == 0 && len == BIG_SIZE, "read /big: %s", err);
    if (data && len == BIG_SIZE) {
        size_t bad = len;
        for (size_t i = 0; i < len; i++)
            if (data[i] != big_byte((uint32_t)i)) {
                bad = i;
                break;
            }
        CHECK(bad == len, "/big differs at byte %zu (the indirect block?)", bad);
    }
    free(data);

    CHECK(ffs_read_file(fs, "/sparse", &data, &len, err, sizeof err) == 0 && len == SPARSE_SIZE,
          "read /sparse: %s", err);
    if (data && len == SPARSE_SIZE) {
        size_t bad = len;
        for (size_t i = 0; i < len; i++)
            if (data[i] != (i / MK_BSIZE == SPARSE_LBN ? 0xAB : 0)) {
                bad = i;
                break;
            }
        CHECK(bad == len, "/sparse (holes and a double-indirect block) differs at byte %zu", bad);
    }
    free(data);

    int rc;
    rc = ffs_read_file(fs, "/nonexistent", &data, &len, err, sizeof err);
    CHECK_ERR(rc, err, "/nonexistent: no such file or directory");
    CHECK(data == NULL && len == 0, "nothing returned on error");
    rc = ffs_stat_path(fs, "/sub/nope", &st, err, sizeof err);
    CHECK_ERR(rc, err, "/sub/nope: no such file or directory");
    rc = ffs_read_file(fs, "/hello/x", &data, &len, err, sizeof err);
    CHECK_ERR(rc, err, "/hello/x: not a directory");
    rc = ffs_read_file(fs, "/sub", &data, &len, err, sizeof err);
    CHECK_ERR(rc, err, "is a directory");
    rc = ffs_list_dir(fs, "/hello", collect, &l, err, sizeof err);
    CHECK_ERR(rc, err, "not a directory");
    rc = ffs_read_file(fs, "/loop", &data, &len, err, sizeof err);
    CHECK_ERR(rc, err, "too many levels of symbolic links");
    rc = ffs_read_file(fs, "", &data, &len, err, sizeof err);
    CHECK_ERR(rc, err, "empty path");
    char longname[400];
    memset(longname, 'x', sizeof longname - 1);
    longname[0] = '/';
    longname[sizeof longname - 1] = 0;
    rc = ffs_read_file(fs, longname, &data, &len, err, sizeof err);
    CHECK_ERR(rc, err, "file name too long");

    uint64_t where;
    CHECK(ffs_inode_location(fs, INO_HELLO, &where, err, sizeof err) == 0 &&
              where == MK_IBLKNO * MK_FSIZE + INO_HELLO * 128u,
          "inode location");
    CHECK_ERR(ffs_inode_location(fs, 0, &where, err, sizeof err), err, "out of range");
    ffs_close(fs);
}

/* ---- damage ---- */
static void dmg_magic(uint8_t *img) { put32(img + 8192 + 1372, 0x12345678); }
static void dmg_bsize(uint8_t *img) { put32(img + 8192 + 48, 3000); }
static void dmg_ncg(uint8_t *img) { put32(img + 8192 + 44, 0); }
static void dmg_size(uint8_t *img) { put32(img + 8192 + 36, 1u << 30); }
static void dmg_ipg(uint8_t *img) { put32(img + 8192 + 184, 100); }
static void dmg_hello_block(uint8_t *img) { put32(inode_ptr(img, INO_HELLO) + 40, 1000000); }
static void dmg_hello_negblock(uint8_t *img) { put32(inode_ptr(img, INO_HELLO) + 40, 0x80000000u); }
static void dmg_hello_size(uint8_t *img) { put32(inode_ptr(img, INO_HELLO) + 8, 0x80000000u); }
static void dmg_hello_huge(uint8_t *img) { put32(inode_ptr(img, INO_HELLO) + 8, 0x7FFFFFFFu); }
static void dmg_hello_frags(uint8_t *img)
{
    /* a 14-byte file in the last fragment of a block, claiming 1 KB: fine;
     * grow the size to 2 KB so the run would cross the block boundary */
    uint8_t *d = inode_ptr(img, INO_HELLO);
    put32(d + 40, MK_DBLKNO + 7);
    put32(d + 8, 2000);
}
static void dmg_big_ind(uint8_t *img) { put32(inode_ptr(img, INO_BIG) + 88, 600); }
static void dmg_big_ind_entry(uint8_t *img)
{
    uint32_t ind = get32(inode_ptr(img, INO_BIG) + 88);
    put32(img + (size_t)ind * MK_FSIZE + 4, 0xFFFFFF00u);
}
static void dmg_big_unaligned(uint8_t *img) { put32(inode_ptr(img, INO_BIG) + 40, MK_DBLKNO + 3); }
static uint8_t *root_dir(uint8_t *img) { return img + (size_t)get32(inode_ptr(img, INO_ROOT) + 40) * MK_FSIZE; }
static void dmg_reclen0(uint8_t *img) { put16(root_dir(img) + 12 + 4, 0); }
static void dmg_reclen_long(uint8_t *img) { put16(root_dir(img) + 12 + 4, 2000); }
static void dmg_namlen(uint8_t *img) { put16(root_dir(img) + 24 + 6, 300); }
static void dmg_dir_ino(uint8_t *img) { put32(root_dir(img) + 24, 99999); }   /* "hello" */
static void dmg_root_mode(uint8_t *img) { put16(inode_ptr(img, INO_ROOT), 0100644); }
static void dmg_root_size0(uint8_t *img) { put32(inode_ptr(img, INO_ROOT) + 8, 0); }
static void dmg_root_huge(uint8_t *img) { put32(inode_ptr(img, INO_ROOT) + 8, 0x7FFFFFFFu); }

static void test_damaged_fs(const uint8_t *img)
{
    char err[256];
    int rc;
    CHECK(try_damaged(img, MK_BYTES, NULL, "/hello", err, sizeof err) == 0, "undamaged copy: %s", err);
    rc = try_damaged(img, MK_BYTES, dmg_magic, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "not a 4.3BSD file system: bad superblock magic 0x12345678 at byte 8192");
    rc = try_damaged(img, MK_BYTES, dmg_bsize, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "bad block size");
    rc = try_damaged(img, MK_BYTES, dmg_ncg, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "bad number of cylinder groups");
    rc = try_damaged(img, MK_BYTES, dmg_size, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "bad file system size");
    rc = try_damaged(img, MK_BYTES, dmg_ipg, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "bad inodes per group");
    rc = try_damaged(img, 12 * 1024, NULL, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "image too small");
    rc = try_damaged(img, 100 * 1024, NULL, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "image too small: the file system needs 524288 bytes");
    rc = try_damaged(img, 4096, NULL, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "image too small");
    rc = try_damaged(img, MK_BYTES, dmg_hello_block, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "block address 1000000 is outside the file system");
    rc = try_damaged(img, MK_BYTES, dmg_hello_negblock, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "outside the file system");
    rc = try_damaged(img, MK_BYTES, dmg_hello_size, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "impossible size");
    rc = try_damaged(img, MK_BYTES, dmg_hello_huge, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "file too large");
    rc = try_damaged(img, MK_BYTES, dmg_hello_frags, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "not aligned");
    rc = try_damaged(img, MK_BYTES, dmg_big_ind, "/big", err, sizeof err);
    CHECK_ERR(rc, err, "block address 600 is outside");
    rc = try_damaged(img, MK_BYTES, dmg_big_ind_entry, "/big", err, sizeof err);
    CHECK_ERR(rc, err, "outside the file system");
    rc = try_damaged(img, MK_BYTES, dmg_big_unaligned, "/big", err, sizeof err);
    CHECK_ERR(rc, err, "not aligned");
    rc = try_damaged(img, MK_BYTES, dmg_reclen0, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "bad record length 0");
    rc = try_damaged(img, MK_BYTES, dmg_reclen_long, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "bad record length 2000");
    rc = try_damaged(img, MK_BYTES, dmg_namlen, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "bad name length 300");
    rc = try_damaged(img, MK_BYTES, dmg_dir_ino, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "inode number 99999 out of range");
    rc = try_damaged(img, MK_BYTES, dmg_root_mode, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "root inode is not a directory");
    rc = try_damaged(img, MK_BYTES, dmg_root_size0, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "zero-length directory");
    rc = try_damaged(img, MK_BYTES, dmg_root_huge, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "absurd size");
    /* A partition offset past the end. */
    vax_blockdev bd;
    blockdev_memory(&bd, (uint8_t *)img, MK_BYTES, 1);
    ffs_fs *fs = ffs_open(&bd, (uint64_t)MK_BYTES * 4, err, sizeof err);
    CHECK(fs == NULL && strstr(err, "image too small"), "partition past the end: %s", err);
    ffs_close(fs);
}

/* Flip random bytes in the metadata and use the result: errors are fine,
 * crashes and out-of-bounds reads are not. */
static void test_fuzz_fs(const uint8_t *img)
{
    uint8_t *copy = malloc(MK_BYTES);
    if (!copy)
        return;
    memcpy(copy, img, MK_BYTES);
    uint32_t seed = 12345;
    int opened = 0, errors = 0;
    static const char *const paths[] = { "/hello", "/sub/file", "/link", "/big", "/abslink", "/boot", "/vmunix" };
    for (int iter = 0; iter < 3000; iter++) {
        int nflip = 1 + (int)(seed % 8);
        for (int i = 0; i < nflip; i++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t r = seed >> 8;
            /* superblock (first 1.5 KB), the first inodes, the small-file block */
            uint32_t region = r % 3;
            uint32_t a = region == 0 ? 8192 + (r / 3) % 1400
                       : region == 1 ? MK_IBLKNO * MK_FSIZE + (r / 3) % (16 * 128)
                                     : MK_DBLKNO * MK_FSIZE + (r / 3) % (8 * MK_FSIZE);
            copy[a] ^= (uint8_t)(1u << ((r >> 20) % 8));
            if ((r >> 24) % 4 == 0)
                copy[a] = (uint8_t)(r >> 12);
        }
        vax_blockdev bd;
        blockdev_memory(&bd, copy, MK_BYTES, 1);
        char err[256];
        ffs_fs *fs = ffs_open(&bd, 0, err, sizeof err);
        if (fs) {
            opened++;
            int n = 0;
            if (ffs_list_dir(fs, "/", ignore_entry, &n, err, sizeof err) != 0)
                errors++;
            ffs_list_dir(fs, "/sub", ignore_entry, &n, err, sizeof err);
            for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
                ffs_stat st;
                if (ffs_stat_path(fs, paths[p], &st, err, sizeof err) != 0) {
                    errors++;
                    continue;
                }
                if (st.size > (1u << 20))   /* a huge (sparse) size: fine, but slow to read */
                    continue;
                uint8_t *data = NULL;
                size_t len = 0;
                if (ffs_read_file(fs, paths[p], &data, &len, err, sizeof err) != 0)
                    errors++;
                free(data);
            }
            ffs_close(fs);
        } else {
            errors++;
        }
        memcpy(copy, img, MK_BYTES);
    }
    free(copy);
    CHECK(opened > 100 && errors > 100, "fuzz: %d opened, %d errors (both should be common)", opened, errors);
    printf("fuzz: 3000 damaged images, %d opened, %d errors reported, no crash\n", opened, errors);
}

static void test_boot_synthetic(const uint8_t *img)
{
    char err[256];
    vax_blockdev bd;
    blockdev_memory(&bd, (uint8_t *)img, MK_BYTES, 1);
    vax_config cfg = { 2u << 20 };
    vax_machine *m = vax_create(&cfg);
    if (!m)
        return;

    /* Registers are untouched by a failed boot. */
    vax_set_reg(m, 10, 0x1234);
    int rc = vax_boot(m, &bd, "RX99", BOOT_DIRECT_KERNEL, 0, 0, "/vmunix", err, sizeof err);
    CHECK_ERR(rc, err, "unknown disk type");
    rc = vax_boot(m, &bd, "RP06", BOOT_DIRECT_KERNEL, 0, 0, "/nokernel", err, sizeof err);
    CHECK_ERR(rc, err, "/nokernel: no such file or directory");
    rc = vax_boot(m, &bd, "RP06", BOOT_DIRECT_KERNEL, 0, 0, "/hello", err, sizeof err);
    CHECK_ERR(rc, err, "not a VAX a.out file");
    rc = vax_boot(m, &bd, "RP06", BOOT_DIRECT_KERNEL, 0, BOOT_DEVICE(0, 0, 0, 3), "/vmunix", err, sizeof err);
    CHECK_ERR(rc, err, "partition 3");
    rc = vax_boot(m, &bd, "RP06", BOOT_DIRECT_KERNEL, 0, BOOT_DEVICE(0, 0, 0, 6), "/vmunix", err, sizeof err);
    CHECK_ERR(rc, err, "image too small");   /* g starts far past this small image */
    rc = vax_boot(m, &bd, "RP06", BOOT_DIRECT_KERNEL, 0, 0x50000000u, "/vmunix", err, sizeof err);
    CHECK_ERR(rc, err, "bad magic number");
    rc = vax_boot(m, &bd, "RP06", (boot_method)7, 0, 0, "/vmunix", err, sizeof err);
    CHECK_ERR(rc, err, "unknown boot method");
    CHECK(vax_get_reg(m, 10) == 0x1234, "registers unchanged after failed boots");

    /* Through the boot program. */
    vax_set_ipr(m, IPR_MAPEN, 1);
    vax_boot_info info;
    rc = vax_boot_ex(m, &bd, "RP06", BOOT_VIA_BOOT_PROGRAM, RB_SINGLE, 0, NULL, &info, err, sizeof err);
    CHECK(rc == 0, "boot program: %s", err);
    uint8_t b[0x60];
    vax_phys_read(m, 0, b, sizeof b);
    int same = 1;
    for (uint32_t i = 2; i < FAKE_B_TEXT + FAKE_B_DATA; i++)
        if (b[i] != (uint8_t)(0x10 + i))
            same = 0;
    CHECK(same && b[0] == 0 && b[1] == 0, "/boot's text and data at 0, header stripped");
    CHECK(vax_get_reg(m, 15) == 2 && vax_get_reg(m, 10) == 0 && vax_get_reg(m, 11) == RB_SINGLE &&
              vax_get_psl(m) == BOOT_PSL && vax_get_ipr(m, IPR_MAPEN) == 0 && info.pc == 2 &&
              info.magic == AOUT_OMAGIC,
          "boot program state: PC %x R10 %x R11 %x PSL %08x", vax_get_reg(m, 15), vax_get_reg(m, 10),
          vax_get_reg(m, 11), vax_get_psl(m));

    /* Directly into the kernel, with a mask that saves R10/R11 and sets IV. */
    rc = vax_boot_ex(m, &bd, "RP06", BOOT_DIRECT_KERNEL, RB_SINGLE | RB_ASKNAME, BOOT_DEVICE(0, 0, 0, 0),
                     "/vmunix", &info, err, sizeof err);
    CHECK(rc == 0, "direct: %s", err);
    CHECK(vax_get_reg(m, 15) == 0x102 && info.entry == 0x100 && info.pc == 0x102, "PC 0x%x", vax_get_reg(m, 15));
    CHECK(vax_get_reg(m, 10) == B_DEVMAGIC && vax_get_reg(m, 11) == 3 && vax_get_reg(m, 9) == 3,
          "R9 %x R10 %x R11 %x", vax_get_reg(m, 9), vax_get_reg(m, 10), vax_get_reg(m, 11));
    CHECK(vax_get_psl(m) == (BOOT_PSL | 0x20u), "PSL %08x (IV from the mask)", vax_get_psl(m));
    CHECK(phys32(m, 0) == 0x83828180u && phys32(m, FAKE_K_TEXT) == 0 && phys32(m, 0x3FC) == 0 &&
              phys32(m, 0x400) == 0x5A5A5A5Au && phys32(m, 0x41C) == 0x5A5A5A5Au && phys32(m, 0x420) == 0,
          "kernel image: text at 0, data at 0x400");
    uint32_t sp = vax_get_reg(m, 14), fp = vax_get_reg(m, 13), ap = vax_get_reg(m, 12);
    CHECK(sp == fp && sp > info.end && (sp & 3) == 0, "SP %x FP %x end %x", sp, fp, info.end);
    CHECK(phys32(m, sp) == 0 && phys32(m, sp + 4) == (0x20000000u | (0xC00u << 16)) && phys32(m, sp + 8) == 0 &&
              phys32(m, sp + 12) == 0 && phys32(m, sp + 20) == B_DEVMAGIC && phys32(m, sp + 24) == 3 &&
              ap == sp + 28 && phys32(m, ap) == 0,
          "CALLS frame: %08x %08x %08x %08x %08x %08x %08x; AP %x", phys32(m, sp), phys32(m, sp + 4),
          phys32(m, sp + 8), phys32(m, sp + 12), phys32(m, sp + 16), phys32(m, sp + 20), phys32(m, sp + 24), ap);
    uint32_t ret = phys32(m, sp + 16);
    CHECK(ret == ap + 4 && phys32(m, ret) == 0, "return PC 0x%x points at a HALT", ret);

    /* A machine too small for the kernel's bss. */
    vax_destroy(m);
    cfg.memory_bytes = 64u << 10;
    m = vax_create(&cfg);
    if (m) {
        rc = vax_boot(m, &bd, "RP06", BOOT_DIRECT_KERNEL, 0, 0, "/vmunix", err, sizeof err);
        CHECK(rc == 0, "a 1 KB kernel in 64 KB: %s", err);
        vax_destroy(m);
    }
}

/* vax_boot_kernel_image: the kernel's bytes from the host leave the machine
 * exactly as the same file read from the disk does; bad files are refused
 * with a message naming them. */
static void test_boot_kernel_image(const uint8_t *img)
{
    char err[256];
    vax_blockdev bd;
    blockdev_memory(&bd, (uint8_t *)img, MK_BYTES, 1);
    vax_config cfg = { 2u << 20 };
    vax_machine *a = vax_create(&cfg), *b = vax_create(&cfg);
    uint8_t k[FAKE_K_STROFF + 64];
    size_t klen = fake_kernel(k);
    if (!a || !b) {
        CHECK(0, "out of memory");
        vax_destroy(a);
        vax_destroy(b);
        return;
    }
    vax_boot_info ia, ib;
    int ra = vax_boot_ex(a, &bd, "RP06", BOOT_DIRECT_KERNEL, RB_SINGLE, 0, "/vmunix", &ia, err, sizeof err);
    CHECK(ra == 0, "direct from the disk: %s", err);
    int rb = vax_boot_kernel_image(b, k, klen, "fake.vmunix", RB_SINGLE, 0, &ib, err, sizeof err);
    CHECK(rb == 0, "direct from the host: %s", err);
    int same = vax_state_digest(a) == vax_state_digest(b) && ia.pc == ib.pc && ia.entry == ib.entry &&
               ia.end == ib.end && ia.text == ib.text && ib.partition_offset == 0;
    for (uint32_t pa = 0; same && pa < (1u << 20); pa += 4)
        same = phys32(a, pa) == phys32(b, pa);
    CHECK(same, "host kernel: same registers, PSL and first MB of memory as the disk's /vmunix");

    /* Symbols and settings from the bytes: the fake kernel's _nchsize. */
    const char *names[2] = { "_nchsize", "_nosuch" };
    uint32_t val[2] = { 1, 1 };
    CHECK(boot_lookup_kernel_symbols_image(k, klen, "fake.vmunix", names, val, 2, err, sizeof err) == 1 &&
              val[0] == 0x80000404u && val[1] == 0,
          "symbols from the host's kernel: _nchsize %08x, _nosuch %08x", val[0], val[1]);
    boot_kernel_setting set = { "nchsize", 7, 0 };
    int rc = boot_set_kernel_variables_image(b, k, klen, "fake.vmunix", &set, 1, err, sizeof err);
    CHECK(rc == 0 && set.old == 0x5A5A5A5Au && phys32(b, 0x404) == 7, "set nchsize=7: %d %s (was %08x)", rc, err,
          set.old);
    /* Variables the host watches (_panicstr): only an aligned longword in
     * data or bss counts; a damaged table pointing into text does not. */
    const char *watch[1] = { "_panicstr" };
    uint32_t at = 0;
    CHECK(boot_lookup_kernel_variables_image(k, klen, "fake.vmunix", watch, &at, 1, err, sizeof err) == 1 &&
              at == 0x80000408u, "_panicstr in data: %08x", at);
    put32(k + FAKE_K_SYMOFF + 20, 0x80000104u);   /* its n_value now in text */
    CHECK(boot_lookup_kernel_variables_image(k, klen, "fake.vmunix", watch, &at, 1, err, sizeof err) == 0 && at == 0,
          "a _panicstr pointing into text is not watched: %08x", at);
    put32(k + FAKE_K_SYMOFF + 20, 0x80000408u);
    boot_kernel_setting missing = { "nosuch", 0, 0 };
    rc = boot_set_kernel_variables_image(b, k, klen, "fake.vmunix", &missing, 1, err, sizeof err);
    CHECK(rc == BOOT_SET_BAD_NAME && strstr(err, "fake.vmunix has no symbol _nosuch"), "settings: %d %s", rc, err);

    /* Bad input: not an a.out, cut short, a bad boot device; registers stay. */
    vax_set_reg(b, 10, 0x1234);
    uint8_t junk[64] = { 1, 2, 3 };
    rc = vax_boot_kernel_image(b, junk, sizeof junk, "junk", 0, 0, NULL, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "junk: ") && strstr(err, "not a VAX a.out file"), "junk: %s", err);
    rc = vax_boot_kernel_image(b, k, 32 + FAKE_K_TEXT + FAKE_K_DATA - 8, "short", 0, 0, NULL, err, sizeof err);
    CHECK(rc < 0 && strstr(err, "short: "), "a kernel cut short: %s", err);
    rc = vax_boot_kernel_image(b, k, klen, "k", 0, 0x50000000u, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "bad magic number");
    rc = vax_boot_kernel_image(b, k, klen, "k", 0, BOOT_DEVICE(0, 0, 0, 9), NULL, err, sizeof err);
    CHECK_ERR(rc, err, "partition 9");
    rc = vax_boot_kernel_image(b, NULL, 0, "k", 0, 0, NULL, err, sizeof err);
    CHECK_ERR(rc, err, "no kernel");
    CHECK(vax_get_reg(b, 10) == 0x1234, "registers unchanged after failed boots");
    vax_destroy(a);
    vax_destroy(b);
}

/* Kernel variables and symbols (boot/kernelvars.h) from the synthetic
 * disk's /vmunix; a damaged symbol table (found by the file-system fuzzer:
 * a flipped a_trsize or string-table size made --set report "no symbol",
 * a usage error, for what is a damaged image) is BOOT_SET_IMAGE_ERROR. */
static void test_kernelvars(const uint8_t *img)
{
    char err[256];
    uint8_t *copy = malloc(MK_BYTES);
    vax_config cfg = { 2u << 20 };
    vax_machine *m = vax_create(&cfg);
    if (!copy || !m) {
        CHECK(0, "out of memory");
        free(copy);
        vax_destroy(m);
        return;
    }
    memcpy(copy, img, MK_BYTES);
    vax_blockdev bd;
    blockdev_memory(&bd, copy, MK_BYTES, 1);
    int rc = vax_boot(m, &bd, "RP06", BOOT_DIRECT_KERNEL, 0, 0, "/vmunix", err, sizeof err);
    CHECK(rc == 0, "direct boot: %s", err);

    boot_kernel_setting set = { "nchsize", 7, 0 };
    rc = boot_set_kernel_variables(m, &bd, NULL, &set, 1, err, sizeof err);
    CHECK(rc == 0 && phys32(m, 0x404) == 7 && set.old == 0x5A5A5A5Au, "set _nchsize: rc %d %s, old 0x%x", rc,
          err, set.old);
    const char *names[2] = { "_panicstr", "_nosuch" };
    uint32_t values[2] = { 1, 1 };
    rc = boot_lookup_kernel_symbols(&bd, NULL, names, values, 2, err, sizeof err);
    CHECK(rc == 1 && values[0] == 0x80000408u && values[1] == 0, "lookup: rc %d, 0x%x 0x%x", rc, values[0],
          values[1]);
    set.name = "nosuch";
    rc = boot_set_kernel_variables(m, &bd, NULL, &set, 1, err, sizeof err);
    CHECK(rc == BOOT_SET_BAD_NAME && strstr(err, "has no symbol _nosuch"), "unknown name: rc %d %s", rc, err);
    set.name = "nchsize";

    /* The kernel's first fragment holds its header and its symbols. */
    uint8_t *k = copy + (size_t)get32(inode_ptr(copy, INO_VMUNIX) + 40) * MK_FSIZE;
    static const struct {
        uint32_t at, value;
        const char *words;
    } damage[] = {
        { 16, 25, "whole number of 12-byte entries" },   /* a_syms */
        { 16, 0x7FFFFFF8u, "past the end of the file" },
        { 24, 0x10000, "past the end of the file" },     /* a_trsize */
        { 28, 0xFFFFFFF0u, "past the end of the file" }, /* a_drsize */
        { FAKE_K_STROFF, 0, "string table size 0" },
        { FAKE_K_STROFF, 0x100000, "string table size 1048576" },
        { FAKE_K_STROFF, 12, "symbol 1 names string 13, outside the string table (12 bytes)" },
        { FAKE_K_SYMOFF, 2, "symbol 0 names string 2" },
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        uint32_t old = get32(k + damage[i].at);
        put32(k + damage[i].at, damage[i].value);
        rc = boot_set_kernel_variables(m, &bd, NULL, &set, 1, err, sizeof err);
        CHECK(rc == BOOT_SET_IMAGE_ERROR && strstr(err, "/vmunix: damaged symbol table") &&
                  strstr(err, damage[i].words),
              "damage %zu: set gives rc %d: %s", i, rc, err);
        rc = boot_lookup_kernel_symbols(&bd, NULL, names, values, 2, err, sizeof err);
        CHECK(rc == BOOT_SET_IMAGE_ERROR && strstr(err, damage[i].words), "damage %zu: lookup gives rc %d: %s", i,
              rc, err);
        put32(k + damage[i].at, old);
    }
    /* A kernel without symbols (a_syms 0) has none to find: a bad name. */
    put32(k + 16, 0);
    rc = boot_set_kernel_variables(m, &bd, NULL, &set, 1, err, sizeof err);
    CHECK(rc == BOOT_SET_BAD_NAME, "stripped kernel: rc %d %s", rc, err);
    rc = boot_lookup_kernel_symbols(&bd, NULL, names, values, 2, err, sizeof err);
    CHECK(rc == 0 && values[0] == 0, "stripped kernel: lookup rc %d", rc);
    vax_destroy(m);
    free(copy);
}

/* ====================================================== the reference disk */

typedef struct {
    int fd;
} file_dev;

static int file_read(const vax_blockdev *bd, uint64_t off, void *buf, size_t len)
{
    const file_dev *f = bd->ctx;
    if (off > bd->size || len > bd->size - off)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(f->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

static void print_entry(void *ctx, const char *name, uint32_t ino)
{
    listing *l = ctx;
    collect(l, name, ino);
}

static void dmg_ref_magic(uint8_t *img) { put32(img + 8192 + 1372, 0); }

static void test_reference(const char *path)
{
    file_dev f;
    f.fd = open(path, O_RDONLY);
    struct stat sst;
    if (f.fd < 0 || fstat(f.fd, &sst) != 0) {
        printf("reference image %s not present: skipped the reference-disk tests "
               "(run `make images` or set VAXLAB_REF_IMAGE)\n", path);
        if (f.fd >= 0)
            close(f.fd);
        return;
    }
    vax_blockdev disk = { &f, (uint64_t)sst.st_size, 1, file_read, NULL };
    printf("reference image %s: %llu bytes\n", path, (unsigned long long)disk.size);
    CHECK(disk.size == 174416896ull, "reference image size %llu", (unsigned long long)disk.size);

    char err[256];
    ffs_fs *fs = ffs_open(&disk, 0, err, sizeof err);
    CHECK(fs != NULL, "open hp0a: %s", err);
    if (!fs) {
        close(f.fd);
        return;
    }
    ffs_info info;
    ffs_get_info(fs, &info);
    printf("hp0a: bsize %u fsize %u ncg %u ipg %u fpg %u size %u frags (%u sectors) geometry %u/%u/%u mnt \"%s\"\n",
           info.bsize, info.fsize, info.ncg, info.ipg, info.fpg, info.size, info.size * 2, info.nsect,
           info.ntrak, info.ncyl, info.fsmnt);
    CHECK(info.bsize == 8192 && info.fsize == 1024 && info.size * 2 == 15884 && info.nsect == 22 && info.ntrak == 19,
          "hp0a superblock");

    listing l = { .n = 0 };
    CHECK(ffs_list_dir(fs, "/", print_entry, &l, err, sizeof err) == 0, "ls /: %s", err);
    printf("ls /:");
    for (int i = 0; i < l.n; i++) {
        ffs_stat st;
        char p[64];
        snprintf(p, sizeof p, "/%s", l.names[i]);
        int isdir = ffs_stat_path(fs, p, &st, err, sizeof err) == 0 && (st.mode & FFS_IFMT) == FFS_IFDIR;
        int islnk = ffs_stat_path(fs, p, &st, err, sizeof err) == 0 && (st.mode & FFS_IFMT) == FFS_IFLNK;
        printf(" %s%s", l.names[i], isdir ? "/" : islnk ? "@" : "");
    }
    printf("\n");
    static const char *const want[] = { "vmunix", "boot", "bin", "etc", "dev", "lib", "sys", "usr", "tmp" };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(listed(&l, want[i]) != 0, "/%s is not in /", want[i]);

    ffs_stat st;
    CHECK(ffs_stat_path(fs, "/vmunix", &st, err, sizeof err) == 0, "stat /vmunix: %s", err);
    printf("stat /vmunix: ino %u mode 0%o nlink %u uid %u gid %u size %llu mtime %d\n", st.ino, st.mode,
           st.nlink, st.uid, st.gid, (unsigned long long)st.size, st.mtime);
    CHECK((st.mode & FFS_IFMT) == FFS_IFREG && st.size == 407552, "/vmunix is a 407552-byte file");

    uint8_t *k = NULL;
    size_t klen = 0;
    CHECK(ffs_read_file(fs, "/vmunix", &k, &klen, err, sizeof err) == 0 && klen == st.size,
          "read /vmunix: %s", err);
    if (k) {
        char line[32];
        ffs_bsd_sum_line(k, klen, line, sizeof line);
        printf("sum /vmunix: %s  (%zu bytes)\n", line, klen);
        aout_header h;
        CHECK(aout_parse(k, klen, &h, err, sizeof err) == 0, "a.out /vmunix: %s", err);
        printf("/vmunix: magic %s text %u data %u bss %u syms %u entry 0x%08x  (/boot would print %u+%u+%u start 0x%x)\n",
               aout_magic_name(h.magic), h.text, h.data, h.bss, h.syms, h.entry, h.text, h.data, h.bss,
               h.entry & 0x7fffffffu);
        CHECK(h.magic == AOUT_NMAGIC && h.text == 0x44524 && h.data == 0x13be8 && h.bss == 0x187e4 &&
                  h.entry == 0x800012f8u,
              "vmunix header");
    }
    uint8_t *bp = NULL;
    size_t blen = 0;
    CHECK(ffs_read_file(fs, "/boot", &bp, &blen, err, sizeof err) == 0, "read /boot: %s", err);
    if (bp) {
        aout_header h;
        CHECK(aout_parse(bp, blen, &h, err, sizeof err) == 0, "a.out /boot: %s", err);
        printf("/boot: %zu bytes, magic %s text %u data %u bss %u entry 0x%x\n", blen, aout_magic_name(h.magic),
               h.text, h.data, h.bss, h.entry);
        CHECK(h.magic == AOUT_OMAGIC && h.text == 0x4300 && h.data == 0x11d8, "boot header");
        /* relsrt0: entry mask 0, then mtpr $0x1f,$0x12 (DA 1F 12) */
        CHECK(blen > 40 && bp[32] == 0 && bp[33] == 0 && bp[34] == 0xDA && bp[35] == 0x1F && bp[36] == 0x12,
              "/boot starts with relsrt0's .word 0; mtpr $HIGH,$IPL");
    }
    ffs_close(fs);

    /* hp0g (/usr) is a file system too. */
    const bsd_disktype *rp06 = bsd_disktype_find("RP06");
    uint64_t goff = 0;
    bsd_partition_range(rp06, 6, &goff, NULL);
    fs = ffs_open(&disk, goff, err, sizeof err);
    CHECK(fs != NULL, "open hp0g: %s", err);
    if (fs) {
        l.n = 0;
        CHECK(ffs_list_dir(fs, "/", collect, &l, err, sizeof err) == 0 && listed(&l, "src"), "ls hp0g:/ has src");
        CHECK(ffs_stat_path(fs, "/src/sys/h/fs.h", &st, err, sizeof err) == 0 && (st.mode & FFS_IFMT) == FFS_IFREG,
              "hp0g:/src/sys/h/fs.h: %s", err);
        ffs_close(fs);
    }
    /* hp0b is swap; the installation put the miniroot there, so it may
     * still hold that file system: just report. */
    uint64_t boff = 0;
    bsd_partition_range(rp06, 1, &boff, NULL);
    fs = ffs_open(&disk, boff, err, sizeof err);
    if (fs) {
        l.n = 0;
        ffs_list_dir(fs, "/", collect, &l, err, sizeof err);
        printf("hp0b (swap) still holds a file system (the miniroot?) with %d entries in /\n", l.n);
    } else {
        printf("hp0b (swap): %s\n", err);
    }
    ffs_close(fs);
    /* An offset that is no file system: the middle of hp0a. */
    fs = ffs_open(&disk, 512 * 1024, err, sizeof err);
    CHECK(fs == NULL && strstr(err, "bad superblock magic"), "no file system at 512 KB: %s", err);
    ffs_close(fs);

    /* Booting. */
    vax_config cfg = { 8u << 20 };
    vax_machine *m = vax_create(&cfg);
    if (m && bp && k) {
        vax_boot_info bi;
        int rc = vax_boot_ex(m, &disk, "RP06", BOOT_VIA_BOOT_PROGRAM, RB_SINGLE, 0, NULL, &bi, err, sizeof err);
        CHECK(rc == 0, "boot via /boot: %s", err);
        uint8_t mem[0x54d8];
        vax_phys_read(m, 0, mem, sizeof mem);
        CHECK(blen >= 32 + sizeof mem && memcmp(mem, bp + 32, sizeof mem) == 0, "/boot's text+data at 0");
        CHECK(vax_get_reg(m, 15) == 2 && vax_get_reg(m, 10) == 0 && vax_get_reg(m, 11) == 2 &&
                  vax_get_psl(m) == BOOT_PSL && vax_get_ipr(m, IPR_MAPEN) == 0,
              "console state for /boot");

        vax_destroy(m);
        m = vax_create(&cfg);
        rc = m ? vax_boot_ex(m, &disk, "RP06", BOOT_DIRECT_KERNEL, RB_SINGLE, 0, "/vmunix", &bi, err, sizeof err) : -1;
        CHECK(rc == 0, "direct /vmunix: %s", err);
        if (m && rc == 0) {
            printf("direct boot: PC 0x%x SP 0x%x AP 0x%x R10 0x%08x R11 0x%x PSL 0x%08x, image ends 0x%x\n",
                   vax_get_reg(m, 15), vax_get_reg(m, 14), vax_get_reg(m, 12), vax_get_reg(m, 10),
                   vax_get_reg(m, 11), vax_get_psl(m), bi.end);
            CHECK(vax_get_reg(m, 15) == 0x12fa && vax_get_reg(m, 10) == 0xa0000000u && vax_get_reg(m, 11) == 2 &&
                      vax_get_psl(m) == BOOT_PSL && vax_get_ipr(m, IPR_MAPEN) == 0,
                  "kernel entry state");
            static uint8_t img[0x44524];
            vax_phys_read(m, 0, img, sizeof img);
            CHECK(memcmp(img, k + 32, sizeof img) == 0, "kernel text at 0");
            vax_phys_read(m, 0x44800, img, 0x13be8);
            CHECK(memcmp(img, k + 32 + 0x44524, 0x13be8) == 0, "kernel data at 0x44800");
            CHECK((phys32(m, 0x12f8) & 0xFFFF) == 0, "entry mask word 0 at 0x12f8");
            int zero = 1;
            for (uint32_t a = 0x44524; a < 0x44800 && zero; a++) {
                uint8_t c;
                vax_phys_read(m, a, &c, 1);
                zero = c == 0;
            }
            for (uint32_t a = 0x583e8; a < 0x583e8 + 0x187e4 + 65536 && zero; a += 4)
                zero = phys32(m, a) == 0;
            CHECK(zero, "padding and bss (+64 KB) zero");
            CHECK(bi.end == 0x583e8 + 0x187e4 + 65536, "cleared to 0x%x", bi.end);
        }
    }
    vax_destroy(m);
    free(k);
    free(bp);

    /* Damage: a truncated image and a wrong magic. */
    size_t asize = 15884u * 512u;
    uint8_t *part = malloc(asize);
    if (part && file_read(&disk, 0, part, asize) == 0) {
        int rc = try_damaged(part, 100 * 1024, NULL, "/vmunix", err, sizeof err);
        CHECK_ERR(rc, err, "image too small: the file system needs 8132608 bytes");
        printf("first 100 KB only: %s\n", err);
        rc = try_damaged(part, asize, dmg_ref_magic, "/vmunix", err, sizeof err);
        CHECK_ERR(rc, err, "bad superblock magic 0x0 at byte 8192");
        printf("zeroed magic: %s\n", err);
        /* /vmunix's first block pointer past the end of the image. */
        vax_blockdev pd;
        blockdev_memory(&pd, part, asize, 0);
        fs = ffs_open(&pd, 0, err, sizeof err);
        uint64_t where = 0;
        if (fs && ffs_stat_path(fs, "/vmunix", &st, err, sizeof err) == 0 &&
            ffs_inode_location(fs, st.ino, &where, err, sizeof err) == 0) {
            put32(part + where + 40, 200000);
            uint8_t *d = NULL;
            size_t dl = 0;
            int r2 = ffs_read_file(fs, "/vmunix", &d, &dl, err, sizeof err);
            CHECK_ERR(r2, err, "block address 200000 is outside the file system");
            printf("block pointer past the end: %s\n", err);
            free(d);
            vax_machine *m2 = vax_create(&cfg);
            if (m2) {
                r2 = vax_boot(m2, &pd, "RP06", BOOT_DIRECT_KERNEL, 0, 0, "/vmunix", err, sizeof err);
                CHECK_ERR(r2, err, "outside the file system");
                vax_destroy(m2);
            }
            r2 = ffs_read_file(fs, "/no/such/file", &d, &dl, err, sizeof err);
            CHECK_ERR(r2, err, "/no: no such file or directory");
        }
        ffs_close(fs);
    }
    free(part);
    close(f.fd);
}

int main(void)
{
    test_sum();
    test_partitions();
    test_aout();
    uint8_t *img = make_fs();
    if (img) {
        test_synthetic_fs(img);
        test_damaged_fs(img);
        test_fuzz_fs(img);
        test_boot_synthetic(img);
        test_boot_kernel_image(img);
        test_kernelvars(img);
        free(img);
    } else {
        CHECK(0, "out of memory");
    }
    const char *ref = getenv("VAXLAB_REF_IMAGE");
    test_reference(ref && *ref ? ref : "build/images/43bsd-rp06.dsk");
    return check_summary();
}
