/*
 * check.h: the C unit tests' one assertion (tests/holdtest.c,
 * tests/policytest.c). CHECK(cond, fmt, ...) counts a pass, or counts a
 * failure and prints "FAIL line N: " and the message; check_done(name)
 * prints "NAME: N passed, N failed" and gives main's status (1 if any
 * failed).
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>

static int pass, fail;

#define CHECK(cond, ...)                                        \
	do {                                                    \
		if (cond) {                                     \
			pass++;                                 \
		} else {                                        \
			fail++;                                 \
			printf("FAIL line %d: ", __LINE__);     \
			printf(__VA_ARGS__);                    \
			printf("\n");                           \
		}                                               \
	} while (0)

static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, pass, fail);
	return fail != 0;
}

#endif
