/*
 * Text gathered a line at a time and given to the caller's out() whole,
 * for the histogram's writers (io/histotext.c, and the CLI's --baseline
 * in strip/cli/histo.c). No allocation: the line is the caller's (on its
 * stack, about 5 KiB), and a line longer than it is cut.
 */
#ifndef HPROFSTRIP_IO_LINEOUT_H
#define HPROFSTRIP_IO_LINEOUT_H

#include <stddef.h>

#include "histo.h"

struct io_line {
	char buf[IO_HISTO_NAME_BUF * 8 + 512];
	size_t len;
	int (*out)(void *user, const void *buf, size_t len);
	void *user;
	int err;                   /* out()'s first non-zero return */
};

/* Appends to the line, printf's way. */
void io_put(struct io_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The line to out(), unless it failed before; the line empty again. */
void io_flush(struct io_line *l);

/* The header line gathered (it ends in a newline) and under it a rule
 * of '-' as long, both to out(). */
void io_rule(struct io_line *l);

/* s as a JSON string: valid UTF-8 as it is, '"' and '\\' escaped, a
 * control character or any other byte as \u00XX. */
void io_json_string(struct io_line *l, const char *s);

#endif
