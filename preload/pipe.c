/* A dump's compressor or filter: see pipe.h. */
#include "pipe.h"
#include "../strip/io/compressors.h"
#include "libc.h"
#include "policy.h"
#include "say.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

typedef int (*closefrom_fn)(posix_spawn_file_actions_t *, int);

/* environ with HPROFSTRIP_PATH=path (a filter's), in one mapping; NULL if
 * it cannot be had. Freed with env_free. */
static char **env_with_path(const char *path, size_t *size)
{
	static const char name[] = "HPROFSTRIP_PATH=";
	size_t n = 0, i, k = 0;
	char **env, *s;

	while (environ && environ[n])
		n++;
	*size = (n + 2) * sizeof *env + sizeof name + strlen(path);
	env = mmap(NULL, *size, PROT_READ | PROT_WRITE,
	           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (env == MAP_FAILED)
		return NULL;
	s = (char *)(env + n + 2);
	memcpy(s, name, sizeof name - 1);
	strcpy(s + sizeof name - 1, path);
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], name, sizeof name - 1))
			env[k++] = environ[i];
	env[k++] = s;
	env[k] = NULL;
	return env;
}

/* The child's argv for the policy's compressor (level in lvl). */
static void compressor_argv(const struct policy *pol, char **argv, char *lvl)
{
	const struct io_compressor *c =
		io_compressor_named(pol->compress, strlen(pol->compress));
	int i = 0, k;

	snprintf(lvl, 8, "-%d", pol->level);
	argv[i++] = (char *)pol->compress;
	for (k = 0; c && c->args[k]; k++)
		argv[i++] = (char *)c->args[k];
	argv[i++] = "-c";
	argv[i++] = lvl;
	argv[i] = NULL;
}

int pipe_spawn(pid_t *pid, const char *sh, char *const argv[], char **env,
               int in, int out, int quiet)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	closefrom_fn closefrom;
	int rc;

	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return rc;
	if ((rc = posix_spawnattr_init(&at)) != 0)
		goto out_fa;
	rc = posix_spawn_file_actions_adddup2(&fa, in, 0);
	if (!rc && out >= 0)
		rc = posix_spawn_file_actions_adddup2(&fa, out, 1);
	if (!rc && quiet)
		rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
		                                      O_WRONLY, 0);
	closefrom = (closefrom_fn)dlsym(RTLD_DEFAULT,
	                                "posix_spawn_file_actions_addclosefrom_np");
	if (!rc && closefrom)
		rc = closefrom(&fa, 3);
	sigemptyset(&none);
	sigfillset(&all);
	sigdelset(&all, SIGKILL);
	sigdelset(&all, SIGSTOP);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&at, &all);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
		                                   POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = sh ? posix_spawn(pid, sh, &fa, &at, argv, env)
		        : posix_spawnp(pid, argv[0], &fa, &at, argv, env);
	posix_spawnattr_destroy(&at);
out_fa:
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

static int spawn(struct pipe_out *p, const struct policy *pol, int in, int out)
{
	char *argv[8], lvl[8], **env = environ;
	size_t env_size = 0;
	int rc;

	if (pol->filter[0]) {
		argv[0] = "sh";
		argv[1] = "-c";
		argv[2] = (char *)pol->filter;
		argv[3] = NULL;
		env = env_with_path(p->dump, &env_size);
		if (!env)
			return errno;
	} else if (p->gz_level && !pol->compress[0]) {
		/* a runtime's gzip dump, as gzip again at its level (gzip
		 * itself: pigz's blocks make a larger file at 9) */
		snprintf(lvl, sizeof lvl, "-%d", p->gz_level);
		argv[0] = "gzip";
		argv[1] = "-c";
		argv[2] = lvl;
		argv[3] = NULL;
	} else {
		compressor_argv(pol, argv, lvl);
	}
	rc = pipe_spawn(&p->pid, pol->filter[0] ? "/bin/sh" : NULL, argv, env,
	                in, out, 0);
	if (env_size)
		munmap(env, env_size);
	if (rc)
		p->pid = 0;
	return rc;
}

