/*
 * console.c — the console terminal registers and their interrupts
 * (IPL 0x14; receive vector 0xF8, transmit vector 0xFC).
 */
#include "system/console.h"

#include "cpu/cpu.h"
#include "snapshot/snap.h"

#define CSR_IE 0x40u
#define CSR_DONE 0x80u   /* RXCS done / TXCS ready */
#define CONSOLE_IPL 0x14
#define SRC_RX 16        /* interrupt sources beyond the nexus TRs */
#define SRC_TX 17
#define ID_TERMINAL 0x0u /* TXDB/RXDB<11:8>: the console terminal */
#define ID_REVISION 0x3u /* a query of the console subsystem's revision levels */
#define ID_COMMAND 0xFu  /* a console command */

/* The console's answer to a revision-level query (channel 3).  What each
 * query letter names is the console program's business; the answers are
 * the least DEC's VMB of VAX/VMS V7.3 accepts on a 780 (it compares the
 * answers to 'm' and 'j' bytewise with 12 and 1, and 'l' (low byte) and
 * 'k' (high byte) as a word with 0x0C12, and prints "%BOOT-F-Microcode
 * revision level lower than minimum required for VMS" below them); 'd'
 * is combined with the accelerator's status, 0 meaning nothing more. */
static uint8_t revision_answer(uint8_t query)
{
    switch (query) {
    case 'm': return 0x0C;
    case 'j': return 0x01;
    case 'l': return 0x12;
    case 'k': return 0x0C;
    default: return 0;
    }
}

static void update_rx_irq(vax_machine *m, vax_console *c)
{
    if ((c->rxcs & (CSR_IE | CSR_DONE)) == (CSR_IE | CSR_DONE))
        machine_irq_raise(m, CONSOLE_IPL, SRC_RX, 0xF8);
    else
        machine_irq_clear(m, CONSOLE_IPL, SRC_RX);
}

static void update_tx_irq(vax_machine *m, vax_console *c)
{
    if ((c->txcs & (CSR_IE | CSR_DONE)) == (CSR_IE | CSR_DONE))
        machine_irq_raise(m, CONSOLE_IPL, SRC_TX, 0xFC);
    else
        machine_irq_clear(m, CONSOLE_IPL, SRC_TX);
}

/* The next typed character reaches the receiver buffer. */
static void rx_arrive(vax_machine *m, void *ctx)
{
    vax_console *c = ctx;
    if (c->rxcs & CSR_DONE)
        return;
    if (c->reply_pending) {   /* the console subsystem's answer comes first */
        c->reply_pending = 0;
        c->rxdb = c->reply;
        c->rxcs |= CSR_DONE;
        update_rx_irq(m, c);
        return;
    }
    if (c->in_count == 0)
        return;
    if (c->hold_input && c->hold_input(c->hold_ctx)) {
        machine_event_schedule(m, &c->rx_event, c->char_ns);
        return;
    }
    uint8_t ch = c->input[c->in_head];
    c->in_head = (c->in_head + 1) % CONSOLE_INPUT_MAX;
    c->in_count--;
    if (ch == 0x10) {
        /* ^P gets the console processor's attention, as on the 780; we
         * take it as the operator's ^P and HALT, which is what 4.3BSD's
         * "halting (in tight loop); hit ^P HALT" asks for. */
        machine_set_stop(m, VAX_STOP_HALT, "operator halt (^P at the console)");
        if (c->in_count)
            machine_event_schedule(m, &c->rx_event, c->char_ns);
        return;
    }
    c->rxdb = ch;
    c->rxcs |= CSR_DONE;
    c->chars_in++;
    update_rx_irq(m, c);
}

static void tx_done(vax_machine *m, void *ctx)
{
    vax_console *c = ctx;
    if (c->pending_id == ID_TERMINAL) {
        c->chars_out++;
        if (c->output)
            c->output(c->output_ctx, (uint8_t)(c->pending_tx & 0x7F));   /* the kernel sets the parity bit */
    } else if (c->pending_id == ID_REVISION) {
        c->reply = (uint16_t)(ID_REVISION << 8 | revision_answer(c->pending_tx));
        c->reply_pending = 1;
        if (!(c->rxcs & CSR_DONE))
            machine_event_schedule(m, &c->rx_event, c->char_ns);
    }
    c->txcs |= CSR_DONE;
    update_tx_irq(m, c);
}

