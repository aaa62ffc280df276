/*
 * One pass over a dump's bytes into the graph (heap.h): top-level
 * records, the heap records' sub-records, the class dumps' field lists,
 * each instance's references read through its class chain, each object
 * array's elements. Pulled from a file descriptor through a buffer, so a
 * pipe is read as a file is, once.
 *
 * The references an object has are Eclipse MAT's: an instance's class
 * first, then its non-null reference fields, its class's before its
 * superclasses' (the dump's order); an object array's class, then its
 * non-null elements; a primitive array's class (the dump's class of that
 * name: "[B", or ART's "byte[]"), when there is one; a class's super,
 * java.lang.Class first, then its super, loader and non-null static
 * reference values. With --strong (h->strong), ahat's: fields, elements
 * and static values only, and no referent of a weak, phantom or
 * finalizer reference.
 */
#include "load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RBUF (1u << 20)

const char *const root_kind_name[ROOT_KINDS] = {
	"unknown", "JNI global", "JNI local", "Java frame", "native stack",
	"sticky class", "thread block", "monitor used", "thread object",
	"interned string", "finalizing", "debugger", "reference cleanup",
	"VM internal", "JNI monitor", "unreachable", "system class"
};

struct rd {
	struct heap *h;
	const struct heap_src *src;
	size_t head_at;
	unsigned char *buf;
	size_t pos, len;
	uint64_t base;         /* the input offset of buf[0] */
	int eof;
};

/* ---- the byte source ---------------------------------------------------- */

/* At least n (<= RBUF) bytes from the current position in buf: a pointer
 * to them, or NULL at the end of the input (or a read error: h->err). */
static const unsigned char *need(struct rd *r, size_t n)
{
	ssize_t got;

	while (r->len - r->pos < n) {
		if (r->eof || r->h->err)
			return NULL;
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->base += r->pos;
			r->pos = 0;
		}
		if (r->head_at < r->src->head_len) {
			size_t k = r->src->head_len - r->head_at;
			memcpy(r->buf + r->len, r->src->head + r->head_at, k);
			r->head_at += k;
			r->len += k;
			continue;
		}
		got = read(r->src->fd, r->buf + r->len, RBUF - r->len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			r->h->err = errno;
			return NULL;
		}
		if (got == 0)
			r->eof = 1;
		r->len += (size_t)got;
	}
	return r->buf + r->pos;
}

static uint64_t at(const struct rd *r)
{
	return r->base + r->pos;
}

/* n bytes passed over: 0, or -1 at the end of the input */
static int skip(struct rd *r, uint64_t n)
{
	while (n) {
		size_t k = r->len - r->pos;
		if (!k) {
			if (!need(r, 1))
				return -1;
			continue;
		}
		if (k > n)
			k = (size_t)n;
		r->pos += k;
		n -= k;
	}
	return 0;
}


/* ---- sub-records -------------------------------------------------------- */

static int bad(struct heap *h, uint64_t off, const char *what)
{
	if (!h->bad) {
		h->bad = 1;
		h->err_off = off;
		snprintf(h->msg, sizeof h->msg, "%s", what);
	}
	return -1;
}

/* read n bytes in the sub-record at sub, or the dump was cut there */
#define NEED(p, r, n, sub)                                              \
	do {                                                            \
		if (!((p) = need((r), (n))))                            \
			return cut_at((r), (sub));                      \
	} while (0)

static int cut_at(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;

	if (h->err)
		return -1;
	h->cut = 1;
	h->cut_off = sub;
	return -2;
}

static int root(struct heap *h, const unsigned char *p, unsigned kind,
                unsigned thread_at)
{
	struct root rt;

	if (h->probe)
		return 0;
	rt.id = rid(h, p);
	rt.kind = kind;
	rt.thread = thread_at ? be32(p + thread_at) : 0;
	if (big_put(&h->roots, &rt, sizeof rt))
		return heap_nomem(h);
	h->nroots++;
	return 0;
}

