/*
 * pendtest: keep-strings' pending table (strip/engine/claims.c), the ids
 * of String values whose arrays have not come yet, against a model.
 * Tables of 8, 16 and 64 slots and ids from a small range, so that
 * probe chains collide, wrap around the table's end and are cut by
 * removals at every place; 200,000 seeded random puts and takes each.
 * After each step every id of the range must be pending exactly when the
 * model says so, and the count must be the model's; a put into a full
 * table (7/8) evicts exactly one id, which the model then drops. (A
 * removal that shifts one entry too few or too many loses ids that are
 * still pending: their Strings' values were stripped, and the floors of
 * the corpus checks, 85-99%, hid it.) Prints one line per failed check
 * and 'pend: N passed, N failed'.
 */
#include "../strip/engine/internal.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define RANGE 200  /* ids 1..RANGE */

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The table agrees with the model on every id; returns the number of
 * ids it disagrees on (0 when it agrees). */
static unsigned differ(const struct hs_state *st, const unsigned char *in)
{
	unsigned id, n = 0;

	for (id = 1; id <= RANGE; id++)
		n += !pend_has(st, id) != !in[id];
	return n;
}

static void run(unsigned slots, uint64_t seed, unsigned steps)
{
	static uint64_t table[64];
	static struct hs_state st;
	unsigned char in[RANGE + 1] = { 0 };
	unsigned count = 0, step, bad = 0, evictions = 0;

	memset(&st, 0, sizeof st);
	memset(table, 0, sizeof table);
	st.ks.cfg.pending = table;
	st.ks.cfg.pending_slots = slots;
	for (step = 0; step < steps && bad < 5; step++) {
		uint64_t id = 1 + next(&seed) % RANGE;
		uint64_t before = st.evicted;

		if (next(&seed) % 2) {
			pend_put(&st, id);
			if (st.evicted != before) {
				/* exactly one other id went */
				unsigned k, gone = 0;
				for (k = 1; k <= RANGE; k++)
					if (in[k] && k != id && !pend_has(&st, k)) {
						in[k] = 0;
						gone++;
						count--;
					}
				evictions++;
				if (gone != 1) {
					CHECK(0, "%u slots, step %u: a put evicted %u ids",
					      slots, step, gone);
					bad++;
				}
			}
			if (!in[id]) {
				in[id] = 1;
				count++;
			}
		} else {
			int took = pend_take(&st, id);
			if (took != in[id]) {
				CHECK(0, "%u slots, step %u: take of %llu gave %d, "
				      "the model %d", slots, step,
				      (unsigned long long)id, took, in[id]);
				bad++;
			}
			if (in[id]) {
				in[id] = 0;
				count--;
			}
		}
		if (differ(&st, in) || st.ks.pend_count != count) {
			CHECK(0, "%u slots, step %u: %u ids differ from the model, "
			      "count %u, the model's %u", slots, step,
			      differ(&st, in), st.ks.pend_count, count);
			bad++;
		}
	}
	CHECK(!bad, "%u slots, seed %llu: %u steps", slots,
	      (unsigned long long)seed, steps);
	CHECK(evictions > 0, "%u slots: the table never filled", slots);
}

int main(void)
{
	run(8, 1, 200000);
	run(16, 2, 200000);
	run(64, 3, 200000);
	/* a table of no slots holds nothing, and says so */
	{
		struct hs_state st;
		memset(&st, 0, sizeof st);
		pend_put(&st, 5);
		CHECK(!pend_has(&st, 5) && !pend_take(&st, 5), "no slots");
	}
	return check_done("pend");
}
