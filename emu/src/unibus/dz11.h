/*
 * dz11.h — the DZ11 8-line asynchronous terminal multiplexer.
 *
 * Registers (UNIBUS, from the CSR address; as vaxuba/dz.c and dzreg.h use
 * them):
 *   +0 CSR   MAINT(3) CLR(4) MSE(5) RIE(6) RDONE(7,ro) TLINE(10:8,ro)
 *            SAE(12) SA(13,ro) TIE(14) TRDY(15,ro); bits 0-2 and 11 (the
 *            DZ32's) read 0, which is how dz.c tells a DZ11.
 *   +2 read  RBUF: DATA VALID(15) OVERRUN(14) FE(13) PE(12) LINE(10:8)
 *            CHAR(7:0) — the oldest character of the 64-character silo.
 *      write LPR: LINE(2:0) LENGTH(4:3) STOP(5) PARITY(6) ODD(7)
 *            SPEED(11:8) RX ENABLE(12).
 *   +4       TCR: line enable (7:0), DTR (15:8); byte-addressable.
 *   +6 read  MSR: ring (7:0, always 0), carrier (15:8).
 *      write TDR: transmit data (7:0) for line TLINE, break bits (15:8).
 *
 * Behaviour:
 *   - The transmitter scanner (running while MSE) stops at the next line,
 *     round robin, that is enabled in TCR and has an empty transmit buffer:
 *     TRDY, TLINE = that line.  Writing TDR loads that line; the character
 *     leaves after one character time at the line's programmed speed
 *     (start + data + parity + stop bits); then the output callback gets
 *     it (masked to the character length) and the line is ready again.
 *   - Characters given to dz11_input() wait in a per-line queue on the host
 *     side and arrive one character time apart at the line's speed (9600
 *     baud if the line's receiver is off).  An arriving character enters
 *     the silo if MSE and the line's receiver are on (else it is lost, as
 *     on the wire).  A full silo loses the character and the line's next
 *     character that gets in carries OVERRUN.  RDONE: silo not empty.
 *   - The silo alarm counts characters entering the silo; SA sets at 16
 *     while SAE is set; reading RBUF clears the count and SA.
 *   - Interrupts, BR5: receive at `vector` when RIE and (SAE ? SA : RDONE)
 *     becomes true; transmit at vector+4 when TIE and TRDY becomes true.
 *     A request is withdrawn when its condition goes false before the
 *     grant (so dzrint()'s clear-and-set of RIE re-arms it).
 *   - MAINT loops each line's transmitter back to its own receiver.
 *   - Carrier (MSR high byte) follows the line's DTR: a directly wired
 *     terminal that is there as soon as the host raises DTR.
 *   - CLR and UNIBUS INIT clear the CSR, the silo, the LPRs, the line
 *     enables and break bits and any character being sent; UNIBUS INIT also
 *     drops DTR.  The host-side input queues are kept.
 */
#ifndef VAX_UNIBUS_DZ11_H
#define VAX_UNIBUS_DZ11_H

#include <stdint.h>

#include "unibus/uba.h"

typedef struct dz11 dz11;

/* A DZ11 at UNIBUS address csr (e.g. 0760100), receive vector `vector`,
 * transmit vector vector+4, BR5.  Freed by uba_destroy. */
dz11 *dz11_create(uba *u, uint32_t csr, uint16_t vector);

/* A character arriving on a line (0..7), queued behind those not yet
 * arrived.  Up to DZ11_INPUT_QUEUE characters may wait per line; more
 * are dropped (as a terminal typing into a hung line would lose them). */
#define DZ11_INPUT_QUEUE 65536
void dz11_input(dz11 *dz, int line, uint8_t ch);

/* How many characters given to dz11_input() have not yet arrived. */
uint32_t dz11_input_pending(const dz11 *dz, int line);

/* Statistics, all lines together: characters that arrived on a line
 * (whether or not the silo took them) and characters transmitted. */
void dz11_stats(const dz11 *dz, uint64_t *chars_in, uint64_t *chars_out);

/* Where transmitted characters go. */
void dz11_set_output(dz11 *dz, void (*out)(void *ctx, int line, uint8_t ch), void *ctx);

/* Its state in a snapshot (snapshot/snap.h), the characters still on the
 * way in included. */
struct vax_snap;
void dz11_snap(dz11 *dz, struct vax_snap *s);

#endif
