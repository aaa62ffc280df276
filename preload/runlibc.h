/*
 * Which C library a command runs with: the one its ELF program
 * interpreter names (PT_INTERP), following #! scripts to their
 * interpreter (the kernel's: a "#!/usr/bin/env java" script is env's
 * libc, since env loads the preloaded library first). hprofstrip-run asks,
 * where a release holds the shim for glibc and for musl, so that the
 * library it preloads is one that command's loader can load.
 */
#ifndef HPROFSTRIP_RUNLIBC_H
#define HPROFSTRIP_RUNLIBC_H

enum run_libc {
	RUN_LIBC_UNKNOWN,  /* not found, not ELF, static, or unreadable */
	RUN_LIBC_GLIBC,    /* an interpreter that is not musl's: ld-linux */
	RUN_LIBC_MUSL,     /* /lib/ld-musl-ARCH.so.1 */
};

/* cmd as execvp(3) finds it: a path if it holds a '/', else searched in
 * $PATH */
enum run_libc run_libc_of(const char *cmd);

/* the libc of this machine's own programs: /bin/sh's */
enum run_libc run_libc_host(void);

#endif
