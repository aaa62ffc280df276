/*
 * libreenter.so: a test-only preload library that sits below the shim
 * (LD_PRELOAD="libhprofstrip.so libreenter.so") and calls back into the
 * wrapped functions, as some real preloads and sanitizer runtimes do:
 *
 *   pwrite64(...)  calls pwrite(...)
 *   writev(...)    calls write() once per vector
 *
 * The shim's own output goes out with pwrite64 from inside a wrapper, with
 * a tracker's lock held; the nested pwrite comes back into the shim. The
 * shim must pass it straight to libc, or the process hangs. Not for
 * production use.
 */
#define _GNU_SOURCE 1
#undef _FORTIFY_SOURCE
#undef _FILE_OFFSET_BITS

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#undef pwrite64

#define EXPORT __attribute__((visibility("default")))

EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, int64_t off)
{
	return pwrite(fd, buf, len, (off_t)off);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
	ssize_t total = 0;
	int i;

	for (i = 0; i < cnt; i++) {
		ssize_t n = write(fd, iov[i].iov_base, iov[i].iov_len);
		if (n < 0)
			return total ? total : -1;
		total += n;
		if ((size_t)n < iov[i].iov_len)
			break;
	}
	return total;
}
