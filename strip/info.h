/* hprofstrip --info: a census of a dump, stripped or not. */
#ifndef HPROFSTRIP_INFO_H
#define HPROFSTRIP_INFO_H

#include <stddef.h>

/* 1 if argv holds --info (before any "--"). */
int info_wanted(int argc, char **argv);

/* Parses argv (--info [--json] [-q] [IN]), reads IN or stdin, prints the
 * census on stdout. Returns the exit code: 0 well-formed, 1 malformed or
 * I/O error, 2 usage error. */
int info_main(const char *prog, int argc, char **argv);

/* The same census and report (on stdout, no message on stderr) of an
 * in-memory dump, for the fuzz target. Returns the exit code. */
int info_mem(const char *name, const void *buf, size_t len, int json);

#endif
