/*
 * aout.c — the VAX a.out header and the /boot-style loader (see aout.h).
 */
#include "boot/aout.h"
#include "boot/util.h"
#include "le.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>



const char *aout_magic_name(uint32_t magic)
{
    switch (magic) {
    case AOUT_OMAGIC: return "0407";
    case AOUT_NMAGIC: return "0410";
    case AOUT_ZMAGIC: return "0413";
    default: return "unknown";
    }
}

uint32_t aout_text_offset(const aout_header *h)
{
    return h->magic == AOUT_ZMAGIC ? AOUT_ZMAGIC_TEXT_OFFSET : AOUT_HEADER_SIZE;
}

int aout_parse(const uint8_t *file, size_t len, aout_header *h, char *err, size_t errlen)
{
    memset(h, 0, sizeof *h);
    if (!file || len < AOUT_HEADER_SIZE) {
        boot_seterr(err, errlen, "not a VAX a.out file: only %zu bytes (the header is %u)", len,
               AOUT_HEADER_SIZE);
        return -1;
    }
    h->magic = le32_get(file + 0);
    h->text = le32_get(file + 4);
    h->data = le32_get(file + 8);
    h->bss = le32_get(file + 12);
    h->syms = le32_get(file + 16);
    h->entry = le32_get(file + 20);
    h->trsize = le32_get(file + 24);
    h->drsize = le32_get(file + 28);
    if (h->magic != AOUT_OMAGIC && h->magic != AOUT_NMAGIC && h->magic != AOUT_ZMAGIC) {
        boot_seterr(err, errlen, "not a VAX a.out file: bad magic 0%o (expected 0407, 0410 or 0413)",
               h->magic);
        return -1;
    }
    uint64_t need = (uint64_t)aout_text_offset(h) + h->text + h->data;
    if (need > len) {
        boot_seterr(err, errlen,
               "truncated a.out (%s): text %u + data %u bytes from byte %u need %llu bytes, the "
               "file has %zu",
               aout_magic_name(h->magic), h->text, h->data, aout_text_offset(h),
               (unsigned long long)need, len);
        return -1;
    }
    return 0;
}

int aout_load(vax_machine *m, const uint8_t *file, size_t len, const aout_header *h,
              uint32_t load_addr, uint32_t bss_slop, aout_layout *lay, char *err, size_t errlen)
{
    memset(lay, 0, sizeof *lay);
    uint64_t mem = vax_memory_bytes(m);
    uint64_t toff = aout_text_offset(h);
    if (toff + (uint64_t)h->text + h->data > len) {
        boot_seterr(err, errlen, "truncated a.out");
        return -1;
    }
    uint64_t text_addr = load_addr;
    uint64_t text_end = text_addr + h->text;
    uint64_t data_addr = text_end;
    if (h->magic == AOUT_NMAGIC || h->magic == AOUT_ZMAGIC)
        data_addr = (text_end + AOUT_DATA_ALIGN - 1) & ~(uint64_t)(AOUT_DATA_ALIGN - 1);
    uint64_t bss_addr = data_addr + h->data;
    uint64_t bss_end = bss_addr + h->bss;
    if (bss_end > mem) {
        boot_seterr(err, errlen,
               "a.out too large for memory: text %u, data %u and bss %u bytes loaded at 0x%x end "
               "at 0x%llx, memory is %llu bytes",
               h->text, h->data, h->bss, load_addr, (unsigned long long)bss_end,
               (unsigned long long)mem);
        return -1;
    }
    uint64_t clear_end = bss_end + bss_slop;
    if (clear_end > mem)
        clear_end = mem;

    if (vax_phys_write(m, (uint32_t)text_addr, file + toff, h->text) != 0 ||
        vax_phys_write(m, (uint32_t)data_addr, file + toff + h->text, h->data) != 0) {
        boot_seterr(err, errlen, "a.out does not fit in memory");
        return -1;
    }
    /* Zeros between text and data (0410/0413) and over bss + slop, in
     * pieces from a small buffer. */
    static const uint8_t zeros[4096];
    uint64_t ranges[2][2] = { { text_end, data_addr }, { bss_addr, clear_end } };
    for (int r = 0; r < 2; r++) {
        for (uint64_t a = ranges[r][0]; a < ranges[r][1];) {
            uint64_t n = ranges[r][1] - a;
            if (n > sizeof zeros)
                n = sizeof zeros;
            if (vax_phys_write(m, (uint32_t)a, zeros, (size_t)n) != 0) {
                boot_seterr(err, errlen, "a.out does not fit in memory");
                return -1;
            }
            a += n;
        }
    }
    lay->text_addr = (uint32_t)text_addr;
    lay->text_size = h->text;
    lay->data_addr = (uint32_t)data_addr;
    lay->data_size = h->data;
    lay->bss_addr = (uint32_t)bss_addr;
    lay->bss_size = (uint32_t)(clear_end - bss_addr);
    lay->end = (uint32_t)clear_end;
    lay->entry = h->entry & 0x7fffffffu;
    return 0;
}

