/*
 * HPROFSTRIP_SUSPECTS=yes: once a dump has closed whole, <dump>.suspects
 * beside it, the leak analysis of the stripped file (hprofstrip
 * --suspects, strip/analyze/), made by a child the shim starts and never
 * waits for:
 *   - the tool is the hprofstrip beside the library (a build tree) or in
 *     the bin directory of its prefix (<prefix>/lib/hprofstrip/ ->
 *     <prefix>/bin/), found once; none: said once, nothing started;
 *   - started with posix_spawn (no copy of the runtime's memory), its
 *     own session, every signal at its default and unblocked, stdin and
 *     stdout /dev/null, stderr the runtime's, no fd of the runtime's past
 *     2 where the libc can close them, and without LD_PRELOAD and the
 *     shim's variables: it is no runtime, and the shim has nothing to do
 *     in it;
 *   - --background: at the lowest CPU and I/O priority; --private: the
 *     file 0600, never replacing one that exists; --max-memory
 *     HPROFSTRIP_SUSPECTS_MEMORY (default 256M): past it, its arrays go
 *     to unlinked files beside the dump, so it never becomes the
 *     machine's second out-of-memory; --redacted when the dump was;
 *   - it is reaped later without waiting (the next dump's end, or the
 *     process's exit), so the runtime never waits for it; one the
 *     runtime reaps itself is as good.
 * A cut, failed or fallen-back dump gets none (its .histo says why). A
 * runtime that exits goes on without it: the child lives on, in its own
 * session. A container whose runtime is its init stops with it, and its
 * child is killed then: no .suspects, perhaps its temporary file
 * (.<dump>.suspects.tmpXXXXXX, 0600) beside the dump.
 */
#include "session.h"
#include "libc.h"
#include "policy.h"
#include "say.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_CHILDREN 16
#define MAX_ENV 512

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t children[MAX_CHILDREN];
static char tool[PATH_MAX];
static int tool_looked, told_none, told_mem;

/* The hprofstrip beside the library (the build directory), or in its
 * prefix's bin: PREFIX/lib/hprofstrip/ (make install), or one more level
 * down, PREFIX/lib/MULTIARCH/hprofstrip/ (the Debian package) and
 * PREFIX/lib/hprofstrip/LIBC/ (a release tarball). */
static void find_tool(void)
{
	Dl_info info;
	char dir[PATH_MAX];
	char *slash;

	tool_looked = 1;
	if (!dladdr((void *)find_tool, &info) || !info.dli_fname ||
	    snprintf(dir, sizeof dir, "%s", info.dli_fname) >= (int)sizeof dir)
		return;
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		*slash = 0;
	if (snprintf(tool, sizeof tool, "%s/hprofstrip", dir) < (int)sizeof tool &&
	    !access(tool, X_OK))
		return;
	if (snprintf(tool, sizeof tool, "%s/../../bin/hprofstrip", dir) <
	        (int)sizeof tool && !access(tool, X_OK))
		return;
	if (snprintf(tool, sizeof tool, "%s/../../../bin/hprofstrip", dir) <
	        (int)sizeof tool && !access(tool, X_OK))
		return;
	tool[0] = 0;
}

/* children gone are reaped, none waited for */
static void reap(void)
{
	int i, st;

	for (i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0 &&
		    waitpid(children[i], &st, WNOHANG) != 0)
			children[i] = 0;  /* ended (or the runtime reaped it) */
}

void suspects_reap(void)
{
	int saved = errno;

	pthread_mutex_lock(&lock);
	reap();
	pthread_mutex_unlock(&lock);
	errno = saved;
}

void suspects_start(struct session *s)
{
	const struct policy *pol = policy();
	char out[PATH_MAX + 16], mem[32];
	char *argv[16], *env[MAX_ENV];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int saved = errno, i, k = 0, slot = -1, rc;
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	pid_t pid;

	if (!pol->suspects || s->kind != S_MAIN)
		return;
	if (!hs_at_end(&s->st) || s->st.err || s->st.fallback || s->ob.err)
		return;
	pthread_mutex_lock(&lock);
	reap();
	if (!tool_looked)
		find_tool();
	for (i = 0; i < MAX_CHILDREN && slot < 0; i++)
		if (children[i] <= 0)
			slot = i;
	if (!tool[0] || slot < 0) {
		if (!tool[0] && !told_none++)
			say("hprofstrip: HPROFSTRIP_SUSPECTS: no hprofstrip beside "
			    "the library or in its prefix's bin; no .suspects");
		else if (tool[0])
			say("hprofstrip: %s: %d analyses still running; no "
			    ".suspects for this dump", s->path, MAX_CHILDREN);
		goto out;
	}
	if (snprintf(out, sizeof out, "%s.suspects", s->path) >= (int)sizeof out) {
		say("hprofstrip: %s: its path is too long for a .suspects", s->path);
		goto out;
	}
	if (pol->suspects_memory_bad[0] && !told_mem++)
		say("hprofstrip: HPROFSTRIP_SUSPECTS_MEMORY=%s is no size "
		    "(256M, 2G); 256M", pol->suspects_memory_bad);
	snprintf(mem, sizeof mem, "%s", pol->suspects_memory[0]
	         ? pol->suspects_memory : "256M");
	argv[k++] = "hprofstrip";
	argv[k++] = "--suspects";
	argv[k++] = "--background";
	argv[k++] = "--private";
	argv[k++] = "--max-memory";
	argv[k++] = mem;
	if (s->st.flags & HS_REDACT)
		argv[k++] = "--redacted";
	argv[k++] = "-o";
	argv[k++] = out;
	argv[k++] = "--";
	argv[k++] = s->path;
	argv[k] = NULL;
	/* the environment less the preload and the shim's own */
	for (i = k = 0; environ && environ[i] && k < MAX_ENV - 1; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) &&
		    strncmp(environ[i], "HPROFSTRIP_", 11))
			env[k++] = environ[i];
	env[k] = NULL;
	if (posix_spawn_file_actions_init(&fa))
		goto out;
	if (posix_spawnattr_init(&at)) {
		posix_spawn_file_actions_destroy(&fa);
		goto out;
	}
	rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null",
		                                      O_WRONLY, 0);
	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
#ifdef POSIX_SPAWN_SETSID
	flags |= POSIX_SPAWN_SETSID;
#endif
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&at, &all);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, flags);
	if (!rc)
		rc = posix_spawn(&pid, tool, &fa, &at, argv, env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		say("hprofstrip: %s: cannot start %s: %s; no .suspects", s->path,
		    tool, strerror(rc));
	else {
		children[slot] = pid;
		say("hprofstrip: %s: what holds the heap goes to %s (hprofstrip "
		    "--suspects, pid %ld, in the background)", s->path, out,
		    (long)pid);
	}
out:
	pthread_mutex_unlock(&lock);
	errno = saved;
}