/* a class dump, its tag read */
static int class_dump(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;
	unsigned id = h->idsize, t, sz;
	const unsigned char *p;
	uint64_t cid, super, loader, statics = 0, sname;
	uint32_t isize;
	uint32_t c, obj, n, i, first;
	struct hfield f;

	NEED(p, r, 7 * id + 8, sub);
	cid = rid(h, p);
	super = rid(h, p + id + 4);
	loader = rid(h, p + 2 * id + 4);
	isize = be32(p + 7 * id + 4);
	r->pos += 7 * id + 8;
	/* the constant pool: u2 count, (u2 index, u1 type, value) */
	NEED(p, r, 2, sub);
	n = (uint32_t)p[0] << 8 | p[1];
	r->pos += 2;
	for (i = 0; i < n; i++) {
		NEED(p, r, 3, sub);
		sz = heap_type_size(h, p[2]);
		if (!sz)
			return bad(h, at(r) + 2, "a constant of no basic type");
		r->pos += 3;
		if (skip(r, sz))
			return cut_at(r, sub);
	}
	struct step *ps = h->probe ? heap_probe_find(h, cid) : NULL, *pe;
	pe = h->probe ? h->probe + h->nprobe : NULL;
	for (struct step *q = ps; q && q < pe && q->from == cid; q++)
		if (q->to == super)
			q->kind = STEP_SUPER;
		else if (q->to == loader)
			q->kind = STEP_LOADER;
		else if (h->class_class != HEAP_NONE &&
		         q->to == H_CLS(h)[h->class_class].id)
			q->kind = STEP_CLASS;
	c = h->probe ? HEAP_NONE : heap_class_get(h, cid);
	if (c == HEAP_NONE && !h->probe)
		return -1;
	if (c != HEAP_NONE && H_CLS(h)[c].obj != HEAP_NONE) {
		h->dup_classes++;
		c = HEAP_NONE;   /* read, not kept */
	}
	obj = HEAP_NONE;
	if (c != HEAP_NONE) {
		uint32_t cc = h->class_class;
		obj = heap_obj_add(h, cid, 0, OBJ_CLASS, c);
		if (obj == HEAP_NONE || edge_add(h, h->strong ||
		    cc == HEAP_NONE ? 0 : H_CLS(h)[cc].id) ||
		    edge_add(h, h->strong ? 0 : super) ||
		    edge_add(h, h->strong ? 0 : loader))
			return -1;
	}
	/* statics: u2 count, (id name, u1 type, value) */
	NEED(p, r, 2, sub);
	n = (uint32_t)p[0] << 8 | p[1];
	r->pos += 2;
	for (i = 0; i < n; i++) {
		NEED(p, r, id + 1, sub);
		t = p[id];
		sname = rid(h, p);
		sz = heap_type_size(h, t);
		if (!sz)
			return bad(h, at(r) + id, "a static field of no basic type");
		r->pos += id + 1;
		NEED(p, r, sz, sub);
		if (t == T_OBJECT && c != HEAP_NONE && edge_add(h, rid(h, p)))
			return -1;
		for (struct step *q = ps; t == T_OBJECT && q && q < pe &&
		     q->from == cid; q++)
			if (q->kind == STEP_UNKNOWN && q->to == rid(h, p)) {
				q->kind = STEP_STATIC;
				q->val = sname;
			}
		statics += sz;
		r->pos += sz;
	}
	/* instance fields: u2 count, (id name, u1 type) */
	NEED(p, r, 2, sub);
	n = (uint32_t)p[0] << 8 | p[1];
	r->pos += 2;
	first = (uint32_t)(h->fields.len / sizeof f);
	for (i = 0; i < n; i++) {
		NEED(p, r, id + 1, sub);
		f.name = rid(h, p);
		f.type = p[id];
		if (!heap_type_size(h, f.type))
			return bad(h, at(r) + id, "an instance field of no basic type");
		r->pos += id + 1;
		if (c != HEAP_NONE && !h->probe &&
		    big_put(&h->fields, &f, sizeof f))
			return heap_nomem(h);
	}
	if (c != HEAP_NONE) {
		struct hclass *k = &H_CLS(h)[c];
		k->super = super;
		k->loader = loader;
		k->obj = obj;
		k->fields = first;
		k->nfields = n;
		k->isize = isize;
		H_SIZE(h)[obj] = statics > UINT32_MAX ? UINT32_MAX
		                                      : (uint32_t)statics;
		h->shallow_total += statics;
	}
	return 0;
}

