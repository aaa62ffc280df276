/*
 * The shim's one way to speak: a line to stderr or HPROFSTRIP_LOG, unless
 * HPROFSTRIP_QUIET. Used by dump tracking (session.c, fdtable.c, pipe.c).
 */
#ifndef HPROFSTRIP_SAY_H
#define HPROFSTRIP_SAY_H

/* One line to stderr or HPROFSTRIP_LOG, in one write; errno kept. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
