/*
 * standalone.c — standalone programs from a distribution tape or a host
 * file (see standalone.h).
 */
#include "boot/standalone.h"
#include "boot/util.h"

#include <stdlib.h>
#include <string.h>

#include "boot/aout.h"
#include "storage/tapeimage.h"
#include "le.h"

int standalone_tape_file(const vax_blockdev *tape, unsigned fileno, uint8_t **data, size_t *len, char *err,
                         size_t errlen)
{
    *data = NULL;
    *len = 0;
    if (!tape || !tape->read) {
        boot_seterr(err, errlen, "no tape");
        return -1;
    }
    tape_image t;
    tape_open(&t, tape);
    tape_record rec;
    unsigned file = 0;
    uint8_t *buf = NULL;
    size_t used = 0, cap = 0;
    for (;;) {
        tape_status st = tape_forward(&t, &rec);
        if (st == TAPE_MARK) {
            if (file == fileno)
                break;
            file++;
            continue;
        }
        if (st == TAPE_EOM && file == fileno && used > 0)
            break;   /* the last file, without its tape mark */
        if (st != TAPE_OK) {
            free(buf);
            if (st == TAPE_EOM)
                boot_seterr(err, errlen, "the tape has no file %u (it ends after %u)", fileno, file);
            else
                boot_seterr(err, errlen, "tape file %u: %s at byte %llu of the image", file,
                            tape_status_name(st), (unsigned long long)t.pos);
            return -1;
        }
        if (file != fileno)
            continue;
        if (rec.bad) {
            free(buf);
            boot_seterr(err, errlen, "tape file %u: a record marked bad at byte %llu of the image", file,
                        (unsigned long long)rec.data_offset);
            return -1;
        }
        if (used + rec.length > cap) {
            size_t ncap = cap ? cap : 65536;
            while (ncap < used + rec.length)
                ncap *= 2;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                boot_seterr(err, errlen, "out of host memory");
                return -1;
            }
            buf = nb;
            cap = ncap;
        }
        if (tape_read_data(&t, &rec, 0, buf + used, rec.length) != 0) {
            free(buf);
            boot_seterr(err, errlen, "tape file %u: cannot read the image", file);
            return -1;
        }
        used += rec.length;
    }
    if (used == 0) {
        free(buf);
        boot_seterr(err, errlen, "tape file %u is empty", fileno);
        return -1;
    }
    *data = buf;
    *len = used;
    return 0;
}

int standalone_from_tape(const vax_blockdev *tape, const char *name, uint8_t **prog, size_t *len,
                         tp_entry *e, char *err, size_t errlen)
{
    *prog = NULL;
    *len = 0;
    uint8_t *file;
    size_t flen;
    char why[320];
    if (standalone_tape_file(tape, 0, &file, &flen, why, sizeof why) != 0) {
        boot_seterr(err, errlen, "%s", why);
        return -1;
    }
    tp_archive a;
    tp_entry ent;
    const uint8_t *data;
    if (tp_open(&a, file, flen, why, sizeof why) != 0 || tp_find(&a, name, &ent, &data, why, sizeof why) != 0) {
        free(file);
        boot_seterr(err, errlen, "the tape's first file: %s", why);
        return -1;
    }
    uint8_t *p = malloc(ent.size ? ent.size : 1);
    if (!p) {
        free(file);
        boot_seterr(err, errlen, "out of host memory");
        return -1;
    }
    memcpy(p, data, ent.size);
    free(file);
    *prog = p;
    *len = ent.size;
    if (e)
        *e = ent;
    return 0;
}