/* an object array, its tag read: its class, then its elements */
static int obj_array(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;
	unsigned id = h->idsize;
	const unsigned char *p;
	uint64_t aid, cid, mark = h->nedge, elem;
	uint32_t count, i, k, obj = HEAP_NONE, n0 = h->n;
	size_t elen = h->edge.len;
	struct step *ps = NULL, *pe = NULL, *q;

	NEED(p, r, 2 * id + 8, sub);
	aid = rid(h, p);
	count = be32(p + id + 4);
	cid = rid(h, p + id + 8);
	r->pos += 2 * id + 8;
	if (h->probe) {
		ps = heap_probe_find(h, aid);
		pe = h->probe + h->nprobe;
		for (q = ps; q && q < pe && q->from == aid; q++)
			if (q->to == cid)
				q->kind = STEP_CLASS;
		if (!ps)
			return skip(r, (uint64_t)count * id) ? cut_at(r, sub) : 0;
	} else {
		obj = heap_class_get(h, cid);
		if (obj != HEAP_NONE)
			obj = heap_obj_add(h, aid, (uint64_t)count * id + id,
			                   OBJ_ARRAY, obj);
		if (obj == HEAP_NONE || edge_add(h, h->strong ? 0 : cid))
			return -1;
	}
	for (i = 0; i < count; i += k) {
		k = count - i < 4096 ? count - i : 4096;
		if (!(p = need(r, (size_t)k * id))) {
			if (h->probe)
				return cut_at(r, sub);
			/* cut: the array is not kept */
			h->nedge = mark;
			h->edge.len = elen;
			h->n = n0;
			h->id.len -= 8, h->size.len -= 4, h->kind.len -= 1,
			h->off.len -= 4, h->ocls.len -= 4;
			h->shallow_total -= (uint64_t)count * id + id;
			return cut_at(r, sub);
		}
		for (uint32_t j = 0; j < k; j++) {
			elem = rid(h, p + (size_t)j * id);
			if (ps) {
				for (q = ps; q < pe && q->from == aid; q++)
					if (q->kind == STEP_UNKNOWN &&
					    q->to == elem) {
						q->kind = STEP_INDEX;
						q->val = i + j;
					}
			} else if (edge_add(h, elem)) {
				return -1;
			}
		}
		r->pos += (size_t)k * id;
	}
	return 0;
}

/* a primitive array (0x23, or 0xC3 without its elements) */
static int prim_array(struct rd *r, uint64_t sub, int nodata)
{
	struct heap *h = r->h;
	unsigned id = h->idsize, t, sz;
	const unsigned char *p;
	uint64_t aid;
	uint32_t count, obj;

	NEED(p, r, id + 9, sub);
	aid = rid(h, p);
	count = be32(p + id + 4);
	t = p[id + 8];
	sz = heap_type_size(h, t);
	if (!sz || t == T_OBJECT)
		return bad(h, at(r) + id + 8, "an array of no primitive type");
	r->pos += id + 9;
	if (!nodata && skip(r, (uint64_t)count * sz))
		return cut_at(r, sub);
	if (h->probe)
		return 0;
	obj = heap_obj_add(h, aid, (uint64_t)count * sz + id,
	                   OBJ_PRIM | t << 2, h->prim_class[t]);
	if (obj == HEAP_NONE)
		return -1;
	/* its class: the dump's class of that name, when there is one */
	if (h->strong || h->prim_class[t] == HEAP_NONE)
		return 0;
	return edge_add(h, H_CLS(h)[h->prim_class[t]].id);
}

/* an instance, its tag read */
static int inst(struct rd *r, uint64_t sub)
{
	struct heap *h = r->h;
	unsigned id = h->idsize;
	const unsigned char *p;
	uint64_t oid, cid;
	uint32_t len;
	static unsigned char *big_fields;
	static size_t big_cap;

	NEED(p, r, 2 * id + 8, sub);
	oid = rid(h, p);
	cid = rid(h, p + id + 4);
	len = be32(p + 2 * id + 4);
	r->pos += 2 * id + 8;
	if (len <= RBUF / 2) {
		NEED(p, r, len, sub);
		r->pos += len;
		return heap_instance(h, oid, cid, p, len);
	}
	/* a huge instance: gathered, its buffer grown as its bytes come
	   (a length past the input's end costs what came, no more) */
	for (uint32_t got = 0; got < len;) {
		uint32_t k = len - got < RBUF / 2 ? len - got : RBUF / 2;
		NEED(p, r, k, sub);
		if (big_cap < (size_t)got + k) {
			size_t cap = ((size_t)got + k) * 2;
			unsigned char *b = realloc(big_fields, cap < len ? cap : len);
			if (!b)
				return heap_nomem(h);
			big_fields = b;
			big_cap = cap < len ? cap : len;
		}
		memcpy(big_fields + got, p, k);
		r->pos += k;
		got += k;
	}
	return heap_instance(h, oid, cid, big_fields, len);
}