void console_init(vax_console *c, uint32_t baud)
{
    *c = (vax_console){0};
    c->txcs = CSR_DONE;
    c->char_ns = (uint32_t)(10ull * 1000000000ull / (baud ? baud : 9600));
    c->rx_event.fire = rx_arrive;
    c->rx_event.ctx = c;
    c->tx_event.fire = tx_done;
    c->tx_event.ctx = c;
}

void console_reset(vax_machine *m, vax_console *c)
{
    c->rxcs = 0;
    c->txcs = CSR_DONE;
    c->reply_pending = 0;
    if (c->in_count)
        machine_event_schedule(m, &c->rx_event, c->char_ns);
}

uint32_t console_type(vax_machine *m, vax_console *c, const char *text, uint32_t len)
{
    uint32_t n = 0;
    while (n < len && c->in_count < CONSOLE_INPUT_MAX) {
        c->input[(c->in_head + c->in_count) % CONSOLE_INPUT_MAX] = (uint8_t)text[n++];
        c->in_count++;
    }
    if (n && !(c->rxcs & CSR_DONE) && !c->rx_event.pending)
        machine_event_schedule(m, &c->rx_event, c->char_ns);
    return n;
}

int console_ipr_read(vax_machine *m, vax_console *c, int ipr, uint32_t *value)
{
    switch (ipr) {
    case IPR_RXCS: *value = c->rxcs; return 1;
    case IPR_RXDB:
        *value = c->rxdb & 0xFFF;
        if (c->rxcs & CSR_DONE) {
            c->rxcs &= ~CSR_DONE;
            update_rx_irq(m, c);
            if (c->in_count || c->reply_pending)
                machine_event_schedule(m, &c->rx_event, c->char_ns);
        }
        return 1;
    case IPR_TXCS: *value = c->txcs; return 1;
    case IPR_TXDB: *value = 0; return 1;
    }
    return 0;
}

int console_ipr_write(vax_machine *m, vax_console *c, int ipr, uint32_t value)
{
    switch (ipr) {
    case IPR_RXCS:
        c->rxcs = (c->rxcs & ~CSR_IE) | (value & CSR_IE);
        update_rx_irq(m, c);
        return 1;
    case IPR_RXDB: return 1;
    case IPR_TXCS:
        c->txcs = (c->txcs & ~CSR_IE) | (value & CSR_IE);
        update_tx_irq(m, c);
        return 1;
    case IPR_TXDB:
        if (((value >> 8) & 0xF) == ID_COMMAND) {   /* a console-subsystem command, not a character */
            if (c->command)
                c->command(c->command_ctx, value & 0xFF);
            return 1;
        }
        c->pending_tx = (uint8_t)value;
        c->pending_id = (uint8_t)((value >> 8) & 0xF);
        c->txcs &= ~CSR_DONE;
        update_tx_irq(m, c);
        machine_event_schedule(m, &c->tx_event, c->char_ns);
        return 1;
    }
    return 0;
}

void console_snap(vax_console *c, vax_snap *s)
{
    snap_u32(s, &c->rxcs);
    snap_u32(s, &c->rxdb);
    snap_u32(s, &c->txcs);
    snap_event(s, &c->rx_event);
    snap_event(s, &c->tx_event);
    snap_u8(s, &c->pending_tx);
    snap_u8(s, &c->pending_id);
    snap_u16(s, &c->reply);
    snap_int(s, &c->reply_pending, 0, 1);
    snap_u32(s, &c->in_head);
    snap_u32(s, &c->in_count);
    if (snap_restoring(s) && (c->in_head >= CONSOLE_INPUT_MAX || c->in_count > CONSOLE_INPUT_MAX))
        snap_fail(s, "snapshot damaged: console input queue");
    /* The characters typed and not yet read, in order. */
    for (uint32_t i = 0; i < c->in_count && !snap_failed(s); i++)
        snap_u8(s, &c->input[(c->in_head + i) % CONSOLE_INPUT_MAX]);
    snap_same_u32(s, c->char_ns, "console character time");
    snap_u64(s, &c->chars_in);
    snap_u64(s, &c->chars_out);
}
