/*
 * vax_wasm.c — small helpers for the WebAssembly build only.
 *
 * Everything in vax.h is exported as is (see WASM_EXPORTS in the Makefile);
 * these helpers only spare JavaScript from laying out C structs.
 */
#include <emscripten/emscripten.h>
#include <string.h>

#include "snapshot/snap.h"
#include "vax.h"

/* vax_create() with a config whose other fields (if any are added) are zero. */
EMSCRIPTEN_KEEPALIVE vax_machine *vaxw_create(uint32_t memory_bytes) {
    vax_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.memory_bytes = memory_bytes;
    return vax_create(&cfg);
}

/* Lets the loader check that the JS side and the C side agree. */
EMSCRIPTEN_KEEPALIVE uint32_t vaxw_abi_version(void) {
    /* 2: the vax780w_* system functions (vax780_wasm.c); 3: vax780w_set_ns_per_instruction;
     * 4: shared disk images (vax780w_image_alloc/free), vax780w_create no longer owns the disk;
     * 5: vax780w_set_disk_timing; 6: vax780w_create takes memory in KB (a multiple of 256);
     * 7: diskless systems, vax780w_console_load/start;
     * 8: RA drives on the UDA50 (vax780w_create_ra), booting through VMB (vax780w_set_vmb);
     * 9: vax780w_set_cpu_model, vax780w_set_disk_spin_seed;
     * 10: profiling (vax780w_profile_*, vax_profile_*);
     * 11: vax780w_create_js, an image JavaScript holds, read through the vaxImageRead import;
     * 12: vax780w_add_second_drive;
     * 13: machine snapshots (vax780w_snapshot*, vax780w_restore*), chunked images (vax780w_chunked_*);
     * 14: vax780w_lock_disk_spin */
    return 14;
}

/* The emulator build's identity (32 bytes: the SHA-256 of emu/src), which
 * machine snapshots carry: one made by another build is refused. */
EMSCRIPTEN_KEEPALIVE const uint8_t *vaxw_build_id(void) { return snap_build_id(); }