/* the sub-records of a heap record of len bytes, its header read */
static int heap_record(struct rd *r, uint64_t len)
{
	struct heap *h = r->h;
	unsigned id = h->idsize;
	uint64_t end = at(r) + len, sub;
	const unsigned char *p;
	int rc;

	while ((sub = at(r)) < end) {
		if (!(p = need(r, 1)))
			return cut_at(r, sub);
		unsigned tag = *p;
		r->pos++;
		rc = 0;
		switch (tag) {
		case 0xFF: case 0x05: case 0x07: case 0x89: case 0x8A:
		case 0x8B: case 0x8C: case 0x8D: case 0x90:
			NEED(p, r, id, sub);
			rc = root(h, p, tag == 0xFF ? ROOT_UNKNOWN
			              : tag == 0x05 ? ROOT_STICKY_CLASS
			              : tag == 0x07 ? ROOT_MONITOR_USED
			              : tag == 0x89 ? ROOT_INTERNED_STRING
			              : tag == 0x8A ? ROOT_FINALIZING
			              : tag == 0x8B ? ROOT_DEBUGGER
			              : tag == 0x8C ? ROOT_REFERENCE_CLEANUP
			              : tag == 0x8D ? ROOT_VM_INTERNAL
			              : ROOT_UNREACHABLE, 0);
			r->pos += id;
			break;
		case 0x01:   /* JNI global: id, id of the global ref */
			NEED(p, r, 2 * id, sub);
			rc = root(h, p, ROOT_JNI_GLOBAL, 0);
			r->pos += 2 * id;
			break;
		case 0x02: case 0x03: case 0x8E: /* id, u4 thread, u4 frame */
			NEED(p, r, id + 8, sub);
			rc = root(h, p, tag == 0x02 ? ROOT_JNI_LOCAL
			              : tag == 0x03 ? ROOT_JAVA_FRAME
			              : ROOT_JNI_MONITOR, id);
			r->pos += id + 8;
			break;
		case 0x04: case 0x06:    /* id, u4 thread */
			NEED(p, r, id + 4, sub);
			rc = root(h, p, tag == 0x04 ? ROOT_NATIVE_STACK
			                            : ROOT_THREAD_BLOCK, id);
			r->pos += id + 4;
			break;
		case 0x08:   /* thread object: id, u4 serial, u4 trace */
			NEED(p, r, id + 8, sub);
			rc = root(h, p, ROOT_THREAD_OBJECT, id);
			r->pos += id + 8;
			break;
		case 0xFE:   /* Android heap info: u4 heap, id name */
			NEED(p, r, 4 + id, sub);
			r->pos += 4 + id;
			break;
		case 0x20:
			rc = class_dump(r, sub);
			break;
		case 0x21:
			rc = inst(r, sub);
			break;
		case 0x22:
			rc = obj_array(r, sub);
			break;
		case 0x23: case 0xC3:
			rc = prim_array(r, sub, tag == 0xC3);
			break;
		default:
			return bad(h, sub, "an unknown heap sub-record tag");
		}
		if (rc)
			return rc;
		if (at(r) > end)
			return bad(h, sub, "a sub-record runs past its heap "
			           "record");
	}
	return 0;
}

/* ---- records ------------------------------------------------------------ */

static int load_class(struct heap *h, const unsigned char *p)
{
	unsigned id = h->idsize;
	uint64_t cid = rid(h, p + 4), name = rid(h, p + 8 + id);
	uint32_t c = heap_class_get(h, cid), tlen, t;
	const char *s;

	if (c == HEAP_NONE)
		return -1;
	H_CLS(h)[c].name = name;
	s = heap_text(h, name, &tlen);
	if (!s)
		return 0;
	/* the primitive array classes ("[B" or ART's "byte[]") and Class */
	static const char *const jvm[12] = { 0, 0, 0, 0, "[Z", "[C", "[F",
		"[D", "[B", "[S", "[I", "[J" };
	static const char *const art[12] = { 0, 0, 0, 0, "boolean[]",
		"char[]", "float[]", "double[]", "byte[]", "short[]", "int[]",
		"long[]" };
	for (t = 4; t < 12; t++)
		if ((tlen == strlen(jvm[t]) && !memcmp(s, jvm[t], tlen)) ||
		    (tlen == strlen(art[t]) && !memcmp(s, art[t], tlen)))
			h->prim_class[t] = c;
	if ((tlen == 15 && !memcmp(s, "java/lang/Class", 15)) ||
	    (tlen == 15 && !memcmp(s, "java.lang.Class", 15)))
		h->class_class = c;
	return 0;
}

