/*
 * A session's bytes and its end (session.h): the runtime's writes fed
 * through the engine at the runtime's own (virtual) offsets (gaps as
 * zeros, rewrites of bytes fed already), or kept raw (rawdump.c); and
 * the end: finished at the last close (the held bytes, the child waited
 * for, the histogram and the summary), let go, lost behind the shim's
 * back, or forgotten in a forked child. Below it: session.c (a session's
 * start and its output), rawdump.c, tables.c, histofile.c.
 */
#include "session.h"
#include "libc.h"
#include "say.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Feeds zeros up to input offset at (the runtime wrote past its end). */
static void gap(struct session *s, uint64_t at)
{
	static const unsigned char zeros[4096];

	while (s->st.in_off < at && !s->st.err) {
		uint64_t n = at - s->st.in_off;
		hs_feed(&s->st, zeros, n < sizeof zeros ? (size_t)n : sizeof zeros);
	}
}

/* The dump's child has had every byte: wait for it. On success the
 * plain copy goes (the file the runtime opened, emptied and removed), and
 * the child's output is all there is; else the copy is the dump, and the
 * child's output is removed. fd: the dump's, or -1 (closed already). */
static void end_child(struct session *s, int fd)
{
	struct pipe_out *p = &s->pm->pipe;
	char why[256];

	s->piped = 0;
	if (s->gz) {
		gz_end_child(s, fd);
		return;
	}
	if (pipe_finish(p, why, sizeof why, &s->lock)) {
		if (s->ob.err || fd < 0)
			say("hprofstrip: %s: %s; %s holds what was written "
			    "of the stripped dump, not all of it", s->path,
			    why, p->dump);
		else
			say("hprofstrip: %s: %s; the stripped dump is in %s, "
			    "uncompressed", s->path, why, p->dump);
	} else if (s->ob.err || s->st.err) {
		/* the copy is as damaged as what the child got: keep both */
	} else if (fd >= 0) {
		pipe_remove_dump(p, fd);
		if (p->out[0])
			say("hprofstrip: %s: %s wrote %s", s->path, p->what, p->out);
		else
			say("hprofstrip: %s: %s took it (%llu bytes); %s removed",
			    s->path, p->what, (unsigned long long)p->sent, p->dump);
	}
}

/* The bytes held while vetting go to the file as written (at 0), and
 * fd's position where the program left it. */
static void put_held(struct session *s, int fd)
{
	int saved = errno;

	if (s->hdr_len && io_pwrite_full(s->fifo ? fifo_write : plain_pwrite, NULL,
	                                 fd, s->hdr, s->hdr_len, 0))
		s->warned = 1;  /* as the real write would have, quietly */
	if (!s->fifo && s->voff &&
	    hst.lseek(fd, (int64_t)s->voff, SEEK_SET) < 0) {
		/* a file that cannot seek was not tracked */
	}
	s->hdr_len = 0;
	errno = saved;
}

void session_finish(struct session *s, int fd)
{
	if (s->vet) {
		/* closed before its header was whole: what was held is
		 * written as it came */
		put_held(s, fd);
		return;
	}
	if (!s->st.in_off && !s->seg_in && !s->ob.len && !s->ext &&
	    !s->raw_len) {
		/* nothing was written (touch, an open to check a name): the
		 * file stays as it was, old content and all */
		return;
	}
	if (s->sealed) {
		/* its main reads it back at the merge: nothing to end here */
		put_raw(s, fd, NULL, 0, s->ext);
		session_flush(s, fd);
		return;
	}
	/* a gzip dump: what gzip -dc still holds; not stripped after all,
	 * the file as written is the dump (or, failed closed, none) */
	if (s->gz && gz_end(s, fd)) {
		session_flush(s, fd);
		if (s->gz_failed)
			gz_remove(s, fd);
		return;
	}
	/* the dump's last bytes: its fds are gone from the table, and a full
	 * disk now gives no child up (end_child says what came of both) */
	s->ob.user = NULL;
	gap(s, s->ext);
	hs_finish(&s->st);
	session_flush(s, fd);
	report(s);
	if (s->trunc_at_end && !s->ob.err &&
	    hst.ftruncate(fd, (int64_t)io_ob_size(&s->ob))) {
		/* the dump is still whole; old bytes remain after it */
	}
	/* the histogram of what was read: up to the engine's first error
	 * (a cut, malformed or unwritable dump: marked cut there) */
	if (s->kind == S_MAIN)
		histo_end(s, s->st.fallback || s->st.err,
		          s->st.fallback ? s->st.fallback_off : s->st.err_off);
	map_close(s, MAP_DONE);
	if (s->kind == S_SEGMENT && s->main) {
		/* the main's counts are the main's lock's (lock order: a
		 * segment, then its main); a main that has ended has said
		 * them */
		struct session *m = s->main;
		pthread_mutex_lock(&m->lock);
		if (m->kind == S_MAIN &&
		    !__atomic_load_n(&m->leaving, __ATOMIC_RELAXED)) {
			m->seg_in += s->st.in_off;
			m->seg_out += s->st.out_off;
			m->seg_arrays += s->st.arrays;
			m->seg_withheld += s->st.withheld;
		}
		pthread_mutex_unlock(&m->lock);
	} else if (s->kind == S_MAIN) {
		session_summary(s);
	}
	if (s->piped)
		end_child(s, fd);
	else if (s->gz && s->nonce) {
		/* a gzip dump whose compressor was given up (a full disk):
		 * its file holds the runtime's stream, sealed */
		say("hprofstrip: %s: HPROFSTRIP_REDACT cannot keep the "
		    "runtime's gzip stream: the file is removed", s->path);
		gz_remove(s, fd);
	}
	/* HPROFSTRIP_SUSPECTS: the analysis of the file as it now is */
	suspects_start(s);
	s->piped = s->pipe_pending = 0;
}

