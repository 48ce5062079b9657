/*
 * vforks -- forks.c with vfork(2) in place of fork(2) (Table 1: vforks0,
 * vforks1k, vforks100k).  usage: vforks nforks brksize
 */
#define FORK	vfork
#include "forks.c"
