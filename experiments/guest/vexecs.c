/*
 * vexecs -- execs.c with vfork(2) in place of fork(2) (Table 1:
 * vexecs0null ... vexecs100kbig).  usage: vexecs nexecs brksize job
 */
#define FORK	vfork
#include "execs.c"