int aout_check_symbols(const uint8_t *file, size_t len, const aout_header *h, char *err, size_t errlen)
{
    uint64_t symoff = (uint64_t)aout_text_offset(h) + h->text + h->data + h->trsize + h->drsize;
    uint64_t stroff = symoff + h->syms;
    if (h->syms == 0)
        return 0;   /* stripped: no symbols to look for */
    if (h->syms % 12 != 0) {
        boot_seterr(err, errlen, "symbol table of %u bytes is not a whole number of 12-byte entries", h->syms);
        return -1;
    }
    if (stroff + 4 > len) {
        boot_seterr(err, errlen,
                    "symbol table (%u bytes from byte %llu, after %u + %u bytes of relocation) and string table "
                    "run past the end of the file (%zu bytes)",
                    h->syms, (unsigned long long)symoff, h->trsize, h->drsize, len);
        return -1;
    }
    uint64_t strsize = le32_get(file + stroff);
    if (strsize < 4 || stroff + strsize > len) {
        boot_seterr(err, errlen, "string table size %llu at byte %llu does not fit the file (%zu bytes)",
                    (unsigned long long)strsize, (unsigned long long)stroff, len);
        return -1;
    }
    /* Every name (n_strx, 0 for none) must lie inside the string table. */
    for (uint64_t p = symoff; p + 12 <= stroff; p += 12) {
        uint32_t strx = le32_get(file + p);
        if (strx != 0 && (strx < 4 || strx >= strsize)) {
            boot_seterr(err, errlen, "symbol %llu names string %u, outside the string table (%llu bytes)",
                        (unsigned long long)((p - symoff) / 12), strx, (unsigned long long)strsize);
            return -1;
        }
    }
    return 0;
}

int aout_find_symbol(const uint8_t *file, size_t len, const aout_header *h, const char *name, uint32_t *value)
{
    /* The symbol table follows text, data and the relocation entries; the
     * string table (a longword size, then the strings) follows it.  Each
     * entry (struct nlist) is n_strx(4) n_type(1) n_other(1) n_desc(2)
     * n_value(4). */
    if (h->syms == 0 || aout_check_symbols(file, len, h, NULL, 0) != 0)
        return -1;
    uint64_t symoff = (uint64_t)aout_text_offset(h) + h->text + h->data + h->trsize + h->drsize;
    uint64_t stroff = symoff + h->syms;
    uint64_t strsize = le32_get(file + stroff);
    size_t namelen = strlen(name);
    for (uint64_t p = symoff; p + 12 <= stroff; p += 12) {
        uint32_t strx = le32_get(file + p);
        if (strx < 4 || strx >= strsize || strsize - strx <= namelen)
            continue;
        const char *s = (const char *)file + stroff + strx;
        if (memcmp(s, name, namelen) == 0 && s[namelen] == 0) {
            *value = le32_get(file + p + 8);
            return 0;
        }
    }
    return -1;
}

int aout_for_each_symbol(const uint8_t *file, size_t len, const aout_header *h,
                         void (*each)(void *ctx, const char *name, uint8_t type, uint32_t value), void *ctx)
{
    if (h->syms == 0)
        return 0;
    uint64_t symoff = (uint64_t)aout_text_offset(h) + h->text + h->data + h->trsize + h->drsize;
    uint64_t stroff = symoff + h->syms;
    if (stroff + 4 > len || h->syms % 12 != 0)
        return -1;
    uint64_t strsize = le32_get(file + stroff);
    if (strsize < 4 || stroff + strsize > len)
        return -1;
    int n = 0;
    for (uint64_t p = symoff; p + 12 <= stroff; p += 12, n++) {
        uint32_t strx = le32_get(file + p);
        if (strx < 4 || strx >= strsize)
            continue;
        const char *s = (const char *)file + stroff + strx;
        if (!memchr(s, 0, strsize - strx))   /* the name must end inside the table */
            continue;
        each(ctx, s, file[p + 4], le32_get(file + p + 8));
    }
    return n;
}
