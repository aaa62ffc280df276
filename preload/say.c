/* The shim's messages: see say.h. */
#include "say.h"
#include "policy.h"
#include "libc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

void say(const char *fmt, ...)
{
	const struct policy *p = policy();
	char line[PATH_MAX + 256];
	int n, fd = 2, saved = errno;
	va_list ap;

	if (p->quiet)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		goto out;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (p->log[0]) {
		fd = libc_open_log(p->log);
		if (fd < 0)
			fd = 2;
	}
	if (libc_write(fd, line, (size_t)n) < 0) {
		/* nowhere else to report it */
	}
	if (fd != 2)
		libc_close(fd);
out:
	errno = saved;
}
