/* The shim's messages: see say.h. */
#include "say.h"
#include "policy.h"
#include "libc.h"
#include "../strip/io/escape.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* n bytes of buf to fd, if they can be: there is nowhere else to say
 * that they cannot */
static void put(int fd, const char *buf, int n)
{
	if (n > 0 && libc_write(fd, buf, (size_t)n) < 0) {
		/* nowhere else to report it */
	}
}

/* Where a line goes: HPROFSTRIP_LOG opened (closed by the caller), or 2.
 * A log that cannot be opened is said once on stderr, in line and out
 * (the caller's buffers, size bytes each). */
static int log_fd(const struct policy *p, char *line, char *out, size_t size)
{
	static int told;
	int fd, e, n;

	if (!p->log[0])
		return 2;
	if ((fd = libc_open_log(p->log)) >= 0)
		return fd;
	e = errno;
	if (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
		return 2;
	io_escape(out, size, p->log, strlen(p->log));
	n = snprintf(line, size, "hprofstrip: HPROFSTRIP_LOG: %s: %s; "
	             "messages go to stderr\n", out, strerror(e));
	put(2, line, n < 0 || (size_t)n < size ? n : (int)size - 1);
	return 2;
}

void say(const char *fmt, ...)
{
	const struct policy *p = policy();
	char line[PATH_MAX + 256], out[2 * sizeof line];
	int n, fd, saved = errno;
	size_t k;
	va_list ap;

	if (p->quiet)
		return;
	fd = log_fd(p, line, out, sizeof line);
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n >= 0) {
		/* the line, its control characters escaped (a file name's
		 * newline stays on it), then its one newline */
		k = io_escape(out, sizeof out - 1, line,
		              (size_t)n < sizeof line ? (size_t)n
		                                      : sizeof line - 1);
		out[k++] = '\n';
		put(fd, out, (int)k);
	}
	if (fd != 2)
		libc_close(fd);
	errno = saved;
}
