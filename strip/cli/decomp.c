/* Compressed input for the tools: see decomp.h. */
#include "decomp.h"
#include "../io/compressors.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>


int decomp_sniff(struct decomp *d, int in_fd)
{
	const struct io_compressor *c;
	struct stat sb;
	size_t i, n = 0;
	ssize_t got;

	memset(d, 0, sizeof *d);
	d->in_fd = in_fd;
	d->fd = d->err_fd = -1;
	d->seekable = !fstat(in_fd, &sb) && S_ISREG(sb.st_mode);
	if (d->seekable) {
		d->start = lseek(in_fd, 0, SEEK_CUR);
		if (d->start < 0)
			return -1;
	}
	while (n < DECOMP_HEAD) {
		got = d->seekable ? pread(in_fd, d->head + n, DECOMP_HEAD - n,
		                          d->start + (off_t)n)
		                  : read(in_fd, d->head + n, DECOMP_HEAD - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	d->head_len = d->seekable ? 0 : n;
	for (i = 0; (c = io_compressor(i)) != NULL; i++)
		if (n >= c->magic_len && !memcmp(d->head, c->magic, c->magic_len))
			d->prog = c->name;
	return 0;
}

/* A close-on-exec pipe whose ends are not 0, 1 or 2 (which the
 * decompressor's are dup2'd onto). */
static int pipe_above_stdio(int p[2])
{
	int i, fd;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	for (i = 0; i < 2; i++) {
		if (p[i] > 2)
			continue;
		fd = fcntl(p[i], F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			close(p[0]);
			close(p[1]);
			return -1;
		}
		close(p[i]);
		p[i] = fd;
	}
	return 0;
}

/* The feeder child: what sniffing read, then the rest of the input. A
 * write that fails means the decompressor stopped reading: its status
 * tells. A read that fails exits with its errno. */
static void feed(int in_fd, int to, const unsigned char *head, size_t n)
{
	static unsigned char buf[1u << 16];
	const unsigned char *p = head;
	ssize_t got, put;

	for (;;) {
		while (n > 0) {
			put = write(to, p, n);
			if (put < 0 && errno == EINTR)
				continue;
			if (put <= 0)
				_exit(0);
			p += put;
			n -= (size_t)put;
		}
		do
			got = read(in_fd, buf, sizeof buf);
		while (got < 0 && errno == EINTR);
		if (got < 0)
			_exit(errno > 0 && errno < 256 ? errno : EIO);
		if (got == 0)
			_exit(0);
		p = buf;
		n = (size_t)got;
	}
}

/* What gzip ("unexpected end of file"), xz ("Unexpected end of input"),
 * zstd ("premature end") and lz4 ("Unfinished stream", exit status 68)
 * say when their input was cut short. */
static int says_cut(const char *said)
{
	return strcasestr(said, "unexpected end of") ||
	       strcasestr(said, "premature end") ||
	       strcasestr(said, "unfinished stream");
}

/* -1 if the status cannot be had (errno) */
static int reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static void cannot_run(struct decomp *d, int err)
{
	snprintf(d->msg, sizeof d->msg,
	         "%s-compressed input, but %s cannot be run: %s", d->prog,
	         d->prog, strerror(err));
}

int decomp_start(struct decomp *d)
{
	char *argv[] = { (char *)d->prog, (char *)"-dc", NULL };
	posix_spawn_file_actions_t fa;
	int src = d->in_fd, feedp[2] = { -1, -1 }, outp[2], errp[2], err, status;

	d->msg[0] = 0;
	/* an inherited SIG_IGN would have the children reaped unseen */
	signal(SIGCHLD, SIG_DFL);
	if (d->seekable && lseek(d->in_fd, d->start, SEEK_SET) < 0) {
		cannot_run(d, errno);
		return -1;
	}
	if (pipe_above_stdio(outp)) {
		cannot_run(d, errno);
		return -1;
	}
	if (pipe_above_stdio(errp)) {
		err = errno;
		goto close_out;
	}
	/* the decompressor never blocks on its stderr: past the pipe's size
	 * its messages are lost, not waited for */
	fcntl(errp[1], F_SETFL, O_NONBLOCK);
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	if (!d->seekable) {
		if (pipe_above_stdio(feedp)) {
			err = errno;
			goto close_err;
		}
		d->feeder = fork();
		if (d->feeder < 0) {
			err = errno;
			d->feeder = 0;
			goto close_feed;
		}
		if (d->feeder == 0) {
			/* hold no end of anyone else's pipe: the output's
			 * reader sees its end when the tool ends */
			if (d->in_fd != 1)
				close(1);
			close(feedp[0]);
			close(outp[0]);
			close(outp[1]);
			close(errp[0]);
			close(errp[1]);
			feed(d->in_fd, feedp[1], d->head, d->head_len);
		}
		close(feedp[1]);
		feedp[1] = -1;
		src = feedp[0];
	}
	if ((err = posix_spawn_file_actions_init(&fa)) != 0)
		goto stop_feeder;
	err = posix_spawn_file_actions_adddup2(&fa, src, 0);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
	if (!err)
		err = posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	if (!err)
		err = posix_spawnp(&d->pid, d->prog, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		d->pid = 0;
		goto stop_feeder;
	}
	if (feedp[0] >= 0)
		close(feedp[0]);
	close(outp[1]);
	close(errp[1]);
	d->fd = outp[0];
	d->err_fd = errp[0];
	return 0;
stop_feeder:
	if (d->feeder) {
		kill(d->feeder, SIGKILL);
		reap(d->feeder, &status);
		d->feeder = 0;
	}
close_feed:
	if (feedp[0] >= 0)
		close(feedp[0]);
	if (feedp[1] >= 0)
		close(feedp[1]);
close_err:
	close(errp[0]);
	close(errp[1]);
close_out:
	close(outp[0]);
	close(outp[1]);
	cannot_run(d, err);
	return -1;
}

/* The first line of what the decompressor said, trimmed, into out. */
static void first_line(int fd, char *out, size_t size)
{
	char buf[1024];
	ssize_t got;
	size_t n = 0;
	char *p, *e;

	out[0] = 0;
	while (n < sizeof buf - 1) {
		got = read(fd, buf + n, sizeof buf - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	buf[n] = 0;
	for (p = buf; *p; p = e) {
		while (*p == '\n' || *p == '\r' || *p == ' ' || *p == '\t')
			p++;
		e = p + strcspn(p, "\r\n");
		if (e > p) {
			while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			snprintf(out, size, "%.*s", (int)(e - p), p);
			return;
		}
	}
}

int decomp_finish(struct decomp *d, int stop)
{
	int status = 0, fstatus = 0, rc = 0, werr = 0;
	char said[256];

	if (!d->pid)
		return 0;
	d->cut = 0;
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	if (stop) {
		kill(d->pid, SIGKILL);
		if (d->feeder)
			kill(d->feeder, SIGKILL);
	}
	if (reap(d->pid, &status))
		werr = errno;
	d->pid = 0;
	if (d->feeder) {
		/* the decompressor is gone: what the feeder has left to copy
		 * (it may wait on a pipe that never ends) is of no use */
		kill(d->feeder, SIGKILL);
		if (reap(d->feeder, &fstatus) && !werr)
			werr = errno;
		d->feeder = 0;
	}
	first_line(d->err_fd, said, sizeof said);
	close(d->err_fd);
	d->err_fd = -1;
	if (stop)
		return 0;
	if (werr) {
		snprintf(d->msg, sizeof d->msg, "%s -dc: wait: %s", d->prog,
		         strerror(werr));
		rc = -1;
	} else if (WIFEXITED(fstatus) && WEXITSTATUS(fstatus)) {
		snprintf(d->msg, sizeof d->msg, "read: %s",
		         strerror(WEXITSTATUS(fstatus)));
		rc = -1;
	} else if (WIFSIGNALED(status) || WEXITSTATUS(status)) {
		int n = snprintf(d->msg, sizeof d->msg, "%s -dc failed (%s %d)",
		                 d->prog, WIFSIGNALED(status) ? "killed by signal"
		                                              : "exit status",
		                 WIFSIGNALED(status) ? WTERMSIG(status)
		                                     : WEXITSTATUS(status));
		if (said[0] && n > 0 && (size_t)n < sizeof d->msg)
			snprintf(d->msg + n, sizeof d->msg - (size_t)n, ": %s", said);
		d->cut = WIFEXITED(status) && says_cut(said);
		rc = -1;
	}
	return rc;
}

off_t decomp_pos(const struct decomp *d)
{
	return d->pid && d->seekable ? lseek(d->in_fd, 0, SEEK_CUR) : -1;
}
