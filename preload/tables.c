/*
 * A session's tables, by feature: mapped at the slot's first dump that
 * wants them, then reused (never per object, never per dump), zeroed for
 * each dump here. HPROFSTRIP_KEEP's (strings, bitmaps), HPROFSTRIP_REDACT's
 * (the layouts) and its names map beside the dump (=names), and the
 * compressor's or filter's (the segment buffer and the child's state).
 * The histogram's are histofile.c's.
 */
#include "session.h"
#include "libc.h"
#include "say.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* HPROFSTRIP_KEEP=strings: fixed tables, one set per session, mapped once
 * (not per object, not per dump). */
struct strings_mem {
	uint64_t pending[HS_KEEP_PENDING];
	struct hs_class classes[HS_KEEP_CLASSES];
	unsigned char hold[HS_KEEP_HOLD];  /* the array held back */
};

/* size bytes of zeroed memory for a session's tables, mapped once (not
 * per object, not per dump); NULL if there is none, said once a process
 * (what: the rest of the line after the path). errno kept. */
void *tables_map(size_t size, int *told, const char *path,
                 const char *what)
{
	int saved = errno;
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		m = NULL;
		if (!__atomic_exchange_n(told, 1, __ATOMIC_RELAXED))
			say("hprofstrip: %s: %s", path, what);
	}
	errno = saved;
	return m;
}

/* HPROFSTRIP_KEEP=strings, bitmaps or both: the engine's tables for s's
 * next dump, zeroed, and the flags (HS_KEEP_*); 0 if they cannot be had
 * (said once) or are not wanted. Under HPROFSTRIP_REDACT nothing is kept
 * (said once): redaction fails closed. Segments (JDK 22 .pN files) have
 * no class names of their own: they are stripped whole. */
