/*
 * bystander: the work of processes that never dump, for make bench's
 * bystander section (tests/bench/bystander.sh), timed under the shim and
 * under an empty library by pairtime.
 *
 *   bystander spawn N        starts /bin/true N times (posix_spawn)
 *   bystander files DIR N    opens, writes 64 bytes to and closes a file
 *                            of DIR N times (100 names in turn, created
 *                            and truncated: each open is one a dump's
 *                            could be)
 * Exit 0, or 1 with one line on the first call that fails.
 */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int spawn(long n)
{
	char *argv[] = { "/bin/true", NULL };
	long i;
	int st;

	for (i = 0; i < n; i++) {
		pid_t pid;
		if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) ||
		    waitpid(pid, &st, 0) != pid || st) {
			fprintf(stderr, "bystander: /bin/true failed\n");
			return 1;
		}
	}
	return 0;
}

static int files(const char *dir, long n)
{
	char path[4096], buf[64];
	long i;

	memset(buf, 'x', sizeof buf);
	for (i = 0; i < n; i++) {
		int fd;
		snprintf(path, sizeof path, "%s/file-%ld.txt", dir, i % 100);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, buf, sizeof buf) != sizeof buf ||
		    close(fd)) {
			perror("bystander: files");
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "spawn"))
		return spawn(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "files"))
		return files(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: bystander spawn N | files DIR N\n");
	return 2;
}
