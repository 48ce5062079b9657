/*
 * console.h — the 780's console terminal, seen by the processor through
 * four internal registers (RXCS, RXDB, TXCS, TXDB).  Characters move at a
 * modelled baud rate in virtual time; the kernel sends console commands
 * (reboot, clear warm-start inhibit...) with channel id 0xF in TXDB.
 * A typed ^P halts the processor, like the operator's ^P and HALT.
 *
 * TXDB<11:8> selects what a transmitted byte is for: 0 the terminal, 0xF
 * a console command, 3 a query of the console subsystem's revision
 * levels, which the console answers with one byte in RXDB, tagged with
 * channel 3 in RXDB<11:8> (DEC's VMB asks before it boots and refuses to
 * go on if the levels are too low: see console.c).  Bytes for any other
 * channel (the console floppy, 1 and 9, is not modelled) are taken and
 * dropped.
 */
#ifndef VAX_CONSOLE_H
#define VAX_CONSOLE_H

#include <stdint.h>

#include "machine.h"

#define CONSOLE_INPUT_MAX 8192

typedef struct vax_console {
    uint32_t rxcs, rxdb, txcs;
    vax_event rx_event, tx_event;
    uint8_t pending_tx;          /* the character being transmitted */
    uint8_t pending_id;          /* and its channel (TXDB<11:8>) */
    uint16_t reply;              /* an answer to a channel-3 query, for RXDB */
    int reply_pending;
    uint8_t input[CONSOLE_INPUT_MAX];
    uint32_t in_head, in_count;
    uint32_t char_ns;            /* time per character (baud rate) */
    /* Where transmitted characters go (parity bit stripped), and console
     * commands (TXDB channel 0xF: 2 = reboot, 3/4 clear inhibits). */
    void (*output)(void *ctx, uint8_t ch);
    void *output_ctx;
    void (*command)(void *ctx, uint32_t code);
    void *command_ctx;
    /* Typing pace: when set and it returns nonzero, the next typed
     * character is held back (and asked again a character time later)
     * instead of reaching RXDB.  The host sets it so that a long paste
     * waits for the guest to read, as a typist watching the screen would,
     * instead of overflowing the guest's input queue (system/session.c). */
    int (*hold_input)(void *ctx);
    void *hold_ctx;
    /* Statistics: characters received (reaching RXDB) and transmitted. */
    uint64_t chars_in, chars_out;
} vax_console;

void console_init(vax_console *c, uint32_t baud);
/* Console INIT: the registers clear (transmitter ready); characters already
 * typed stay queued and keep arriving. */
void console_reset(vax_machine *m, vax_console *c);
/* Queue typed characters; returns how many fitted. */
uint32_t console_type(vax_machine *m, vax_console *c, const char *text, uint32_t len);
int console_ipr_read(vax_machine *m, vax_console *c, int ipr, uint32_t *value);
int console_ipr_write(vax_machine *m, vax_console *c, int ipr, uint32_t value);

/* Its state in a snapshot (snapshot/snap.h); the callbacks stay the
 * system's own. */
struct vax_snap;
void console_snap(vax_console *c, struct vax_snap *s);

#endif
