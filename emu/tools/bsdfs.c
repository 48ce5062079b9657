/*
 * bsdfs — look inside a 4.3BSD disk image from the host, with the same
 * file-system reader the boot code uses.  Tests use it to compute on the
 * host what the guest should print (e.g. `sum /vmunix`).
 *
 *   bsdfs IMAGE ls PATH        list a directory
 *   bsdfs IMAGE cat PATH       copy a file to stdout
 *   bsdfs IMAGE sum PATH       4.3BSD /bin/sum's output line for a file
 *   bsdfs IMAGE stat PATH      inode, mode, size, uid, gid, mtime
 * Partition a (offset 0) of the image is read, or with -p LETTER that
 * partition of an RP06 pack (e.g. -p g for /usr; src/boot/partitions.c).
 * Exit status: 0 done, 1 the path could not be read (a damaged file system
 * or a missing file, with the reason on stderr), 2 usage, 3 the image or
 * its superblock is unusable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/ffs.h"
#include "boot/partitions.h"
#include "storage/blockdev_file.h"

static void print_name(void *ctx, const char *name, uint32_t ino)
{
    (void)ctx;
    printf("%u\t%s\n", ino, name);
}

/* Why an image that is not a file system may be one packed: the lab's images are shipped gzipped (.dsk.gz) and
 * chunked (.dskz), and this reads only the raw pack.  NULL when the file starts as neither. */
static const char *packed_kind(const char *path)
{
    unsigned char head[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return "gzip-compressed (gunzip -k it: bsdfs reads the raw pack)";
    if (n == 8 && !memcmp(head, "VAXDSKZ", 8))
        return "a chunked image (.dskz; bsdfs reads the raw pack: gunzip -k the .dsk.gz beside it)";
    return NULL;
}

static const char usage_text[] = "usage: bsdfs [-p LETTER] IMAGE ls|cat|sum|stat PATH\n";

int main(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage_text, stdout);
        return 0;
    }
    uint64_t part_off = 0;
    if (argc == 6 && !strcmp(argv[1], "-p")) {
        const char *letter = argv[2];
        uint64_t part_len;
        if (letter[0] < 'a' || letter[0] > 'h' || letter[1] ||
            bsd_partition_range(bsd_disktype_find("RP06"), letter[0] - 'a', &part_off, &part_len) != 0) {
            fprintf(stderr, "bsdfs: -p takes a partition letter of an RP06 pack (a-g, not %s)\n", letter);
            return 2;
        }
        argv += 2;
        argc -= 2;
    }
    if (argc != 4) {
        fputs(usage_text, stderr);
        return 2;
    }
    /* Only the blocks the command needs are read from the file. */
    blockdev_file img;
    char err[320];
    if (blockdev_file_open(&img, argv[1], 1, err, sizeof err) < 0) {
        fprintf(stderr, "bsdfs: %s\n", err);
        return 3;
    }
    ffs_fs *fs = ffs_open(&img.bd, part_off, err, sizeof err);
    if (!fs) {
        const char *packed = packed_kind(argv[1]);
        if (packed)
            fprintf(stderr, "bsdfs: %s: %s\n", argv[1], packed);
        else
            fprintf(stderr, "bsdfs: %s: %s\n", argv[1], err);
        blockdev_file_close(&img);
        return 3;
    }
    int rc = 0;
    const char *cmd = argv[2], *path = argv[3];
    if (!strcmp(cmd, "ls")) {
        rc = ffs_list_dir(fs, path, print_name, NULL, err, sizeof err);
    } else if (!strcmp(cmd, "stat")) {
        ffs_stat st;
        rc = ffs_stat_path(fs, path, &st, err, sizeof err);
        if (rc == 0)
            printf("ino %u mode %o nlink %u uid %u gid %u size %llu mtime %d\n", st.ino, st.mode, st.nlink, st.uid,
                   st.gid, (unsigned long long)st.size, st.mtime);
    } else if (!strcmp(cmd, "cat") || !strcmp(cmd, "sum")) {
        uint8_t *data;
        size_t len;
        rc = ffs_read_file(fs, path, &data, &len, err, sizeof err);
        if (rc == 0) {
            if (!strcmp(cmd, "cat")) {
                fwrite(data, 1, len, stdout);
            } else {
                char line[64];
                ffs_bsd_sum_line(data, len, line, sizeof line);
                printf("%s\n", line);
            }
            free(data);
        }
    } else {
        fprintf(stderr, "bsdfs: unknown command %s\n", cmd);
        rc = -2;
    }
    if (rc == -1) {
        /* The path once: most reasons name it already ("/x: no such file or directory"); an inode's do not. */
        size_t n = strlen(path);
        if (!strncmp(err, path, n) && err[n] == ':')
            fprintf(stderr, "bsdfs: %s\n", err);
        else
            fprintf(stderr, "bsdfs: %s: %s\n", path, err);
    }
    ffs_close(fs);
    blockdev_file_close(&img);
    return rc == 0 ? 0 : rc == -2 ? 2 : 1;
}
