/*
 * sbi.h — the VAX-11/780's Synchronous Backplane Interconnect as the
 * software sees it: sixteen nexus slots (transfer-request numbers, TR),
 * each with 8 KB of registers in I/O space, interrupting at IPL 0x14-0x17
 * through SCB vectors fixed by its TR; and the UNIBUS adapters' windows
 * onto the UNIBUS address space.
 *
 * Addresses and vector layout: VAX-11/780 Hardware Handbook; 4.3BSD's
 * /sys/vax/nexus.h and autoconf.c show what the kernel relies on.
 */
#ifndef VAX_SBI_H
#define VAX_SBI_H

#include <stdint.h>

#include "bus/bus.h"

typedef struct vax_machine vax_machine;

#define SBI_NEXUS_BASE 0x20000000u
#define SBI_NEXUS_SIZE 0x2000u
#define SBI_NEXUS_COUNT 16

/* The first word of a nexus's register space is its configuration and
 * status register; its low byte is the adapter type (NEX_* in nexus.h). */
enum {
    NEX_MEM4 = 0x08, NEX_MEM16 = 0x10, NEX_MBA = 0x20, NEX_UBA0 = 0x28, NEX_MEM64I = 0x6C
};

/* UNIBUS adapter n's window onto the 18-bit UNIBUS address space. */
#define UBA_SPACE_BASE(n) (0x20100000u + (uint32_t)(n) * 0x40000u)
#define UBA_SPACE_SIZE 0x40000u

/* SCB offset of the interrupt of the nexus at TR tr requesting at ipl
 * (0x14..0x17): four pages of 16 vectors, one page per level. */
static inline uint32_t sbi_vector(int tr, int ipl)
{
    return 0x100u + (uint32_t)(ipl - 0x14) * 0x40u + (uint32_t)tr * 4u;
}

static inline uint32_t sbi_nexus_address(int tr)
{
    return SBI_NEXUS_BASE + (uint32_t)tr * SBI_NEXUS_SIZE;
}

/* Interrupts from a nexus use its TR as the interrupt source number, so
 * equal-IPL requests are granted lowest TR first, as on the SBI:
 *   machine_irq_raise(m, ipl, tr, sbi_vector(tr, ipl)). */

#endif
