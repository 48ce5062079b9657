/*
 * jit_step.c — the instruction loop compiled a second time, as
 * cpu_execute_step: exactly one instruction, through the same code as
 * cpu_execute (execute.c, EXEC_STEP), for the block compiler's calls
 * (jit.c).  Only in the build with VAX_JIT.
 */
#if defined(VAX_JIT) && VAX_JIT
#define EXEC_STEP 1
#include "jit/jit.h"
#include "cpu/execute.c"
#else
typedef int jit_step_not_built;
#endif