unsigned keep_tables(struct session *s, int kind, struct hs_keep *k)
{
	static int told_bad, told_mem, told_redact;
	const struct policy *p = policy();
	unsigned flags = (p->keep_strings ? HS_KEEP_STRINGS : 0u) |
	                 (p->keep_bitmaps ? HS_KEEP_BITMAPS : 0u);

	if (p->keep_bad[0] && !__atomic_exchange_n(&told_bad, 1, __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_KEEP: '%s' is not known (only "
		    "'strings' and 'bitmaps' are); ignored", p->keep_bad);
	if (!flags || kind != S_MAIN)
		return 0;
	if (p->redact) {
		if (!__atomic_exchange_n(&told_redact, 1, __ATOMIC_RELAXED))
			say("hprofstrip: HPROFSTRIP_KEEP=%s is ignored: "
			    "HPROFSTRIP_REDACT removes what %s hold",
			    p->keep_strings && p->keep_bitmaps ? "strings,bitmaps"
			    : p->keep_strings ? "strings" : "bitmaps",
			    p->keep_bitmaps ? "Strings and bitmaps (pictures are "
			    "user data)" : "Strings");
		return 0;
	}
	if (!s->strings &&
	    !(s->strings = tables_map(sizeof *s->strings, &told_mem, s->path,
	                              "no memory for HPROFSTRIP_KEEP; "
	                              "every array stripped")))
		return 0;
	/* a dump before this one used them (the hold buffer needs no
	 * zeroing) */
	memset(s->strings->pending, 0, sizeof s->strings->pending);
	memset(s->strings->classes, 0, sizeof s->strings->classes);
	*k = (struct hs_keep){
		.pending = s->strings->pending, .pending_slots = HS_KEEP_PENDING,
		.classes = s->strings->classes, .class_slots = HS_KEEP_CLASSES,
		.hold = s->strings->hold, .hold_size = HS_KEEP_HOLD,
	};
	return flags;
}

/* HPROFSTRIP_REDACT: the layout tables, one set per session, mapped once. */
struct redact_mem {
	struct hs_layout classes[HS_REDACT_CLASSES];
	unsigned char types[HS_REDACT_TYPES];
	unsigned char gather[HS_REDACT_GATHER];
	uint64_t fw_names[HS_REDACT_FW], fw_classes[HS_REDACT_FW];
	struct hs_flat flat[HS_REDACT_FLAT];  /* the fast path's caches */
	struct hs_patch patch[HS_REDACT_PATCHES];
	struct hs_sized sized[HS_REDACT_SIZED];
	unsigned char map_buf[64u << 10];  /* =names: the map's buffer */
};

/* HPROFSTRIP_REDACT=names: the names map beside the dump (PATH.names),
 * created at the first name tokenized, so a file that turns out not to be
 * a dump gets none; a new file, 0600, never an existing one (an earlier
 * dump's map, a symlink): then the first free name of PATH.names.1,
 * .2, ... (s->map_path). Without it (said once) names are tokenized all
 * the same. errno kept. */
static void map_open(struct session *s)
{
	int saved = errno;

	s->map_failed = 1;
	if (!s->red)
		return;  /* no memory: said already */
	snprintf(s->map_path, sizeof s->map_path, "%s.names",
	         s->base[0] ? s->base : s->path);
	s->map_fd = io_create_free(s->map_path, sizeof s->map_path, 0600);
	if (s->map_fd < 0)
		say("hprofstrip: %s: cannot create %s: %s; names are tokenized "
		    "all the same, with no map to give them back", s->path,
		    s->map_path, strerror(errno));
	else {
		io_ob_init(&s->map_ob, plain_pwrite, NULL, s->map_fd, 0,
		           s->red->map_buf, sizeof s->red->map_buf);
		s->map_failed = 0;
	}
	errno = saved;
}

/* hs_names.original: the map opened at the first name, then written. */
static void map_original(void *user, unsigned idsize, uint64_t id,
                         uint32_t len, uint32_t at, const unsigned char *text,
                         size_t n)
{
	struct session *s = user;

	if (s->map_fd < 0 && !s->map_failed)
		map_open(s);
	if (s->map_fd >= 0)
		io_map_original(&s->map, idsize, id, len, at, text, n);
}

/* The map closed (how: MAP_*). errno kept. */
void map_close(struct session *s, int how)
{
	int saved = errno;

	/* (a session never started has no map: its map_fd is no fd) */
	if (s->map.ob != &s->map_ob || s->map_fd < 0)
		return;
	/* only while its name is still the file made for it */
	if (how == MAP_REMOVE)
		io_unlink_made(s->map_path, s->map_fd);
	if (how == MAP_DONE) {
		uint64_t cut = io_map_end(&s->map, s->st.idsize,
		                          s->st.timestamp);
		/* the dump was cut inside a name: the map ends before it */
		if (!io_ob_flush(&s->map_ob) && cut != UINT64_MAX &&
		    hst.ftruncate(s->map_fd, (int64_t)cut)) {
			/* the map's last record stays cut: hprofrestore says */
		}
		if (s->map_ob.err)
			say("hprofstrip: %s: write failed: %s", s->map_path,
			    strerror(s->map_ob.err));
	}
	hst.close(s->map_fd);
	s->map_fd = -1;
	errno = saved;
}

/* HPROFSTRIP_REDACT=names: 1 if s's next dump (kind) tokenizes names, the
 * engine's configuration in n; a .pN file holds no names. The map is
 * opened at the first name (map_original). */
int names_tables(struct session *s, int kind, struct hs_names *n)
{
	static int told_key;

	s->map_fd = -1;
	s->map_failed = 0;
	memset(&s->map, 0, sizeof s->map);
	s->map.ob = &s->map_ob;
	if (kind != S_MAIN || policy()->redact != 2)
		return 0;
	memset(n, 0, sizeof *n);
	if (io_names_key(policy()->names_key, n->key) < 0 &&
	    !__atomic_exchange_n(&told_key, 1, __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_NAMES_KEY: not 32 hex digits; "
		    "a random key is used");
	n->original = map_original;
	n->user = s;
	return 1;
}

/* 1 if s's next dump is redacted, its tables (zeroed) in r; without them
 * (no memory, said once) every instance's fields go out as zeros whole. A
 * .pN file of a JDK 22+ parallel dump has tables of its own: the VM
 * dumper's holds the class dumps before its objects, and is exact; the
 * other dumpers' objects, in files with no class dumps, are withheld. */
int redact_tables(struct session *s, struct hs_redact *r)
{
	static int told_bad, told_mem;
	const struct policy *p = policy();

	memset(r, 0, sizeof *r);
	if (!p->redact)
		return 0;
	if (p->redact_bad[0] &&
	    !__atomic_exchange_n(&told_bad, 1, __ATOMIC_RELAXED))
		say("hprofstrip: HPROFSTRIP_REDACT: '%s' is not known (the "
		    "levels: values, names); the strongest is used: names",
		    p->redact_bad);
	if (!s->red && !(s->red = tables_map(sizeof *s->red, &told_mem, s->path,
	                                     "no memory for HPROFSTRIP_REDACT's "
	                                     "tables; every instance's fields "
	                                     "are zeroed, references too")))
		return 1;
	memset(s->red->classes, 0, sizeof s->red->classes);
	memset(s->red->fw_names, 0, sizeof s->red->fw_names);
	memset(s->red->fw_classes, 0, sizeof s->red->fw_classes);
	*r = (struct hs_redact){
		.classes = s->red->classes, .class_slots = HS_REDACT_CLASSES,
		.types = s->red->types, .types_size = HS_REDACT_TYPES,
		.gather = s->red->gather, .gather_size = HS_REDACT_GATHER,
		.fw_names = s->red->fw_names, .fw_classes = s->red->fw_classes,
		.fw_slots = HS_REDACT_FW,
		.flat = s->red->flat, .flat_slots = HS_REDACT_FLAT,
		.patch = s->red->patch, .patch_slots = HS_REDACT_PATCHES,
		.sized = s->red->sized, .sized_slots = HS_REDACT_SIZED };
	return 1;
}

/* HPROFSTRIP_COMPRESS or _FILTER, or a FIFO: the segment buffer and the
 * child's state for s's next dump; NULL if not wanted or not to be had
 * (said). */
struct pipe_mem *pipe_tables(struct session *s, int kind, int fifo)
{
	static int told_mem;

	if (kind != S_MAIN || (!fifo && !s->gz && !pipe_wanted()))
		return NULL;
	if (!s->pm)
		s->pm = tables_map(sizeof *s->pm, &told_mem, s->path,
		                   "no memory for a compressor; the dump is "
		                   "written uncompressed");
	return s->pm;
}