/*
 * host_table.h — reaching a table inside the machine so that the
 * WebAssembly build folds its entries' field offsets into the loads.
 *
 * An entry of a table in vax_machine (the host's look-up, mmu/tlb.h) is
 * at m + the table's offset + index * size, and a field adds its own
 * offset.  clang adds the table's offset (here 8 KB) last and, for the
 * WebAssembly target, leaves that add outside the load (a 32-bit add may
 * wrap and a load's offset field may not), once per field; V8 then
 * computes each field's address apart (an lea before each load).  Taking
 * the table's address first and hiding it from the optimiser (an empty
 * asm with the pointer as its operand: no instruction) keeps the order:
 * the table's address once, the index, and the fields' small offsets in
 * the loads (docs/speed.md, round twenty-two).  Natively it is nothing:
 * gcc folds the offsets into the x86 addressing mode whichever way, and
 * the native objects are the same (objdump -d, compared).
 */
#ifndef VAX_HOST_TABLE_H
#define VAX_HOST_TABLE_H

/* WASM_OPAQUE(v): in the WebAssembly build, v (an lvalue) passes through an
 * empty asm with it as its operand: no instruction, but clang no longer
 * knows where the value came from or what range it has.  Natively nothing.
 * The one definition of the trick, for HOST_ADDRESS below and for the
 * opcode in execute.c's FAST_HEAD (OPCODE_RANGE_HIDDEN). */
#if defined(__wasm__)
#define WASM_OPAQUE(v) __asm__("" : "+r"(v))
#else
#define WASM_OPAQUE(v) ((void)0)
#endif

/* HOST_ADDRESS(t): the array t (or a pointer), as a pointer to its first
 * entry, for indexing: `&HOST_ADDRESS(t)[i]` (the host's look-up is reached so through
 * tlb.h's XLAT_SLOT).  Worth it where an
 * entry has several fields read (the cache's pairs of tags, reached so,
 * measured the same).  In the WebAssembly build the pointer is taken and
 * hidden (GNU C's statement expression and __typeof__, which clang has);
 * natively it is t itself, so gcc compiles the same code as without it. */
#if defined(__wasm__)
#define HOST_ADDRESS(t) \
    __extension__({ __typeof__(&(t)[0]) host_table_ = (t); WASM_OPAQUE(host_table_); host_table_; })
#else
#define HOST_ADDRESS(t) (t)
#endif

#endif
