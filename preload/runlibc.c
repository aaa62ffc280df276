/*
 * run_libc_of: the C library a command runs with, read from its ELF
 * program headers (see runlibc.h). Only the native byte order and both
 * ELF classes; nothing is allocated.
 */
#include "runlibc.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* scripts through scripts: as many as Linux's binfmt_script follows */
#define RUN_LIBC_DEPTH 4

static int executable(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, X_OK);
}

/* cmd (n bytes of it) as execvp finds it, into out; 0 if not found */
static int resolve(const char *cmd, size_t n, char *out)
{
	const char *path = getenv("PATH"), *p;

	if (!n || n >= PATH_MAX)
		return 0;
	if (memchr(cmd, '/', n)) {
		memcpy(out, cmd, n);
		out[n] = 0;
		return 1;
	}
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (p = path;; p++) {
		size_t d = strcspn(p, ":");
		/* an empty entry is the current directory, as execvp's */
		if (d + 1 + n < PATH_MAX) {
			if (d) {
				memcpy(out, p, d);
				out[d] = '/';
				memcpy(out + d + 1, cmd, n);
				out[d + 1 + n] = 0;
			} else {
				memcpy(out, cmd, n);
				out[n] = 0;
			}
			if (executable(out))
				return 1;
		}
		p += d;
		if (!*p)
			return 0;
	}
}

/* the interpreter named by the program headers at phoff (count of them,
 * each size bytes, the class's layout) into interp; 0 if none */
static int interp_of(int fd, int class64, uint64_t phoff, unsigned count,
                     unsigned size, char *interp, size_t cap)
{
	unsigned i;

	if (size < (class64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return 0;
	for (i = 0; i < count && i < 256; i++) {
		uint64_t off, len;
		union { Elf64_Phdr p64; Elf32_Phdr p32; } ph;
		size_t want = class64 ? sizeof ph.p64 : sizeof ph.p32;
		if (pread(fd, &ph, want, (off_t)(phoff + (uint64_t)i * size)) !=
		    (ssize_t)want)
			return 0;
		if ((class64 ? ph.p64.p_type : ph.p32.p_type) != PT_INTERP)
			continue;
		off = class64 ? ph.p64.p_offset : ph.p32.p_offset;
		len = class64 ? ph.p64.p_filesz : ph.p32.p_filesz;
		if (!len || len >= cap)
			return 0;
		if (pread(fd, interp, (size_t)len, (off_t)off) != (ssize_t)len)
			return 0;
		interp[len] = 0;
		return 1;
	}
	return 0;
}

static enum run_libc of_path(const char *path, int depth)
{
	unsigned char head[256];
	char interp[PATH_MAX], next[PATH_MAX];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return RUN_LIBC_UNKNOWN;
	n = pread(fd, head, sizeof head - 1, 0);
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		/* #! INTERP: what the kernel runs, and so what loads the
		 * preloaded library first (env(1) too, not the program env
		 * then runs: a chain of both libcs can take neither's shim) */
		char *s = (char *)head + 2;
		size_t len;
		close(fd);
		head[n] = 0;
		s[strcspn(s, "\n")] = 0;
		s += strspn(s, " \t");
		len = strcspn(s, " \t");
		if (depth >= RUN_LIBC_DEPTH || !memchr(s, '/', len) ||
		    !resolve(s, len, next))
			return RUN_LIBC_UNKNOWN;
		return of_path(next, depth + 1);
	}
	if (n < (ssize_t)sizeof(Elf32_Ehdr) || memcmp(head, ELFMAG, SELFMAG)) {
		close(fd);
		return RUN_LIBC_UNKNOWN;
	}
	{
		int class64 = head[EI_CLASS] == ELFCLASS64, found;
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
		if (class64 && n >= (ssize_t)sizeof e64) {
			memcpy(&e64, head, sizeof e64);
			found = interp_of(fd, 1, e64.e_phoff, e64.e_phnum,
			                  e64.e_phentsize, interp, sizeof interp);
		} else if (!class64 && head[EI_CLASS] == ELFCLASS32) {
			memcpy(&e32, head, sizeof e32);
			found = interp_of(fd, 0, e32.e_phoff, e32.e_phnum,
			                  e32.e_phentsize, interp, sizeof interp);
		} else {
			found = 0;
		}
		close(fd);
		if (!found)
			return RUN_LIBC_UNKNOWN;  /* static: it preloads nothing */
	}
	return strstr(interp, "ld-musl") ? RUN_LIBC_MUSL : RUN_LIBC_GLIBC;
}

enum run_libc run_libc_of(const char *cmd)
{
	char path[PATH_MAX];

	if (!resolve(cmd, strlen(cmd), path))
		return RUN_LIBC_UNKNOWN;
	return of_path(path, 0);
}

enum run_libc run_libc_host(void)
{
	return of_path("/bin/sh", 0);
}
