/*
 * What a session says at its dump's end (session_finish): the summary
 * lines, HPROFSTRIP_KEEP's, _REDACT's and the names map's too.
 */
#include "session.h"
#include "say.h"

#include <string.h>

/* The .histo's name, without its directory (it is beside the dump). */
static const char *histo_name(const struct session *s)
{
	const char *slash = strrchr(s->histo_path, '/');

	return slash ? slash + 1 : s->histo_path;
}

void session_summary(const struct session *s)
{
	uint64_t in = s->st.in_off - s->seg_out + s->seg_in;
	uint64_t out = s->st.out_off;

	if (s->ob.err)
		say("hprofstrip: %s: write failed: %s", s->path,
		    strerror(s->ob.err));
	else if (s->st.err)
		say("hprofstrip: %s: offset %llu: %s", s->path,
		    (unsigned long long)s->st.err_off, hs_strerror(s->st.err));
	say("hprofstrip: %s: %llu bytes in, %llu bytes out (%.1f%%), "
	    "%llu arrays stripped%s%s%s%s%s", s->path, (unsigned long long)in,
	    (unsigned long long)out,
	    in ? 100.0 * (double)out / (double)in : 100.0,
	    (unsigned long long)(s->st.arrays + s->seg_arrays),
	    s->top[0] ? "; top classes by bytes: " : "", s->top,
	    s->histo_written ? " (all in " : "",
	    s->histo_written ? histo_name(s) : "",
	    s->histo_written ? ")" : "");
	if (s->st.flags & HS_KEEP_STRINGS)
		say("hprofstrip: %s: %llu arrays kept (%llu bytes) for %llu "
		    "strings", s->path, (unsigned long long)s->st.kept,
		    (unsigned long long)s->st.kept_bytes,
		    (unsigned long long)s->st.strings);
	if (s->st.flags & HS_KEEP_BITMAPS)  /* (kept: all arrays kept) */
		say("hprofstrip: %s: %llu arrays kept (%llu bytes); bitmaps: "
		    "%llu array ids from %llu Bitmap and DumpData instances, "
		    "%llu arrays kept by their image signature alone", s->path,
		    (unsigned long long)s->st.kept,
		    (unsigned long long)s->st.kept_bytes,
		    (unsigned long long)s->st.bitmap_refs,
		    (unsigned long long)s->st.bitmaps,
		    (unsigned long long)s->st.images);
	if (s->st.flags & HS_REDACT)
		say("hprofstrip: %s: redacted the fields of %llu instances and "
		    "%llu static and constant values", s->path,
		    (unsigned long long)s->st.redacted,
		    (unsigned long long)s->st.zeroed);
	if (s->st.flags & HS_REDACT_NAMES)
		say("hprofstrip: %s: %llu names tokenized; %s%s%s", s->path,
		    (unsigned long long)s->st.names_tokenized,
		    s->map_failed ? "no map of them" : "their originals in ",
		    s->map_failed ? "" : s->map_path,
		    s->map_failed ? "" : " (keep it private)");
	if (s->st.withheld || s->seg_withheld)
		say("hprofstrip: %s: %llu instances written before their "
		    "class's field list: every byte of their fields is zero, "
		    "references too%s", s->path,
		    (unsigned long long)(s->st.withheld + s->seg_withheld),
		    s->seg_withheld ? " (a parallel dump's .pN files: "
		                      "jcmd GC.heap_dump -parallel=1 writes "
		                      "one, after the class dumps)"
		                    : " (hprofstrip --redact from a file knows "
		                      "every layout)");
}
