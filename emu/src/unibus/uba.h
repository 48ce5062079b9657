/*
 * uba.h — the VAX-11/780 UNIBUS adapter (DW780, "UBA").
 *
 * The adapter is an SBI nexus: 8 KB of registers at sbi_nexus_address(tr)
 * (configuration, control, status, diagnostic, failed map entry / failed
 * UNIBUS address, BR receive vector registers, data path registers and
 * the 496 map registers at offset 0x800), and a 256 KB window onto the
 * 18-bit UNIBUS address space at UBA_SPACE_BASE(number).
 *
 * UNIBUS devices register their CSR range here and are called for CPU
 * references through the window; they request interrupts per BR level and
 * move data through the map with uba_dma_read/uba_dma_write.
 *
 * What 4.3BSD relies on (vax/locore.s, vax/autoconf.c, vaxuba/uba.c):
 *   - the SCB vectors of the UBA's TR at IPL 0x14..0x17 lead to code that
 *     reads BRRVR[ipl - 0x14]: the vector of the requesting device (which
 *     that read acknowledges), 0 if none ("zero vector"), bit 31 (AIRI) set
 *     if the adapter itself requests (an error interrupt);
 *   - a CPU reference to a UNIBUS address where nothing answers does NOT
 *     machine-check on a 780: the read returns 0, the status register gets
 *     UBSTO (UNIBUS select timeout) and the failed UNIBUS address register
 *     the address; autoconf's probes test uba_sr after badaddr() and after
 *     each probe routine (tm.c's probe says as much);
 *   - writing ADINIT to the control register initialises the adapter and
 *     the UNIBUS; ubainit() then waits for UBIC in the configuration
 *     register (here init completes at once).
 *
 * Lifetime: a UBA and the devices created on it (dz11_create, ts11_create)
 * are freed together by uba_destroy(), which must come before
 * vax_destroy() of the machine (the machine's bus keeps pointing at the
 * adapter; there is no way to unregister a bus region).
 */
#ifndef VAX_UNIBUS_UBA_H
#define VAX_UNIBUS_UBA_H

#include <stdint.h>

#include "machine.h"
#include "bus/sbi.h"

typedef struct uba uba;

/* Register offsets in the nexus space (struct uba_regs in ubareg.h). */
enum {
    UBA_CNFGR = 0x00, UBA_CR = 0x04, UBA_SR = 0x08, UBA_DCR = 0x0C, UBA_FMER = 0x10,
    UBA_FUBAR = 0x14, UBA_BRSVR = 0x20, UBA_BRRVR = 0x30, UBA_DPR = 0x40, UBA_MAP = 0x800
};
#define UBA_NMAP 496            /* map registers (UNIBUS pages 0..495) */
#define UBA_NDPR 16             /* data paths: 0 = direct, 1..15 buffered */

/* Configuration register. */
#define UBACNFGR_UBIC 0x00010000u    /* UNIBUS init complete */
#define UBACNFGR_UBPDN 0x00020000u   /* UNIBUS power down */
#define UBACNFGR_UBINIT 0x00040000u  /* UNIBUS init asserted */
#define UBACNFGR_ADPUP 0x00400000u   /* adapter power up */
#define UBACNFGR_ADPDN 0x00800000u   /* adapter power down */
/* Control register. */
#define UBACR_ADINIT 0x00000001u
#define UBACR_UPF 0x00000002u
#define UBACR_CNFIE 0x00000004u
#define UBACR_SUEFIE 0x00000008u     /* SBI-to-UNIBUS error interrupt enable */
#define UBACR_USEFIE 0x00000010u     /* UNIBUS-to-SBI error interrupt enable */
#define UBACR_BRIE 0x00000020u       /* BR (device) interrupt enable */
#define UBACR_IFS 0x00000040u        /* interrupt field switch */
#define UBACR_MRD 0x7C000000u        /* map register disable (8 KB units) */
/* Status register (error bits are write-1-to-clear). */
#define UBASR_UBSSYNTO 0x00000001u
#define UBASR_UBSTO 0x00000002u      /* UNIBUS select timeout (CPU reference) */
#define UBASR_LEB 0x00000004u        /* lost error bit */
#define UBASR_MRPF 0x00000008u
#define UBASR_IVMR 0x00000010u       /* invalid map register (DMA) */
#define UBASR_DPPE 0x00000020u
#define UBASR_CXTMO 0x00000040u      /* command transmit timeout (DMA to NXM) */
#define UBASR_CXTER 0x00000080u
#define UBASR_CRD 0x00000100u
#define UBASR_RDS 0x00000200u
#define UBASR_RDTO 0x00000400u
/* BR receive vector register. */
#define UBABRRVR_AIRI 0x80000000u
/* Map register. */
#define UBAMR_MRV 0x80000000u
#define UBAMR_BO 0x02000000u
#define UBAMR_DPDB 0x01E00000u
#define UBAMR_DPSHIFT 21
#define UBAMR_PFN 0x000FFFFFu

