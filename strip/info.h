/* hprofstrip --info: a census of a dump, stripped or not. */
#ifndef HPROFSTRIP_INFO_H
#define HPROFSTRIP_INFO_H

/* 1 if argv holds --info (before any "--"). */
int info_wanted(int argc, char **argv);

/* Parses argv (--info [--json] [-q] [IN]), reads IN or stdin, prints the
 * census on stdout. Returns the exit code: 0 well-formed, 1 malformed or
 * I/O error, 2 usage error. */
int info_main(const char *prog, int argc, char **argv);

#endif