int pipe_wanted(void)
{
	static int told_bad, told_long;
	const struct policy *pol = policy();
	int saved = errno;

	if (pol->compress_bad[0] && !__atomic_exchange_n(&told_bad, 1,
	                                                 __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_COMPRESS: '%s' is not known "
		    "(zstd[:1-19], gzip[:1-9], xz[:0-9], lz4[:1-12]); dumps "
		    "are not "
		    "compressed", pol->compress_bad);
	if (pol->filter_long && !__atomic_exchange_n(&told_long, 1,
	                                             __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_FILTER is longer than %zu bytes; "
		    "not used", sizeof pol->filter - 1);
	errno = saved;
	return pol->filter[0] || pol->compress[0];
}

void pipe_prepare(struct pipe_out *p, int dirfd, const char *path)
{
	int saved = errno;

	p->pid = 0;
	p->sock = p->peer = -1;
	p->reaped = p->status = 0;
	p->err = 0;
	p->sent = 0;
	p->len = 0;
	p->out[0] = 0;
	p->gz_level = p->replace = 0;
	if (path[0] == '/' || !policy_absolute(dirfd, path, p->dump,
	                                       sizeof p->dump))
		snprintf(p->dump, sizeof p->dump, "%s", path);
	errno = saved;
}

int pipe_start(struct pipe_out *p, int fd)
{
	const struct policy *pol = policy();
	const struct io_compressor *c;
	struct stat sb;
	int sv[2], out = -1, rc, saved = errno;

	if (!pol->filter[0] && !pol->compress[0] && !p->gz_level)
		return 0;
	if (fstat(fd, &sb)) {
		rc = errno;
		goto fail;
	}
	p->dev = sb.st_dev;
	p->ino = sb.st_ino;
	if (pol->filter[0]) {
		snprintf(p->what, sizeof p->what, "HPROFSTRIP_FILTER");
	} else {
		size_t n = strlen(p->dump);

		if (pol->compress[0]) {
			snprintf(p->what, sizeof p->what, "%s -%d",
			         pol->compress, pol->level);
			c = io_compressor_named(pol->compress,
			                        strlen(pol->compress));
			/* a runtime's gzip dump x.gz: x.zst, not x.gz.zst */
			if (p->gz_level && n > 3 &&
			    !strcmp(p->dump + n - 3, ".gz"))
				n -= 3;
			snprintf(p->out, sizeof p->out, "%.*s%s", (int)n,
			         p->dump, c ? c->suffix : ".out");
		} else {
			/* a runtime's gzip dump: gzip at its level, into a new
			 * file renamed over the dump once whole */
			snprintf(p->what, sizeof p->what, "gzip -%d",
			         p->gz_level);
			if ((size_t)snprintf(p->out, sizeof p->out,
			                     "%s.hprofstrip~", p->dump) >=
			    sizeof p->out) {
				rc = ENAMETOOLONG;
				p->out[0] = 0;
				goto fail;
			}
			p->replace = 1;
		}
		/* never over an existing file: an earlier dump's, maybe (a
		 * gzip dump's stand-in: the first free name) */
		out = p->replace ? io_create_free(p->out, sizeof p->out,
		                                  (int)(sb.st_mode & 0666))
		                 : io_create(p->out, (int)(sb.st_mode & 0666));
		if (out < 0) {
			rc = errno;
			say("hprofstrip: %s: cannot create %s: %s; the stripped "
			    "dump is written there", p->dump, p->out, strerror(rc));
			p->out[0] = 0;
			errno = saved;
			return -1;
		}
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		rc = errno;
		goto fail;
	}
	{
		/* room for a few segments in flight: the runtime's thread and
		 * the child work in parallel (best effort, capped by the
		 * system's wmem_max) */
		int size = 4 << 20;
		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
	}
	rc = spawn(p, pol, sv[1], out);
	if (rc) {
		hst.close(sv[0]);
		hst.close(sv[1]);
		goto fail;
	}
	if (out >= 0)
		hst.close(out);
	p->sock = sv[0];
	p->peer = sv[1];
	errno = saved;
	return 1;
fail:
	if (out >= 0) {
		hst.close(out);
		unlink(p->out);
	}
	say("hprofstrip: %s: %s cannot start: %s; the stripped dump is "
	    "written there", p->dump, p->what, strerror(rc));
	p->out[0] = 0;
	errno = saved;
	return -1;
}

/* Has the child exited (reaped now, its status kept)? */
static int child_gone(struct pipe_out *p)
{
	pid_t r;

	if (p->reaped)
		return 1;
	do
		r = waitpid(p->pid, &p->status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0)
		p->status = -1;  /* not ours to wait for (SIGCHLD ignored) */
	p->reaped = 1;
	return 1;
}

/* buf's bytes to the child, whole, waiting for room as it reads; a child
 * that exited is noted in p->err and sent no more. */
static void send_all(struct pipe_out *p, const unsigned char *buf, size_t len)
{
	while (len && !p->err) {
		ssize_t n = send(p->sock, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { p->sock, POLLOUT, 0 };
			/* no room: wait for the child to read, and look
			 * whether it died each tenth of a second */
			if (poll(&pf, 1, 100) < 0 && errno != EINTR)
				p->err = errno;
			else if (!(pf.revents & POLLOUT) && child_gone(p))
				p->err = EPIPE;
			continue;
		}
		if (n <= 0) {
			p->err = n < 0 ? errno : EPIPE;
			return;
		}
		buf += n;
		len -= (size_t)n;
		p->sent += (uint64_t)n;
	}
}

static void send_buffered(struct pipe_out *p)
{
	send_all(p, p->buf, p->len);
	p->len = 0;
}

void pipe_send(struct pipe_out *p, const void *buf, size_t len)
{
	int saved = errno;

	if (!p->pid || p->err)
		return;
	if (p->len + len > sizeof p->buf)
		send_buffered(p);
	if (len >= sizeof p->buf) {
		send_all(p, buf, len);
	} else {
		memcpy(p->buf + p->len, buf, len);
		p->len += len;
	}
	errno = saved;
}

/* Waits for the child, with unlock (if not NULL) let go of meanwhile;
 * its status, or -1 (errno) if it cannot be had. */
static int reap(struct pipe_out *p, int *status, pthread_mutex_t *unlock)
{
	int was = p->reaped;
	pid_t r = 0;

	if (was) {
		*status = p->status;
	} else {
		if (unlock)
			pthread_mutex_unlock(unlock);
		do
			r = waitpid(p->pid, status, 0);
		while (r < 0 && errno == EINTR);
		if (unlock)
			pthread_mutex_lock(unlock);
	}
	p->pid = 0;
	p->reaped = 0;
	if (was && *status == -1) {
		errno = ECHILD;
		return -1;
	}
	return r < 0 ? -1 : 0;
}

/* Bytes the child left unread in its stdin (its end closed here). */
static int unread(struct pipe_out *p)
{
	int n = 0;

	if (p->peer < 0)
		return 0;
	if (ioctl(p->peer, FIONREAD, &n) < 0)
		n = -1;  /* cannot tell: not taken */
	hst.close(p->peer);
	p->peer = -1;
	return n;
}

int pipe_finish(struct pipe_out *p, char *msg, size_t size,
                pthread_mutex_t *unlock)
{
	int status, saved = errno, ok = 0, left, gone;

	if (!p->pid)
		return -1;
	send_buffered(p);
	hst.close(p->sock);
	p->sock = -1;
	gone = reap(p, &status, unlock);
	if (gone)
		snprintf(msg, size, "%s: its exit status is unknown (%s)",
		         p->what, strerror(errno));
	left = unread(p);
	if (gone)
		;
	else if (WIFSIGNALED(status))
		snprintf(msg, size, "%s was killed by signal %d", p->what,
		         WTERMSIG(status));
	else if (WEXITSTATUS(status))
		snprintf(msg, size, "%s exited with status %d", p->what,
		         WEXITSTATUS(status));
	else if (left < 0)
		snprintf(msg, size, "%s exited, and whether it read every byte "
		         "cannot be told", p->what);
	else if (left)
		snprintf(msg, size, "%s exited without reading %d of the %llu "
		         "bytes sent to it", p->what, left,
		         (unsigned long long)p->sent);
	else if (p->err)
		snprintf(msg, size, "%s stopped reading after %llu bytes (%s)",
		         p->what, (unsigned long long)p->sent, strerror(p->err));
	else
		ok = 1;
	if (!ok && p->out[0])
		unlink(p->out);
	errno = saved;
	return ok ? 0 : -1;
}

void pipe_abort(struct pipe_out *p)
{
	int status, saved = errno;

	if (!p->pid)
		return;
	kill(p->pid, SIGKILL);
	hst.close(p->sock);
	hst.close(p->peer);
	p->sock = p->peer = -1;
	reap(p, &status, NULL);
	if (p->out[0])
		unlink(p->out);
	errno = saved;
}

void pipe_forget(struct pipe_out *p)
{
	if (p->pid) {
		hst.close(p->sock);
		hst.close(p->peer);
	}
	p->pid = 0;
	p->sock = p->peer = -1;
}

void pipe_remove_dump(struct pipe_out *p, int fd)
{
	struct stat sb;
	int saved = errno;

	if (stat(p->dump, &sb) == 0 && sb.st_dev == p->dev &&
	    sb.st_ino == p->ino) {
		if (fd >= 0 && hst.ftruncate(fd, 0)) {
			/* removed all the same */
		}
		unlink(p->dump);
	}
	errno = saved;
}

int pipe_replace_dump(struct pipe_out *p)
{
	struct stat sb;
	int saved = errno, r = -1;

	if (stat(p->dump, &sb) == 0 && sb.st_dev == p->dev &&
	    sb.st_ino == p->ino)
		r = rename(p->out, p->dump);
	if (r)
		unlink(p->out);
	errno = saved;
	return r;
}
