/*
 * What a run says of its input (run.h): the engine's error, and at a
 * transform's end -v's summary, --keep-bitmaps' and --keep-strings'
 * counts, --redact's note of what it zeroed and withheld, --salvage's
 * of what it dropped, and --keep-strings' on a dump stripped before.
 */
#include "run.h"
#include "keepset.h"
#include "out.h"

#include <stdio.h>

/* The engine's error: "prog: name: offset N: reason", and for a dump cut
 * inside a record, what --salvage would do about it. */
void run_engine_error(const struct run *r, const struct hs_state *st)
{
	if (r->verbosity)
		cli_say("%s: %s: offset %llu: %s%s%s%s%s\n", r->tool->name,
		        r->in_name, (unsigned long long)st->err_off,
		        hs_strerror(st->err),
		        st->err == HS_E_TRUNCATED && !(st->flags & HS_SALVAGE)
		            ? " (--salvage keeps what came before it)" : "",
		        r->cut ? " (the " : "", r->cut ? r->cut : "",
		        r->cut ? " input was cut short)" : "");
}

/* --salvage on a dump that was cut (or whose compressed input was): what
 * was dropped and kept, one line */
void run_salvage_note(const struct run *r, const struct hs_state *st)
{
	/* a compressed input cut where a record ended: nothing dropped */
	uint64_t from = st->salvaged ? st->salvage_from : st->in_off;

	if (!(st->salvaged || r->cut) || !r->verbosity)
		return;
	cli_say("%s: %s: salvaged a dump cut at offset %llu%s%s%s: "
	        "dropped %llu bytes from offset %llu (%llu sub-record%s, %llu "
	        "record%s), kept %llu objects\n", r->tool->name, r->in_name,
	        (unsigned long long)st->in_off, r->cut ? " (the " : "",
	        r->cut ? r->cut : "", r->cut ? " input was cut short)" : "",
	        (unsigned long long)(st->in_off - from),
	        (unsigned long long)from,
	        (unsigned long long)st->salvage_subs,
	        st->salvage_subs == 1 ? "" : "s",
	        (unsigned long long)st->salvage_recs,
	        st->salvage_recs == 1 ? "" : "s",
	        (unsigned long long)st->objects);
}

/* --redact: what was zeroed, and what could not be split (withheld). */
void run_redact_note(const struct run *r, const struct hs_state *st,
                     const struct hs_redact *layouts, int passes)
{
	const char *name = r->tool->name, *in = r->in_name;
	struct hs_redact now = *layouts;

	if (!(st->flags & HS_REDACT) || !r->verbosity)
		return;
	hs_redact_filled(st, &now);
	if (st->withheld || st->layouts_lost)
		cli_say("%s: %s: --redact: %llu instances written before "
		        "their class's field list (or past the tables: %llu "
		        "classes): every byte of their fields is zero, "
		        "references too%s\n", name, in,
		        (unsigned long long)st->withheld,
		        (unsigned long long)st->layouts_lost,
		        r->dc->seekable ? "" : "; from a file, a second pass "
		        "knows every layout");
	if (r->verbosity >= 2)
		cli_say("%s: %s: redacted the fields of %llu instances "
		        "and %llu static and constant values; %llu layouts in "
		        "%u KiB, %d pass%s\n", name, in,
		        (unsigned long long)st->redacted,
		        (unsigned long long)st->zeroed,
		        (unsigned long long)now.class_count,
		        (unsigned)((now.class_count * sizeof(struct hs_layout) +
		                    now.types_used + 1023) / 1024),
		        passes, passes == 1 ? "" : "es");
}

/* --keep-bitmaps: the arrays bitmaps pointed at, and how they were
 * found (with --keep-strings, the next line counts every array kept). */
static void bitmaps_summary(const struct run *r, const struct hs_state *st,
                            const struct keepset *ks)
{
	cli_say("%s: %s: bitmaps: %llu array ids from %llu Bitmap and "
	        "DumpData instances", r->tool->name, r->in_name,
	        (unsigned long long)(ks->exact ? ks->bitmap_refs
	                                       : st->bitmap_refs),
	        (unsigned long long)(ks->exact ? ks->bitmaps : st->bitmaps));
	if (!(st->flags & HS_KEEP_STRINGS))
		cli_say("; %llu arrays kept (%llu element bytes)",
		        (unsigned long long)st->kept,
		        (unsigned long long)st->kept_bytes);
	if (ks->exact)
		cli_say("; exact: %u reading pass%s before\n", ks->passes,
		        ks->passes == 1 ? "" : "es");
	else
		cli_say("; streamed: %llu kept by their image signature "
		        "alone\n", (unsigned long long)st->images);
}

void run_summary(const struct run *r, const struct hs_state *st,
                 const struct keepset *ks)
{
	double pct = st->in_off ? 100.0 * (double)st->out_off / (double)st->in_off
	                        : 100.0;
	cli_say("%s: %s: %llu -> %llu bytes (%.1f%%), %llu arrays %s, "
	        "%llu element bytes\n", r->tool->name, r->in_name,
	        (unsigned long long)st->in_off,
	        (unsigned long long)st->out_off, pct,
	        (unsigned long long)st->arrays, r->tool->verb,
	        (unsigned long long)st->elem_bytes);
	if (st->flags & HS_KEEP_BITMAPS)
		bitmaps_summary(r, st, ks);
	if (!(st->flags & HS_KEEP_STRINGS))
		return;
	cli_say("%s: %s: %llu arrays kept (%llu element bytes) for "
	        "%llu strings; ", r->tool->name, r->in_name,
	        (unsigned long long)st->kept, (unsigned long long)st->kept_bytes,
	        (unsigned long long)(ks->exact ? ks->strings : st->strings));
	if (ks->exact)
		cli_say("exact: pass 1 held %llu value ids in %llu KiB\n",
		        (unsigned long long)ks->n,
		        (unsigned long long)(keepset_bytes(ks) + 1023) / 1024);
	else
		cli_say("streamed: %llu KiB of tables, %llu ids evicted\n",
		        (unsigned long long)(keepset_bytes(ks) + 1023) / 1024,
		        (unsigned long long)st->evicted);
}

/* --keep-strings of a dump stripped before (its arrays 0xC3 already):
 * what is gone cannot be kept, and where it can be is said, unless
 * quiet. */
void run_stripped_note(const struct run *r, const struct hs_census *c)
{
	uint64_t gone = c->sub_count[HS_SUB_PRIMITIVE_ARRAY_NODATA];

	if (!gone || !r->verbosity)
		return;
	cli_say("%s: %s: %llu of its %llu arrays were stripped before: their "
	        "values are gone, and no String that points at one keeps its "
	        "value; keep them where the dump is taken "
	        "(HPROFSTRIP_KEEP=strings, hprofstrip-run --keep strings), or "
	        "run --keep-strings on the unstripped dump\n",
	        r->tool->name, r->in_name, (unsigned long long)gone,
	        (unsigned long long)(gone +
	                             c->sub_count[HS_SUB_PRIMITIVE_ARRAY_DUMP]));
}