/* The level at which the adapter's own (error) interrupts are requested:
 * BR5 (IPL 0x15).  4.3BSD accepts AIRI at any of the four levels. */
#define UBA_ADAPTER_BR 5

uba *uba_create(vax_machine *m, int tr, int number);
void uba_destroy(uba *u);
/* Console INIT / UNIBUS INIT: adapter registers to their initial state
 * (the map registers keep their contents), every device reset, every
 * interrupt request withdrawn. */
void uba_reset(uba *u);

/* A UNIBUS device answering at UNIBUS addresses [csr, csr + bytes).
 * read: always a whole word (size 2, even offset): the UNIBUS has only word
 * reads (DATI); the adapter picks the byte the CPU asked for.
 * write: size 2 at an even offset (DATO) or size 1 at any offset (DATOB).
 * Both return 0, or -1 for "no response" (the adapter then reports a
 * select timeout as for an empty address).  reset: UNIBUS INIT (may be
 * NULL).  Returns 0, or -1 if the table is full or the range overlaps. */
int uba_add_device(uba *u, uint32_t csr, uint32_t bytes, void *dev,
                   int (*read)(void *dev, uint32_t offset, int size, uint32_t *value),
                   int (*write)(void *dev, uint32_t offset, int size, uint32_t value),
                   void (*reset)(void *dev));

/* Hand the adapter an object to free (and its events to cancel) in
 * uba_destroy: used by the device modules' *_create functions. */
int uba_own(uba *u, void *obj, void (*destroy)(void *obj));
void uba_disown(uba *u, void *obj);

/* Request (on = 1) or withdraw (on = 0) a device interrupt at BR br (4..7)
 * with the given vector.  A request stays until the CPU's read of BRRVR
 * grants it or the device withdraws it.  Among requests at one level, the
 * vector first seen (the device nearer the adapter) wins; a device fixes
 * the order of its own vectors by withdrawing them once at creation. */
void uba_interrupt(uba *u, int br, uint16_t vector, int on);

/* DMA between a UNIBUS device and VAX memory through the map: uba_dma_read
 * reads memory (the device receives bytes), uba_dma_write writes memory.
 * Returns 0, or -1 if a map register is invalid (IVMR, FMER set), memory
 * does not exist (CXTMO, FMER set), the address is in the I/O page (which
 * has no map registers) or below the map-disable limit; the bytes before
 * the failing page have been moved. */
int uba_dma_read(uba *u, uint32_t unibus_addr, void *buf, uint32_t len);
int uba_dma_write(uba *u, uint32_t unibus_addr, const void *buf, uint32_t len);

vax_machine *uba_machine(const uba *u);

/* The adapter's registers, map and interrupt requests in a snapshot
 * (snapshot/snap.h); its devices are visited by the system (vax780.c). */
struct vax_snap;
void uba_snap(uba *u, struct vax_snap *s);

#endif
