/*
 * compat.c — compatibility mode (PSL<CM>): the VAX running PDP-11 code.
 *
 * What this 780 provides is the way in and out of it, not the PDP-11
 * instruction set: REI enters compatibility mode (privileged.c checks the
 * new PSL as the architecture asks: user mode, IPL 0, FPD, IS, DV, FU and
 * IV clear), the PDP-11 PC is R15's low 16 bits (the address zero-extended
 * in P0 space), and the PDP-11 trap instructions leave it through the
 * compatibility-mode exception (SCB 0x30, one parameter, the code):
 *   BPT 000003 -> code 1, IOT 000004 -> code 2, EMT 104000-104377 -> 3,
 *   TRAP 104400-104777 -> code 4, an odd PC -> code 6 (odd address).
 * The saved PC is the instruction's own address, for the trap instructions
 * too (DEC's EVKAE, test 3, checks that a BPT pushes its own PC).
 * Every other PDP-11 instruction takes the reserved-instruction
 * compatibility exception (code 0) — on a real 780 they would run.  DEC's EVKAE (privileged architecture) goes into
 * compatibility mode only to come straight back with a BPT, which this
 * covers; EVKAD (the compatibility-mode exerciser) needs the whole
 * instruction set: emu/docs/compatibility-mode.md says what that takes.
 * Memory-management faults on the instruction fetch are taken as usual.
 */
#include "cpu/exec.h"

int compat_execute(vax_machine *m)
{
    vax_cpu *c = &m->cpu;
    uint32_t pc = c->r[15] & 0xFFFFu;
    if (pc & 1u) {
        c->compat_code = COMPAT_ODD_ADDRESS;
        return VAX_EXC_COMPATIBILITY;
    }
    uint32_t w;
    TRY(mem_read(m, pc, 2, &w));
    c->r[15] = (pc + 2u) & 0xFFFFu;
    if (w == 0000003u)
        c->compat_code = COMPAT_BPT;
    else if (w == 0000004u)
        c->compat_code = COMPAT_IOT;
    else if (w >= 0104000u && w <= 0104377u)
        c->compat_code = COMPAT_EMT;
    else if (w >= 0104400u && w <= 0104777u)
        c->compat_code = COMPAT_TRAP;
    else
        c->compat_code = COMPAT_RESERVED_INSTRUCTION;
    return VAX_EXC_COMPATIBILITY;
}