void session_let_go(struct session *s, int fd)
{
	put_held(s, fd);
	s->vet = 0;
}

void session_lost(struct session *s)
{
	/* a gzip dump under HPROFSTRIP_REDACT: its file is sealed bytes no
	 * one can read back, unless it was given back as not a dump */
	int gz_remove_it = s->gz && s->nonce &&
	                   (s->gz_judged >= 0 || s->gz_failed);

	if (s->gz)
		/* (its inflater may not have had every byte yet: the count
		 * said is the runtime's) */
		say("hprofstrip: %s: closed behind the shim's back after "
		    "%llu bytes of its gzip stream; %s", s->path,
		    (unsigned long long)s->raw_len, gz_remove_it ?
		    "HPROFSTRIP_REDACT cannot keep the runtime's stream: the "
		    "file is removed" : "the dump is kept as the runtime "
		    "wrote it");
	else
		say("hprofstrip: %s: closed behind the shim's back; the "
		    "dump ends at %llu bytes in", s->path,
		    (unsigned long long)s->st.in_off);
	/* the shim never saw the dump's end: the histogram is of the bytes
	 * that came, marked cut there */
	if (s->kind == S_MAIN)
		histo_end(s, 1, s->st.in_off);
	map_close(s, MAP_DONE);
	if (s->gz)
		inflate_stop(s->inf, 0);
	if (s->piped)
		end_child(s, -1);
	if (gz_remove_it)
		gz_remove(s, -1);
}

void session_forget(struct session *s)
{
	/* the parent's child reads the parent's dump: our copy of
	 * its stdin must not keep it open */
	if (s->piped)
		pipe_forget(&s->pm->pipe);
	if (s->gz)
		inflate_stop(s->inf, 1);
	map_close(s, MAP_DROP);
	s->piped = s->pipe_pending = 0;
	s->kind = S_FREE;
	s->leaving = 0;  /* (ending in the parent's thread, not here) */
}

/* ---- the engine feed --------------------------------------------------- */

/* A rewrite of bytes fed already: the engine applies what it can (JDK 8's
 * length patch, bytes that went out unchanged); what it cannot is said
 * once. */
static void rewrite(struct session *s, const void *buf, size_t len,
                    uint64_t at)
{
	enum hs_err e = hs_rewrite(&s->st, at, buf, len);

	if (s->warned || s->ob.err || (e != HS_E_REWRITE && e != HS_E_PATCH))
		return;
	s->warned = 1;
	if (e == HS_E_PATCH)
		say("hprofstrip: %s: length patch at offset %llu does not fit "
		    "the record", s->path, (unsigned long long)at);
	else
		say("hprofstrip: %s: a rewrite of %zu bytes at offset %llu "
		    "falls on data already stripped and cannot be applied; the "
		    "dump is damaged", s->path, len, (unsigned long long)at);
}

int session_put(struct session *s, int fd, const void *buf, size_t len,
                uint64_t at)
{
	s->ob.fd = fd;
	if (s->ob.err)
		return s->ob.err;
	if (s->sealed)
		return put_raw(s, fd, buf, len, at);
	if (s->gz)
		return put_gz(s, fd, buf, len, at);
	if (s->pipe_pending)
		start_child(s, fd);
	if (at > s->st.in_off)
		gap(s, at);
	if (at < s->st.in_off) {
		/* a rewrite, maybe going on past the end */
		size_t old = at + len > s->st.in_off ? (size_t)(s->st.in_off - at)
		                                     : len;
		rewrite(s, buf, old, at);
		buf = (const unsigned char *)buf + old;
		len -= old;
	}
	if (len)
		hs_feed(&s->st, buf, len);
	report(s);
	return s->ob.err;
}

int session_feed(struct session *s, int fd, const void *buf, size_t len,
                 uint64_t at)
{
	int e = session_put(s, fd, buf, len, at);

	return e ? e : session_flush(s, fd) ? s->ob.err : 0;
}
