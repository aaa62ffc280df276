/*
 * One dump's session, its life and its output: it starts (and starts
 * over), is fed the runtime's bytes through the strip engine at the
 * runtime's own (virtual) offsets, and ends. The engine's output goes to
 * the file through the session's output buffer, flushed before each call
 * returns, so a crash loses nothing the runtime thinks it wrote; with
 * HPROFSTRIP_COMPRESS or _FILTER it goes to a child too (pipe.c), which
 * is given up if the disk fills. What each call of the runtime's does to
 * a session is in calls.c; which fd is which session, fdtable.c.
 */
#include "session.h"
#include "libc.h"
#include "say.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t hst_born_ms;

/* ---- output ------------------------------------------------------------ */

int session_flush(struct session *s, int fd)
{
	s->ob.fd = fd;
	return io_ob_flush(&s->ob);
}

/* Says once that the engine fell back to copying verbatim. */
void report(struct session *s)
{
	if (!s->st.fallback || s->warned)
		return;
	s->warned = 1;
	/* (a gzip stream never reaches the engine: the header's vetting
	 * lets it go, calls.c) */
	say("hprofstrip: %s: offset %llu: %s; writing the rest %s",
	    s->path, (unsigned long long)s->st.fallback_off,
	    hs_strerror(s->st.fallback),
	    hs_fallback_zeros(&s->st) ? "as zeros (HPROFSTRIP_REDACT: nothing "
	                                "goes out unredacted)" : "unchanged");
}


/* The engine's sink with a child: the file gets every byte (the plain
 * stripped dump, should the child fail), the child too. */
static int tee_write(void *user, const void *buf, size_t len)
{
	struct session *s = user;

	if (s->piped)
		pipe_send(&s->pm->pipe, buf, len);
	return io_ob_write(&s->ob, buf, len);
}

/* The engine's sink for a gzip dump: the compressor alone (the file
 * holds the runtime's stream). */
static int gz_sink(void *user, const void *buf, size_t len)
{
	struct session *s = user;

	if (s->piped)
		pipe_send(&s->pm->pipe, buf, len);
	return 0;
}

/* A FIFO's writer: no offsets, the bytes in order (a raw write: the
 * shim's own write() would come back here). */
ssize_t fifo_write(void *user, int fd, const void *buf, size_t len,
                   int64_t off)
{
	(void)user;
	(void)off;
	return syscall(SYS_write, fd, buf, len);
}

/* The dump's writer: the real pwrite, except that a full disk while a
 * child compresses gives the child up first (its output removed, so its
 * room is freed) and tries again: compressing never makes a dump that
 * fits on the disk fail. user: the session (NULL: the child is never
 * given up). */
static ssize_t dump_pwrite(void *user, int fd, const void *buf, size_t len,
                           int64_t off)
{
	ssize_t n = hst.pwrite(fd, buf, len, off);
	struct session *s = user;
	int e = errno;

	if (n >= 0 || (e != ENOSPC && e != EDQUOT) || !s || !s->piped)
		return n;
	s->piped = 0;
	pipe_abort(&s->pm->pipe);
	n = hst.pwrite(fd, buf, len, off);
	if (n >= 0)
		say("hprofstrip: %s: %s while %s wrote too: it is given up, "
		    "and its output removed to make room; the dump goes on, "
		    "uncompressed, in %s", s->path, strerror(e),
		    s->pm->pipe.what, s->pm->pipe.dump);
	else
		say("hprofstrip: %s: %s while %s wrote too: it is given up "
		    "and its output removed, but the disk is still full: the "
		    "dump is cut short", s->path, strerror(e),
		    s->pm->pipe.what);
	return n;  /* say() kept the retry's errno */
}

/* The dump's first write, to fd: its child starts (pipe_pending). */
void start_child(struct session *s, int fd)
{
	s->pipe_pending = 0;
	s->piped = pipe_start(&s->pm->pipe, fd) == 1;
}


/* ---- life ------------------------------------------------------------- */

