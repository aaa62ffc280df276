/*
 * Failing closed (refuse.h): the refused fds, and the removal of their
 * files. Below the fd table's limit a refused fd is a bit; above it, one
 * of a few slots; past those (a process with that many refused fds that
 * high), the fd is made a read-only /dev/null, so the kernel refuses its
 * writes (EBADF).
 */
#include "refuse.h"
#include "fdtable.h"
#include "libc.h"
#include "policy.h"
#include "say.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LBITS (8 * sizeof(unsigned long))
#define HI_SLOTS 64

static unsigned long lo[HST_MAX_FD / LBITS];
static int hi[HI_SLOTS];  /* refused fds >= HST_MAX_FD; 0: a free slot */

int refuse_wanted(void)
{
	return policy()->redact != 0;
}

int refuse_marked;

int refused_slow(int fd)
{
	unsigned i;

	if (fd < 0)
		return 0;
	if (fd < HST_MAX_FD)
		return (__atomic_load_n(&lo[fd / LBITS], __ATOMIC_ACQUIRE) >>
		        (fd % LBITS)) & 1;
	for (i = 0; i < HI_SLOTS; i++)
		if (__atomic_load_n(&hi[i], __ATOMIC_ACQUIRE) == fd)
			return 1;
	return 0;
}

/* The kernel refuses fd's writes from now on: a read-only /dev/null in
 * its place (its close-on-exec flag kept). */
static void make_null(int fd)
{
	int fl = hst.fcntl(fd, F_GETFD, 0);
	int nul = hst.open("/dev/null", O_RDONLY | O_CLOEXEC, 0);

	if (nul < 0)
		return;
	if (syscall(SYS_dup3, nul, fd, fl > 0 && (fl & FD_CLOEXEC) ? O_CLOEXEC
	                                                          : 0) < 0) {
		/* fd was closed meanwhile: nothing left to refuse */
	}
	hst.close(nul);
}

void refuse_mark(int fd)
{
	unsigned i;
	int free_slot = 0;

	/* (first: a call that starts once this returns sees the mark) */
	__atomic_store_n(&refuse_marked, 1, __ATOMIC_RELEASE);
	if (fd < HST_MAX_FD) {
		__atomic_fetch_or(&lo[fd / LBITS], 1UL << (fd % LBITS),
		                  __ATOMIC_RELEASE);
		return;
	}
	for (i = 0; i < HI_SLOTS; i++)
		if (__atomic_compare_exchange_n(&hi[i], &free_slot, fd, 0,
		                                __ATOMIC_ACQ_REL,
		                                __ATOMIC_ACQUIRE))
			return;
		else
			free_slot = 0;
	make_null(fd);
}

void refuse_forget(int fd)
{
	unsigned i;

	if (fd < 0 || !__atomic_load_n(&refuse_marked, __ATOMIC_ACQUIRE))
		return;
	if (fd < HST_MAX_FD) {
		if (refused(fd))
			__atomic_fetch_and(&lo[fd / LBITS],
			                   ~(1UL << (fd % LBITS)), __ATOMIC_RELEASE);
		return;
	}
	for (i = 0; i < HI_SLOTS; i++) {
		int was = fd;
		__atomic_compare_exchange_n(&hi[i], &was, 0, 0, __ATOMIC_ACQ_REL,
		                            __ATOMIC_ACQUIRE);
	}
}

void refuse_dup(int oldfd, int newfd)
{
	if (newfd >= 0 && newfd != oldfd && refused(oldfd))
		refuse_mark(newfd);
}

/* Empties the regular file fd refers to and removes it where name
 * (relative to dirfd) is still that file, not a symlink to it. Returns
 * "removed", "emptied", or "left" (not a regular file, or it cannot be
 * emptied). */
static const char *remove_file(int fd, int dirfd, const char *name)
{
	struct stat a, b;

	if (fstat(fd, &a) || !S_ISREG(a.st_mode))
		return "left";
	if (hst.ftruncate(fd, 0))
		return "left";
	if (name && name[0] &&
	    !fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
	    !unlinkat(dirfd, name, 0))
		return "removed";
	return "emptied";
}

void refuse_fd(int fd, int dirfd, const char *path, const char *why,
               const char *fix)
{
	char link[64], named[PATH_MAX];
	const char *done;
	ssize_t k;
	int saved = errno;

	/* the file's name now, symlinks resolved, else the name opened */
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	k = readlink(link, named, sizeof named - 1);
	if (k > 0 && named[0] == '/') {
		named[k] = 0;
		done = remove_file(fd, AT_FDCWD, named);
	} else {
		snprintf(named, sizeof named, "%s", path ? path : link);
		done = remove_file(fd, dirfd, path);
	}
	refuse_mark(fd);
	say("hprofstrip: %s: %s; HPROFSTRIP_REDACT cannot redact it, so none "
	    "of it is written: its writes fail (EPERM) and the file is %s; %s",
	    named, why, done, fix);
	errno = saved;
}