int vax_boot_standalone(vax_machine *m, const uint8_t *prog, size_t len, uint32_t r10, uint32_t r11,
                        vax_boot_info *info, char *err, size_t errlen)
{
    if (info)
        memset(info, 0, sizeof *info);
    if (!m || !prog || len < 2) {
        boot_seterr(err, errlen, "no machine or no program");
        return -1;
    }
    uint32_t mem = vax_memory_bytes(m);
    if (mem < 2 * 512u) {
        boot_seterr(err, errlen, "memory too small");
        return -1;
    }
    uint32_t top = mem & ~511u;   /* the frame's page is the last one */
    uint32_t page = top - 512u;
    aout_header h;
    char why[320];
    uint32_t end;
    uint32_t magic = len >= 4 ? le32_get(prog) : 0;
    if (magic == AOUT_OMAGIC || magic == AOUT_NMAGIC || magic == AOUT_ZMAGIC) {
        aout_layout lay;
        if (aout_parse(prog, len, &h, why, sizeof why) != 0 ||
            aout_load(m, prog, len, &h, 0, 0, &lay, why, sizeof why) != 0) {
            boot_seterr(err, errlen, "%s", why);
            return -1;
        }
        end = lay.end;
    } else {
        memset(&h, 0, sizeof h);
        if (len > page) {
            boot_seterr(err, errlen, "a %zu-byte program does not fit below the last page of memory", len);
            return -1;
        }
        if (vax_phys_write(m, 0, prog, len) != 0) {
            boot_seterr(err, errlen, "the program does not fit in memory");
            return -1;
        }
        end = (uint32_t)len;
    }
    if (end > page) {
        boot_seterr(err, errlen, "the program (to 0x%x) leaves no page of memory for its stack", end);
        return -1;
    }
    /* The entry mask: CALLS reads it at 0 and starts at 2. */
    uint32_t mask = (uint32_t)prog[0] | (uint32_t)prog[1] << 8;
    if (magic == AOUT_OMAGIC || magic == AOUT_NMAGIC || magic == AOUT_ZMAGIC) {
        uint8_t mw[2];
        if ((h.entry & 0x7fffffffu) != 0 || vax_phys_read(m, 0, mw, 2) != 0) {
            boot_seterr(err, errlen, "a standalone program must start at 0 (its a_entry is 0x%x)", h.entry);
            return -1;
        }
        mask = (uint32_t)mw[0] | (uint32_t)mw[1] << 8;
    }
    if (mask & 0x3000u) {
        boot_seterr(err, errlen, "bad entry mask 0x%04x at 0 (bits 13:12 must be zero)", mask);
        return -1;
    }
    static const uint8_t zeros[512];
    (void)vax_phys_write(m, page, zeros, sizeof zeros);

    vax_boot_init_processor(m);
    uint32_t r[12] = { 0 };
    r[10] = r10;
    r[11] = r11;
    boot_enter_with_calls(m, top, 0, mask, r);   /* CALLS $0,0, as tsboot does it */
    if (info) {
        info->magic = h.magic;
        info->text = h.text;
        info->data = h.data;
        info->bss = h.bss;
        info->entry = 0;
        info->pc = 2;
        info->end = end;
    }
    return 0;
}

int vax_boot_tape_block(vax_machine *m, const vax_blockdev *tape, char *err, size_t errlen)
{
    if (!m || !tape || !tape->read) {
        boot_seterr(err, errlen, "no machine or no tape");
        return -1;
    }
    tape_image t;
    tape_open(&t, tape);
    tape_record rec;
    tape_status st = tape_forward(&t, &rec);
    if (st != TAPE_OK) {
        boot_seterr(err, errlen, "the tape's first record: %s", st == TAPE_MARK ? "a tape mark" : tape_status_name(st));
        return -1;
    }
    uint8_t block[512];
    if (rec.length != sizeof block || tape_read_data(&t, &rec, 0, block, sizeof block) != 0) {
        boot_seterr(err, errlen, "the tape's first record is %u bytes, not a 512-byte boot block", rec.length);
        return -1;
    }
    if (vax_phys_write(m, 0, block, sizeof block) != 0) {
        boot_seterr(err, errlen, "memory too small");
        return -1;
    }
    vax_boot_init_processor(m);
    vax_set_reg(m, 10, TSBOOT_R10_UBA0);
    vax_set_reg(m, 11, TSBOOT_R11_TSCSR);
    vax_set_reg(m, 14, vax_memory_bytes(m) & ~3u);   /* tsboot sets its own */
    vax_set_reg(m, 15, 0);
    vax_set_psl(m, BOOT_PSL);
    return 0;
}

int vax_console_load(vax_machine *m, uint32_t addr, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    uint32_t mem = vax_memory_bytes(m);
    if (len == 0) {
        boot_seterr(err, errlen, "nothing to load (0 bytes)");
        return -1;
    }
    if (addr >= mem || len > mem - addr) {
        boot_seterr(err, errlen, "%zu bytes at 0x%x do not fit in memory (0x%x bytes: physical 0 to 0x%x)", len,
                    addr, mem, mem - 1);
        return -1;
    }
    return vax_phys_write(m, addr, data, len) == 0 ? 0 : -1;
}

int vax_console_start(vax_machine *m, uint32_t start, char *err, size_t errlen)
{
    uint32_t mem = vax_memory_bytes(m);
    if (start >= mem) {
        boot_seterr(err, errlen, "start address 0x%x is outside memory (0x%x bytes: physical 0 to 0x%x)", start,
                    mem, mem - 1);
        return -1;
    }
    vax_boot_init_processor(m);
    vax_set_reg(m, 14, mem & ~3u);
    vax_set_reg(m, 15, start);
    vax_set_psl(m, BOOT_PSL);   /* also drops the fetch shortcut */
    return 0;
}
