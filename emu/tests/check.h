/*
 * check.h — the few lines every C unit test shares: CHECK(cond, fmt, ...)
 * counts a pass or prints the failure with its file and line, and
 * check_summary() prints the closing line "N passed, M failed" (the form
 * CI reads) and gives the exit status.
 */
#ifndef VAXLAB_TESTS_CHECK_H
#define VAXLAB_TESTS_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                \
    do {                                                \
        if (cond) {                                     \
            passed++;                                   \
        } else {                                        \
            failed++;                                   \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
        }                                               \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif
