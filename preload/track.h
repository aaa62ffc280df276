/*
 * Dump tracking: which fds are dumps being written, and the path of their
 * bytes through the strip engine to the file. An fd and a path come in
 * (hst_opened), then writes, positional writes and rewrites, seeks,
 * truncations and copies, and the end (hst_close). The real I/O functions
 * are passed in (hst_setup), so this layer calls none by name: the shim's
 * wrappers are its first user, and an app's own PLT hook can be another
 * (libhprofstrip.a, whose public header is hprofstrip.h).
 *
 * Each call that takes a result pointer returns 1 when fd is a dump and
 * the call was handled here (the result set, errno set on failure and
 * left alone on success), or 0 when it is not: the caller then makes the
 * real call. Memory: a fixed pool of trackers and an fd table, no
 * allocation. Each call's output is in the file before it returns.
 */
#ifndef HPROFSTRIP_TRACK_H
#define HPROFSTRIP_TRACK_H

/* The API itself, documented there: the public header of libhprofstrip.a
 * (struct hst_io, hst_setup, hst_opened, hst_begin, hst_write, ...). */
#include "hprofstrip.h"

#endif
