/* --keep-strings and --keep-bitmaps for the tools: see keepset.h. */
#include "keepset.h"
#include "info.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int keepset_stream(struct keepset *k)
{
	memset(k, 0, sizeof *k);
	k->tables = (struct hs_keep){
		.pending = calloc(HS_KEEP_PENDING, sizeof(uint64_t)),
		.pending_slots = HS_KEEP_PENDING,
		.classes = calloc(HS_KEEP_CLASSES, sizeof(struct hs_class)),
		.class_slots = HS_KEEP_CLASSES,
		.hold = malloc(HS_KEEP_HOLD),
		.hold_size = HS_KEEP_HOLD,
	};
	if (k->tables.pending && k->tables.classes && k->tables.hold)
		return 0;
	keepset_free(k);
	errno = ENOMEM;
	return -1;
}

static void found(void *user, uint64_t id)
{
	struct keepset *k = user;

	if (k->oom)
		return;
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 4096;
		uint64_t *ids = realloc(k->ids, cap * sizeof *ids);
		if (!ids) {
			k->oom = 1;  /* stop collecting; exact() says so */
			return;
		}
		k->ids = ids;
		k->cap = cap;
	}
	k->ids[k->n++] = id;
}

static int in_sorted(const uint64_t *ids, size_t n, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ids[mid] < id)
			lo = mid + 1;
		else if (ids[mid] > id)
			hi = mid;
		else
			return 1;
	}
	return 0;
}

static int has(void *user, uint64_t id)
{
	const struct keepset *k = user;

	return in_sorted(k->ids, k->n, id);
}

/* pass 1 again, bitmaps: is the object array id a buffers array the
 * previous pass found? */
static int has_known(void *user, uint64_t id)
{
	const struct keepset *k = user;

	return in_sorted(k->known, k->nknown, id);
}

static int cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The ids collected, sorted and unique. */
static void ids_sort(struct keepset *k)
{
	size_t i, j;

	if (k->n)
		qsort(k->ids, k->n, sizeof *k->ids, cmp_id);
	for (i = j = 0; i < k->n; i++)
		if (!j || k->ids[i] != k->ids[j - 1])
			k->ids[j++] = k->ids[i];
	k->n = j;
}

/* Bitmaps: a DumpData.buffers array came before its DumpData (pass 1 did
 * not read its elements): pass 1 again, its ids known from the start.
 * 1 if so (once). */
static int lists_again(struct keepset *k, const struct hs_state *st)
{
	if (!(st->flags & HS_KEEP_BITMAPS) || k->known ||
	    st->bitmap_lists_read >= st->bitmap_lists)
		return 0;
	ids_sort(k);
	k->known = k->ids;
	k->nknown = k->n;
	k->ids = NULL;
	k->n = k->cap = 0;
	k->tables.has = has_known;
	return 1;
}

int keepset_exact(struct keepset *k, int fd, unsigned flags,
                  int (*pass)(void *user, struct hs_state *st), void *user)
{
	unsigned slots = 1u << 16;
	struct hs_config cfg = { .flags = flags };
	struct hs_state st;
	off_t start = lseek(fd, 0, SEEK_CUR);  /* stdin may not be at 0 */

	if (start < 0)
		return -1;
	memset(k, 0, sizeof *k);
	k->exact = 1;
	for (;;) {  /* pass 1, again with a bigger class table if it filled,
	             * or with the layout known if it came late */
		if (!k->tables.layout_known) {
			free(k->tables.classes);
			k->tables.classes = calloc(slots, sizeof *k->tables.classes);
			if (!k->tables.classes)
				goto nomem;
			k->tables.class_slots = slots;
		}
		k->tables.found = found;
		k->tables.user = k;
		/* bitmaps: the buffers ids, for their arrays further on */
		if ((flags & HS_KEEP_BITMAPS) && !k->tables.pending) {
			k->tables.pending = calloc(HS_KEEP_MIN_SLOTS * 32,
			                           sizeof(uint64_t));
			if (!k->tables.pending)
				goto nomem;
			k->tables.pending_slots = HS_KEEP_MIN_SLOTS * 32;
		}
		if (k->tables.pending)
			memset(k->tables.pending, 0,
			       k->tables.pending_slots * sizeof(uint64_t));
		k->n = 0;
		cfg.keep = &k->tables;
		hs_init(&st, &cfg, &info_discard);
		k->passes++;
		if (lseek(fd, start, SEEK_SET) < 0 ||
		    pass(user, &st) ||
		    lseek(fd, start, SEEK_SET) < 0)
			goto fail;
		if (k->oom)
			goto nomem;
		if (lists_again(k, &st))
			continue;
		if (st.class_full && slots < 1u << 26) {
			slots <<= 2;
			continue;
		}
		if (!st.late || k->tables.layout_known)
			break;
		k->tables.layout_known = 1;
		k->tables.string_ref = st.string_ref;
		k->tables.thread_ref = st.thread_ref;
		k->tables.mbuffer_ref = st.mbuffer_ref;
		k->tables.buffers_ref = st.buffers_ref;
	}
	free(k->tables.classes);
	k->tables.classes = NULL;
	k->tables.class_slots = 0;
	k->strings = st.strings;
	k->bitmaps = st.bitmaps;
	k->bitmap_refs = st.bitmap_refs;
	ids_sort(k);
	free(k->known);
	k->known = NULL;
	k->nknown = 0;
	free(k->tables.pending);
	k->tables.pending = NULL;
	k->tables.pending_slots = 0;
	k->tables.found = NULL;
	k->tables.has = has;
	return 0;
nomem:
	errno = ENOMEM;
fail:
	keepset_free(k);
	return -1;
}

size_t keepset_bytes(const struct keepset *k)
{
	return k->exact ? k->cap * sizeof *k->ids
	                : HS_KEEP_PENDING * sizeof(uint64_t) +
	                  HS_KEEP_CLASSES * sizeof(struct hs_class) +
	                  HS_KEEP_HOLD;
}

void keepset_free(struct keepset *k)
{
	free(k->ids);
	free(k->known);
	free(k->tables.pending);
	free(k->tables.classes);
	free(k->tables.hold);
	memset(k, 0, sizeof *k);
}
