/*
 * bus.h — physical address space: main memory and I/O regions.
 *
 * The 780's physical space is 30 bits: memory below 0x20000000, I/O
 * (SBI nexus registers, UNIBUS and MASSBUS adapter space) above.  A
 * reference to nothing raises a machine check, as on the real machine.
 */
#ifndef VAX_BUS_H
#define VAX_BUS_H

#include <stdint.h>

typedef struct vax_machine vax_machine;

#define PA_MASK 0x3FFFFFFFu
#define IO_SPACE_BASE 0x20000000u

/* An I/O region handler: returns VAX_OK or VAX_EXC_MACHINE_CHECK. size is
 * 1, 2 or 4; pa is the full physical address. */
typedef int (*io_read_fn)(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t *value);
typedef int (*io_write_fn)(void *dev, vax_machine *m, uint32_t pa, int size, uint32_t value);

typedef struct {
    uint32_t base, size;
    void *dev;
    io_read_fn read;
    io_write_fn write;
} io_region;

#define BUS_MAX_REGIONS 32

typedef struct {
    uint8_t *mem;
    uint32_t mem_size;
    int nregions;
    io_region regions[BUS_MAX_REGIONS];
} vax_bus;

/* Register an I/O region; -1 if the table is full or it overlaps memory. */
int bus_add_region(vax_machine *m, uint32_t base, uint32_t size, void *dev, io_read_fn rd,
                   io_write_fn wr);

/* Physical access for anything not in RAM, and the general entry points.
 * Values are zero-extended; size is 1, 2 or 4. */
int bus_read(vax_machine *m, uint32_t pa, int size, uint32_t *value);
int bus_write(vax_machine *m, uint32_t pa, int size, uint32_t value);

#endif