int heap_load(struct heap *h, const struct heap_src *src, int salvage)
{
	struct rd r;
	const unsigned char *p;
	uint64_t rec, len;
	unsigned tag;
	int rc = 0;
	size_t i;

	memset(&r, 0, sizeof r);
	r.h = h;
	r.src = src;
	h->ended = h->in_later = 0;
	if (!(r.buf = malloc(RBUF)))
		return heap_nomem(h);
	/* the header: "JAVA PROFILE 1.0.x\0", u4 id size, u8 time */
	p = need(&r, 1);
	for (i = 0; p; i++) {
		if (!(p = need(&r, i + 1)) || i > 64)
			break;
		if (!p[i])
			break;
	}
	if (!p || i > 64 || i < 18 || memcmp(p, "JAVA PROFILE 1.0.", 17)) {
		rc = h->err ? -1 : bad(h, 0, "not an HPROF heap dump");
		goto out;
	}
	h->version = p[17];
	if (!(p = need(&r, i + 13))) {
		rc = h->err ? -1 : bad(h, i + 1, "the header is cut short");
		goto out;
	}
	h->idsize = be32(p + i + 1);
	if (h->idsize != 4 && h->idsize != 8) {
		rc = bad(h, i + 1, "an identifier size that is not 4 or 8");
		goto out;
	}
	r.pos = i + 13;
	for (;;) {
		rec = at(&r);
		if (!need(&r, 1))
			break;
		if (!(p = need(&r, 9))) {
			rc = cut_at(&r, rec);
			break;
		}
		tag = p[0];
		len = be32(p + 5);
		r.pos += 9;
		if ((tag == 0x0C || tag == 0x1C) && h->ended) {
			/* a second heap dump in the file: not read */
			if (skip(&r, len))
				rc = cut_at(&r, rec);
			h->later_dumps += !h->in_later && !h->probe;
			h->in_later = 1;
		} else if (tag == 0x0C || tag == 0x1C) {
			rc = heap_record(&r, len);
		} else if (tag == 0x2C) {
			h->ended = 1;
			h->in_later = 0;
			if (skip(&r, len))
				rc = cut_at(&r, rec);
		} else if (h->probe && tag != 0x0C && tag != 0x1C) {
			if (skip(&r, len))
				rc = cut_at(&r, rec);
		} else if (tag == 0x01 && len >= h->idsize) {
			if (len > RBUF) {
				/* a text longer than the buffer: its head */
				if (!(p = need(&r, RBUF / 2))) {
					rc = cut_at(&r, rec);
					break;
				}
				rc = heap_text_keep(h, rid(h, p), p + h->idsize,
				                    RBUF / 2 - h->idsize);
				if (!rc && skip(&r, len))
					rc = cut_at(&r, rec);
			} else if (!(p = need(&r, (size_t)len))) {
				rc = cut_at(&r, rec);
			} else {
				rc = heap_text_keep(h, rid(h, p), p + h->idsize,
				                    (uint32_t)(len - h->idsize));
				r.pos += (size_t)len;
			}
		} else if (tag == 0x02 && len >= 8 + 2 * h->idsize) {
			if (!(p = need(&r, (size_t)(8 + 2 * h->idsize))))
				rc = cut_at(&r, rec);
			else
				rc = load_class(h, p);
			if (!rc && skip(&r, len))
				rc = cut_at(&r, rec);
		} else if (skip(&r, len)) {
			rc = cut_at(&r, rec);
		}
		if (rc)
			break;
	}
	h->in_off = at(&r);
	if (rc == -2) {
		if (!salvage) {
			h->err_off = h->cut_off;
			rc = bad(h, h->cut_off, "the dump ends inside a record "
			         "(--salvage reads what came before it)");
			goto out;
		}
		rc = 0;
	}
	if (!rc && !h->err && !h->probe)
		rc = heap_undefer(h);
	else if (h->err)
		rc = -1;
out:
	free(r.buf);
	if (!rc && !h->probe) {
		uint32_t off = (uint32_t)h->nedge;
		if (big_put(&h->off, &off, 4))
			rc = heap_nomem(h);
	}
	return rc;
}

int heap_probe(struct heap *h, const struct heap_src *src, struct step *s,
               size_t n)
{
	int rc;

	h->probe = s;
	h->nprobe = n;
	rc = heap_load(h, src, 1);
	h->probe = NULL;
	h->nprobe = 0;
	return rc;
}
