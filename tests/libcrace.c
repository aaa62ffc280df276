/*
 * libcrace: the shim's libc layer (preload/libc.c, linked in), whose real
 * functions are each looked up the first time a call needs it, under
 * ThreadSanitizer (make check-tsan) and as the shim is built (make
 * check: an optimizer may drop a store the sanitizer keeps). This
 * program's own dlsym stands in for the C library's (both built with
 * -Ddlsym=libcrace_dlsym, so the sanitizer's own dlsym calls are left
 * alone): it answers "write" with fake_write after a pause, and nothing
 * else.
 *
 * - Two threads make their first write at once: both look "write" up
 *   (the slot is set twice, to the same value: no report), and both
 *   calls reach fake_write.
 * - A write made from inside dlsym (an allocator below the shim that
 *   writes) gets the raw system call, not a second lookup.
 * - Once looked up, a call asks dlsym nothing more.
 * - A name dlsym does not find is asked once: the *64 name's NULL sends
 *   the call to the base name, and a base name not found to the raw
 *   system call.
 * Prints "libcrace: ok".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "../preload/libc.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int fd;
static int faked;      /* calls that reached fake_write */
static int asked;      /* dlsym("write") calls */
static int asked_64;   /* dlsym("pwrite64") calls */
static int inner_ok;   /* the write from inside dlsym wrote its byte */

static ssize_t fake_write(int f, const void *buf, size_t len)
{
	__atomic_add_fetch(&faked, 1, __ATOMIC_RELAXED);
	return (ssize_t)syscall(SYS_write, f, buf, len);
}

void *dlsym(void *handle, const char *name)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	(void)handle;
	if (!strcmp(name, "pwrite64"))
		__atomic_add_fetch(&asked_64, 1, __ATOMIC_RELAXED);
	if (strcmp(name, "write"))
		return NULL;
	__atomic_add_fetch(&asked, 1, __ATOMIC_RELAXED);
	/* re-entry: this thread's own write, while it looks write up */
	if (libc_write(fd, "i", 1) == 1)
		__atomic_store_n(&inner_ok, 1, __ATOMIC_RELAXED);
	nanosleep(&ts, NULL);
	return (void *)fake_write;
}

static void *writer(void *arg)
{
	(void)arg;
	return libc_write(fd, "x", 1) == 1 ? NULL : (void *)1;
}

static int fail(const char *what)
{
	fprintf(stderr, "libcrace: %s\n", what);
	return 1;
}

int main(void)
{
	pthread_t t[2];
	void *r0, *r1;
	int i;

	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return 2;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, writer, NULL))
			return 2;
	if (pthread_join(t[0], &r0) || pthread_join(t[1], &r1))
		return 2;
	if (r0 || r1)
		return fail("a first write failed");
	if (!__atomic_load_n(&inner_ok, __ATOMIC_RELAXED) || faked != 2)
		return fail("the write from inside dlsym did not get the raw "
		            "system call, or a first write missed the function");
	if (asked < 1 || asked > 2)
		return fail("write was not looked up once per racing thread");
	i = asked;
	if (libc_write(fd, "y", 1) != 1 || faked != 3 || asked != i)
		return fail("a later write asked dlsym again");
	/* pwrite64 and pwrite not found: the raw pwrite, asked once */
	if (libc_pwrite(fd, "z", 1, 0) != 1 || libc_pwrite(fd, "z", 1, 0) != 1 ||
	    asked_64 != 1)
		return fail("a name not found was asked again, or its call "
		            "failed");
	close(fd);
	printf("libcrace: ok\n");
	return 0;
}
