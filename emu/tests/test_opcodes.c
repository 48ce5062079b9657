/*
 * test_opcodes — the opcode table (cpu/opcodes.c) is the one place that says
 * what each opcode is: its operands for the decoder, disassembler and
 * assembler, its group for execute.c's dispatch, and (through timing.c) its
 * cost.  This checks that the three agree for all 256 opcodes:
 *   - an opcode has a group exactly when it is not reserved or an escape;
 *   - every opcode with a group is executed by it: run once with register
 *     operands it never takes the reserved-instruction fault (other faults,
 *     a reserved operand say, are fine: the operands are arbitrary), and
 *     every reserved opcode and escape does;
 *   - every opcode has a base cost on both processor models, and every
 *     reserved one the same as the others.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cpu/cpu.h"
#include "cpu/opcodes.h"
#include "cpu/timing.h"
#include "machine.h"
#include "vax.h"

#define SCB 0x0000u
#define STUBS 0x1000u   /* a HALT for each SCB vector: the halt PC names the vector */
#define CODE 0x3000u

static void put32(uint8_t *m, uint32_t a, uint32_t v)
{
    m[a] = (uint8_t)v;
    m[a + 1] = (uint8_t)(v >> 8);
    m[a + 2] = (uint8_t)(v >> 16);
    m[a + 3] = (uint8_t)(v >> 24);
}

/* Run opcode once with every operand a register (R1..R6; a branch
 * displacement of 0); return the SCB vector taken, or -1 if none. */
static int vector_taken(vax_machine *m, int op)
{
    static uint8_t mem[0x4000];
    memset(mem, 0, sizeof mem);
    for (uint32_t v = 0; v < 0x100; v += 4) {
        put32(mem, SCB + v, STUBS + v * 2);   /* kernel stack; each stub 8 bytes apart */
        mem[STUBS + v * 2] = 0x00;            /* HALT */
    }
    const vax_opinfo *oi = &vax_opcodes[op];
    uint32_t pc = CODE;
    mem[pc++] = (uint8_t)op;
    for (int i = 0; i < oi->nspec; i++) {
        int acc = SPEC_ACC(oi->spec[i]);
        if (acc == ACC_B)
            pc += (uint32_t)dt_size(SPEC_DT(oi->spec[i]));   /* displacement 0 */
        else
            mem[pc++] = (uint8_t)(0x51 + i);                 /* register mode, R1.. */
    }
    mem[pc] = 0x00;   /* HALT after it */
    vax_phys_write(m, 0, mem, sizeof mem);
    vax_reset(m);
    vax_set_ipr(m, IPR_SCBB, SCB);
    for (int r = 0; r < 14; r++)
        vax_set_reg(m, r, 0);
    vax_set_reg(m, 14, 0x3F00);
    vax_set_reg(m, 15, CODE);
    vax_set_psl(m, 0x041F0000u);
    vax_run(m, 3);
    uint32_t at = vax_get_reg(m, 15) - 1;   /* past the HALT */
    if (at >= STUBS && at < STUBS + 0x200 && (at - STUBS) % 8 == 0)
        return (int)((at - STUBS) / 2);
    return -1;
}

int main(void)
{
    vax_config cfg = { 64 * 1024 };
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "machine");
    if (!m)
        return check_summary();
    int reserved = 0;
    for (int op = 0; op < 256; op++) {
        const vax_opinfo *oi = &vax_opcodes[op];
        int is_reserved = (oi->flags & (OPF_RESERVED | OPF_ESCAPE)) != 0;
        reserved += is_reserved;
        CHECK((oi->group == OPG_RESERVED) == is_reserved, "opcode %02X (%s): group %d, reserved %d", op, oi->name,
              oi->group, is_reserved);
        CHECK(oi->group < OPG_COUNT, "opcode %02X: group %d out of range", op, oi->group);
        int v = vector_taken(m, op);
        if (is_reserved)
            CHECK(v == 0x10, "reserved opcode %02X takes the reserved-instruction fault (vector %x)", op, v);
        else
            CHECK(v != 0x10 || op == 0xFC, "opcode %02X (%s) is executed by its group, not refused (vector %x)", op,
                  oi->name, v);
    }
    CHECK(reserved > 0 && reserved < 256, "%d reserved opcodes", reserved);

    /* Costs, on both models: every opcode has one; reserved ones are alike. */
    for (int model = 0; model < 2; model++) {
        vax_timing t;
        vax_memory_geometry g;
        CHECK(timing_init_model(&t, &g, model == 0 ? VAX_MODEL_780 : VAX_MODEL_750) == 0, "model %d", model);
        int first_reserved = -1;
        for (int op = 0; op < 256; op++) {
            CHECK(t.op[op] > 0, "model %d: opcode %02X has a cost", model, op);
            if (vax_opcodes[op].flags & OPF_RESERVED) {
                if (first_reserved < 0)
                    first_reserved = op;
                else
                    CHECK(t.op[op] == t.op[first_reserved], "model %d: reserved %02X costs like %02X", model, op,
                          first_reserved);
            }
        }
    }
    vax_destroy(m);
    return check_summary();
}
