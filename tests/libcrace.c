/*
 * libcrace: the shim's libc layer (preload/libc.c, linked in) while one
 * thread resolves the real functions and another calls one, under
 * ThreadSanitizer (make check-tsan). This program's own dlsym stands in
 * for the C library's (both built with -Ddlsym=libcrace_dlsym, so the
 * sanitizer's own dlsym calls are left alone): it answers "write"
 * with fake_write, and only after a pause in which the other thread makes
 * its call, with no synchronization between the two but a relaxed flag.
 * That call must get the raw system call (the table not yet published),
 * never a field of a table being filled (a report); once resolved, calls
 * get fake_write. Prints "libcrace: ok".
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include "../preload/libc.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int inside;   /* the resolver is in dlsym("write") (relaxed) */
static int faked;    /* calls that reached fake_write */

static ssize_t fake_write(int fd, const void *buf, size_t len)
{
	__atomic_add_fetch(&faked, 1, __ATOMIC_RELAXED);
	return (ssize_t)syscall(SYS_write, fd, buf, len);
}

void *dlsym(void *handle, const char *name)
{
	struct timespec ts = { 0, 200 * 1000 * 1000 };

	(void)handle;
	if (strcmp(name, "write"))
		return NULL;
	__atomic_store_n(&inside, 1, __ATOMIC_RELAXED);
	nanosleep(&ts, NULL);
	return (void *)fake_write;
}

static void *resolver(void *arg)
{
	(void)arg;
	libc_resolve();
	return NULL;
}

int main(void)
{
	pthread_t t;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0 || pthread_create(&t, NULL, resolver, NULL))
		return 2;
	while (!__atomic_load_n(&inside, __ATOMIC_RELAXED))
		sched_yield();
	/* during the resolution: the raw system call */
	if (libc_write(fd, "x", 1) != 1 || __atomic_load_n(&faked, __ATOMIC_RELAXED)) {
		fprintf(stderr, "libcrace: a call during the resolution did not "
		        "get the raw system call\n");
		return 1;
	}
	pthread_join(t, NULL);
	if (libc_write(fd, "x", 1) != 1 || faked != 1) {
		fprintf(stderr, "libcrace: the resolved write was not used\n");
		return 1;
	}
	close(fd);
	printf("libcrace: ok\n");
	return 0;
}
