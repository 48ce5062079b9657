/*
 * test_machine.c — the library's promises about machines as objects:
 * all state lives in the machine, so two machines in one process do not
 * disturb each other, and a run split into slices ends exactly where an
 * unsplit run does; bad host arguments are refused, not crashed on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vax.h"

#include "check.h"

/* Counts R0 to 100000 then HALTs (300,002 instructions): at 0x200
 *   CLRL R0; 1: INCL R0; CMPL R0, #100000; BLSS 1b; HALT */
static const unsigned char count_loop[] = {0xD4, 0x50, 0xD6, 0x50, 0xD1, 0x50, 0x8F, 0xA0,
                                           0x86, 0x01, 0x00, 0x19, 0xF5, 0x00};
/* Sums memory 0x1000..0x1FFF into R1 for ever, with autoincrement: at 0x200
 *   MOVL #0x1000, R2; 1: ADDL2 (R2)+, R1; BICL2 #^XFFFFF000, R2; BISL2 #0x1000, R2; BRB 1b */
static const unsigned char sum_loop[] = {0xD0, 0x8F, 0x00, 0x10, 0x00, 0x00, 0x52, /* movl #0x1000,r2 */
                                         0xC0, 0x82, 0x51,                         /* addl2 (r2)+,r1 */
                                         0xCA, 0x8F, 0x00, 0xF0, 0xFF, 0xFF, 0x52, /* bicl2 #0xFFFFF000,r2 */
                                         0xC8, 0x8F, 0x00, 0x10, 0x00, 0x00, 0x52, /* bisl2 #0x1000,r2 */
                                         0x11, 0xED};                              /* brb 1b */

static vax_machine *machine_with(const unsigned char *prog, size_t len)
{
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    if (!m)
        return NULL;
    for (uint32_t a = 0x1000; a < 0x2000; a += 4) {
        uint32_t v = a * 2654435761u;
        vax_phys_write(m, a, &v, 4);
    }
    vax_phys_write(m, 0x200, prog, len);
    vax_set_reg(m, 15, 0x200);
    return m;
}

static void test_two_machines_interleaved(void)
{
    /* Reference results, each machine run alone. */
    vax_machine *a = machine_with(count_loop, sizeof count_loop);
    vax_machine *b = machine_with(sum_loop, sizeof sum_loop);
    CHECK(a && b, "vax_create failed");
    if (!a || !b)
        return;
    CHECK(vax_run(a, 1000000) == VAX_STOP_HALT, "count loop did not halt");
    CHECK(vax_run(b, 777777) == VAX_STOP_BUDGET, "sum loop stopped early: %s", vax_stop_detail(b));
    uint64_t ref_a = vax_state_digest(a), ref_b = vax_state_digest(b);
    uint32_t ref_r1 = vax_get_reg(b, 1);
    CHECK(vax_get_reg(a, 0) == 100000, "count loop R0 = %u", vax_get_reg(a, 0));
    vax_destroy(a);
    vax_destroy(b);

    /* The same two, interleaved in small slices of different sizes. */
    a = machine_with(count_loop, sizeof count_loop);
    b = machine_with(sum_loop, sizeof sum_loop);
    uint64_t done_b = 0;
    int a_running = 1;
    for (int i = 0; i < 1000; i++) {
        /* A halted machine resumes at its PC when run again, like the
         * console's CONTINUE: stop running A once it has halted. */
        if (a_running)
            a_running = vax_run(a, 997) == VAX_STOP_BUDGET;
        uint64_t n = 777777 - done_b < 1009 ? 777777 - done_b : 1009;
        if (n) {
            vax_run(b, n);
            done_b += n;
        }
    }
    CHECK(!a_running, "machine A did not halt");
    CHECK(vax_state_digest(a) == ref_a, "machine A's digest changed when run beside machine B");
    CHECK(vax_state_digest(b) == ref_b, "machine B's digest changed when interleaved (R1 %08X vs %08X)",
          vax_get_reg(b, 1), ref_r1);
    vax_destroy(a);
    vax_destroy(b);
}

static void test_host_arguments(void)
{
    vax_config zero = {0};
    CHECK(vax_create(&zero) == NULL, "a machine with no memory was created");
    vax_config cfg = {1u << 20};
    vax_machine *m = vax_create(&cfg);
    CHECK(m != NULL, "vax_create failed");
    if (!m)
        return;
    CHECK(vax_memory_bytes(m) == (1u << 20), "memory size %u", vax_memory_bytes(m));
    unsigned char buf[16] = {0};
    CHECK(vax_phys_write(m, (1u << 20) - 8, buf, 16) == -1, "a write past the end of memory was accepted");
    CHECK(vax_phys_read(m, 0xFFFFFFF0u, buf, 16) == -1, "a read at a wrapping address was accepted");
    CHECK(vax_phys_write(m, (1u << 20) - 16, buf, 16) == 0, "a write at the end of memory was refused");
    /* Executing from nonexistent memory: a machine check through an SCB
     * of zeros (vector 0: kernel stack at address 0) -- whatever happens,
     * it must stop cleanly and say why. */
    vax_set_reg(m, 15, 0x10000000);
    vax_stop_reason r = vax_run(m, 1000);
    CHECK(r != VAX_STOP_BUDGET || vax_instruction_count(m) <= 1000, "run did not stop within its budget");
    CHECK(strlen(vax_stop_reason_name(r)) > 0, "stop reason without a name");
    vax_destroy(m);
    vax_destroy(NULL);
}

int main(void)
{
    test_two_machines_interleaved();
    test_host_arguments();
    return check_summary();
}
