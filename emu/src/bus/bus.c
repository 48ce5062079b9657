/*
 * bus.c — physical address decoding: RAM, registered I/O regions, and the
 * machine check for a reference to nothing (nonexistent memory).
 */
#include "bus/bus.h"

#include "le.h"
#include "machine.h"

int bus_add_region(vax_machine *m, uint32_t base, uint32_t size, void *dev, io_read_fn rd, io_write_fn wr)
{
    vax_bus *b = &m->bus;
    if (b->nregions >= BUS_MAX_REGIONS || base < b->mem_size || size == 0)
        return -1;
    b->regions[b->nregions++] = (io_region){base, size, dev, rd, wr};
    return 0;
}

static const io_region *find_region(const vax_bus *b, uint32_t pa)
{
    for (int i = 0; i < b->nregions; i++)
        if (pa - b->regions[i].base < b->regions[i].size)
            return &b->regions[i];
    return NULL;
}

static int nonexistent(vax_machine *m, uint32_t pa)
{
    m->cpu.mchk_summary = 0;
    m->cpu.mchk_address = pa;
    return VAX_EXC_MACHINE_CHECK;
}

int bus_read(vax_machine *m, uint32_t pa, int size, uint32_t *value)
{
    pa &= PA_MASK;
    if (pa < m->bus.mem_size && m->bus.mem_size - pa >= (uint32_t)size) {
        *value = load_le(m->bus.mem + pa, size);
        return 0;
    }
    m->stats.io_read++;
    const io_region *r = find_region(&m->bus, pa);
    if (!r || !r->read)
        return nonexistent(m, pa);
    return r->read(r->dev, m, pa, size, value);
}

int bus_write(vax_machine *m, uint32_t pa, int size, uint32_t value)
{
    pa &= PA_MASK;
    if (pa < m->bus.mem_size && m->bus.mem_size - pa >= (uint32_t)size) {
        store_le(m->bus.mem + pa, size, value);
        return 0;
    }
    m->stats.io_write++;
    const io_region *r = find_region(&m->bus, pa);
    if (!r || !r->write)
        return nonexistent(m, pa);
    return r->write(r->dev, m, pa, size, value);
}