void session_start(struct session *s, int kind, const char *path,
                   const char *base, unsigned idsize, int dirfd,
                   const char *dump, int vet, int fifo)
{
	struct hs_config cfg = { .flags = HS_OPEN_LEN | HS_FALLBACK,
	                         .idsize = idsize };
	struct hs_sink sink = { io_ob_write, io_ob_patch, NULL, NULL };
	struct hs_keep strings;
	unsigned keep;
	struct hs_redact red;
	struct hs_names names;
	struct pipe_mem *pm;
	static int told_bool;

	if (policy()->bool_bad[0] &&
	    !__atomic_exchange_n(&told_bool, 1, __ATOMIC_RELAXED))
		say("hprofstrip: %s: not a yes/no value (1/0, yes/no, "
		    "true/false, on/off); its default is used",
		    policy()->bool_bad);
	if (kind == S_SEGMENT)
		cfg.flags |= HS_NO_HEADER;
	/* a 1.0.3 dump's zygote and image objects go (the engine leaves
	 * other versions alone) */
	if (kind == S_MAIN && policy()->app_only)
		cfg.flags |= HS_APP_ONLY;
	sink.user = &s->ob;
	/* (kind and base are read under the table's lock, which a restart
	 * does not hold: it leaves them as they are) */
	if (s->kind != kind)
		s->kind = kind;
	s->refs = 1;
	/* (read before any lock is taken: atomic) */
	__atomic_store_n(&s->pid, getpid(), __ATOMIC_RELAXED);
	snprintf(s->path, sizeof s->path, "%s", path);
	if (strcmp(s->base, base))
		snprintf(s->base, sizeof s->base, "%s", base);
	s->voff = s->ext = 0;
	s->warned = s->trunc_at_end = 0;
	s->seg_in = s->seg_out = s->seg_arrays = 0;
	s->seg_withheld = 0;
	s->main = NULL;
	s->vet = kind == S_MAIN && vet != VET_NONE;
	__atomic_store_n(&s->segments, 0, __ATOMIC_RELAXED);
	s->vet_stamp = vet == VET_STAMP;
	s->hdr_len = 0;
	s->fifo = fifo;
	io_ob_init(&s->ob, fifo ? fifo_write : dump_pwrite, s, -1, 0, s->buf,
	           sizeof s->buf);
	if ((keep = keep_tables(s, kind, &strings)) != 0) {
		cfg.flags |= keep;
		cfg.keep = &strings;
	}
	/* (the engine drops keep-strings when it redacts; a sealed segment
	 * is redacted by its main, at the merge) */
	s->sealed = kind == S_SEGMENT && policy()->redact;
	s->nonce = 0;
	s->nseals = 0;
	if (!s->sealed && redact_tables(s, &red)) {
		cfg.flags |= HS_REDACT;
		cfg.redact = &red;
	}
	if (names_tables(s, kind, &names)) {
		cfg.flags |= HS_REDACT_NAMES;
		cfg.names = &names;
	}
	/* the histogram's tables after the others': their lines come
	 * first when memory is short */
	if (kind == S_MAIN)
		histo_path(s, dirfd);
	if ((cfg.histo = histo_tables(s, kind)) != NULL)
		cfg.flags |= HS_HISTO;
	s->piped = s->pipe_pending = 0;
	s->gz = s->gz_pending;
	s->gz_pending = s->gz_failed = 0;
	s->gz_in = s->raw_len = 0;
	s->gz_file = (struct file_id){ 0, 0 };
	s->gz_judged = 0;
	s->gz_head_len = 0;
	if (kind == S_MAIN && dump != s->dump &&
	    (dump[0] == '/' || !policy_absolute(dirfd, dump, s->dump,
	                                        sizeof s->dump)))
		snprintf(s->dump, sizeof s->dump, "%s", dump);
	if ((pm = pipe_tables(s, kind, fifo)) != NULL && fifo) {
		/* a FIFO is a stream: segments, never patched */
		cfg.flags |= HS_STREAM;
		cfg.seg_buf = pm->seg;
	} else if (pm) {
		/* nothing is ever patched: the child reads it as it comes */
		pipe_prepare(&pm->pipe, dirfd, dump);
		pm->pipe.gz_level = s->gz ? s->gz_level : 0;
		cfg.flags |= HS_STREAM;
		cfg.seg_buf = pm->seg;
		sink.write = s->gz ? gz_sink : tee_write;
		sink.user = s;
		s->pipe_pending = 1;  /* started at the first write */
	}
	hs_init(&s->st, &cfg, &sink);
}

void session_restart(struct session *s)
{
	int refs = s->refs;
	uint64_t voff = s->voff;
	struct session *main = s->main;
	char path[sizeof s->path], base[sizeof s->base], dump[PATH_MAX];
	char histo[sizeof s->histo_path];
	int vet = s->vet_stamp ? VET_STAMP : s->kind == S_MAIN ? VET_MAGIC
	                                                      : VET_NONE;

	uint64_t nonce = s->nonce;
	unsigned nseals = s->nseals;

	memcpy(path, s->path, sizeof path);
	memcpy(base, s->base, sizeof base);
	memcpy(histo, s->histo_path, sizeof histo);
	map_close(s, MAP_REMOVE);  /* written anew from the first name */
	if (s->gz) {
		inflate_stop(s->inf, 0);  /* its header is judged again */
		s->nonce = 0;
	}
	/* a child started over: the first child's output goes */
	if (s->piped)
		pipe_abort(&s->pm->pipe);
	if (s->pm && (s->piped || s->pipe_pending))
		memcpy(dump, s->pm->pipe.dump, sizeof dump);
	else  /* (the path as opened, absolute: s->path may be cut) */
		snprintf(dump, sizeof dump, "%s",
		         s->kind == S_MAIN && s->dump[0] ? s->dump : path);
	session_start(s, s->kind, path, base, s->st.idsize, AT_FDCWD, dump,
	              vet, s->fifo);
	/* the histogram goes where the first start put it (dirfd's) */
	memcpy(s->histo_path, histo, sizeof histo);
	s->refs = refs;
	s->voff = voff;  /* ftruncate leaves the file position alone */
	s->main = main;
	/* a sealed segment keeps its key stream, a main its segments */
	s->nonce = nonce;
	s->nseals = nseals;
}
