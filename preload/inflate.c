/* A runtime's gzip dump inflated by igzip -dc or gzip -dc: see inflate.h. */
#include "inflate.h"
#include "libc.h"
#include "pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int inflate_start(struct inflater *f)
{
	/* igzip (ISA-L) inflates about twice as fast as gzip: preferred
	 * when it is on PATH */
	char *fast[] = { "igzip", "-dcq", NULL }, *argv[] = { "gzip", "-dc", NULL };
	int sv[2], po[2], rc, saved = errno;

	f->pid = 0;
	f->in = f->out = -1;
	f->status = f->reaped = f->err = 0;
	f->fed = f->got = 0;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		rc = errno;
		goto out;
	}
	if (pipe2(po, O_CLOEXEC)) {
		rc = errno;
		hst.close(sv[0]);
		hst.close(sv[1]);
		goto out;
	}
	rc = pipe_spawn(&f->pid, NULL, fast, environ, sv[1], po[1], 1);
	if (rc == ENOENT)
		rc = pipe_spawn(&f->pid, NULL, argv, environ, sv[1], po[1], 1);
	f->what = rc ? "gzip -dc" : "igzip -dc";
	if (!rc && !f->pid)
		rc = ECHILD;
	hst.close(sv[1]);
	hst.close(po[1]);
	if (rc) {
		f->pid = 0;
		hst.close(sv[0]);
		hst.close(po[0]);
		goto out;
	}
	f->in = sv[0];
	f->out = po[0];
	/* never blocks the runtime on one side while the other fills */
	hst.fcntl(f->out, F_SETFL, O_NONBLOCK);
out:
	errno = saved;
	return rc;
}

/* Has the child exited (reaped now)? */
static int gone(struct inflater *f)
{
	pid_t r;

	if (f->reaped)
		return 1;
	do
		r = waitpid(f->pid, &f->status, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0)
		f->status = -1;
	f->reaped = 1;
	return 1;
}

/* What the child has written so far, to put; -1 at its end of file. */
static int drain(struct inflater *f, inflate_put put, void *user)
{
	for (;;) {
		ssize_t n = hst.read(f->out, f->buf, sizeof f->buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0) {
			f->err = errno;
			return -1;
		}
		if (n == 0)
			return -1;
		f->got += (uint64_t)n;
		put(user, f->buf, (size_t)n);
	}
}

int inflate_push(struct inflater *f, const void *buf, size_t len,
                 inflate_put put, void *user)
{
	const unsigned char *b = buf;
	int saved = errno;

	while (len && !f->err) {
		struct pollfd pf[2] = { { f->in, POLLOUT, 0 },
		                        { f->out, POLLIN, 0 } };
		ssize_t n = send(f->in, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			b += n;
			len -= (size_t)n;
			f->fed += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			f->err = errno;
			break;
		}
		/* no room: take what it wrote back, or wait for either */
		if (drain(f, put, user) < 0) {
			if (!f->err)
				f->err = EPIPE;  /* it ended early */
			break;
		}
		if (poll(pf, 2, 100) < 0 && errno != EINTR)
			f->err = errno;
		else if (!pf[0].revents && !pf[1].revents && gone(f))
			f->err = EPIPE;
	}
	if (!f->err && drain(f, put, user) < 0 && !f->err)
		f->err = EPIPE;
	errno = saved;
	return f->err;
}

int inflate_end(struct inflater *f, inflate_put put, void *user, char *msg,
                size_t size)
{
	int saved = errno, ok = 0, st = 0;
	pid_t r = 0;

	if (!f->pid)
		return -1;
	hst.close(f->in);
	f->in = -1;
	while (!f->err) {
		struct pollfd pf = { f->out, POLLIN, 0 };
		if (drain(f, put, user) < 0)
			break;
		if (poll(&pf, 1, -1) < 0 && errno != EINTR)
			f->err = errno;
	}
	hst.close(f->out);
	f->out = -1;
	if (f->reaped)
		st = f->status;
	else
		do
			r = waitpid(f->pid, &st, 0);
		while (r < 0 && errno == EINTR);
	f->pid = 0;
	if (r < 0 || st == -1)
		snprintf(msg, size, "%s: its exit status is unknown", f->what);
	else if (WIFSIGNALED(st))
		snprintf(msg, size, "%s was killed by signal %d", f->what,
		         WTERMSIG(st));
	else if (WEXITSTATUS(st))
		snprintf(msg, size, "%s exited with status %d (the gzip "
		         "stream is damaged)", f->what, WEXITSTATUS(st));
	else if (f->err)
		snprintf(msg, size, "%s failed after %llu bytes (%s)", f->what,
		         (unsigned long long)f->fed, strerror(f->err));
	else
		ok = 1;
	errno = saved;
	return ok ? 0 : -1;
}

void inflate_stop(struct inflater *f, int forget)
{
	int st, saved = errno;

	if (!f->pid)
		return;
	if (!forget)
		kill(f->pid, SIGKILL);
	hst.close(f->in);
	hst.close(f->out);
	f->in = f->out = -1;
	if (!forget && !f->reaped)
		while (waitpid(f->pid, &st, 0) < 0 && errno == EINTR)
			;
	f->pid = 0;
	errno = saved;
}
