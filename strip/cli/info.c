/*
 * hprofstrip --info: the engine with a census and a sink that discards
 * everything (cli.c runs it like any other mode), then what the dump holds
 * (records and heap sub-records by tag, primitive-array bytes by type,
 * stripped arrays, bytes per heap) and whether it is well-formed. Text or
 * --json.
 */
#include "info.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* Where the report goes (info_print's f). */
static FILE *rep;

static void fputc_rep(int c)
{
	fputc(c, rep);
}

/* ---- names ------------------------------------------------------------ */


static const char *type_name(unsigned t)
{
	static const char *const names[12] = {
		NULL, NULL, "object", NULL, "boolean", "char", "float",
		"double", "byte", "short", "int", "long"
	};
	return t < 12 ? names[t] : NULL;
}

static const char *const heap_names[HS_HEAP_COUNT_] = {
	[HS_HEAP_DEFAULT] = "default", [HS_HEAP_APP] = "app",
	[HS_HEAP_ZYGOTE] = "zygote",   [HS_HEAP_IMAGE] = "image",
	[HS_HEAP_JIT] = "jit",         [HS_HEAP_OTHER] = "other"
};

/* A tag's name, or TAG_0xNN for a top-level tag HPROF does not define. */
static const char *tag_label(const char *name, unsigned tag, char buf[16])
{
	if (name)
		return name;
	snprintf(buf, 16, "TAG_0x%02X", tag);
	return buf;
}

/* ---- the run ---------------------------------------------------------- */

static int discard_write(void *user, const void *buf, size_t len)
{
	(void)user;
	(void)buf;
	(void)len;
	return 0;
}

static int discard_patch(void *user, uint64_t off, const void *buf,
                         size_t len)
{
	(void)user;
	(void)off;
	(void)buf;
	(void)len;
	return 0;
}

const struct hs_sink info_discard = { discard_write, discard_patch, NULL,
                                      NULL };

void info_start(struct info *in, const char *name, int json, unsigned flags)
{
	struct hs_config cfg = { .flags = flags };

	memset(in, 0, sizeof *in);
	in->in_name = name;
	in->json = json;
	cfg.census = &in->census;
	hs_init(&in->st, &cfg, &info_discard);
}

/* ---- text ------------------------------------------------------------- */

static void put_timestamp(uint64_t ms)
{
	time_t secs = (time_t)(ms / 1000);
	struct tm tm;
	char buf[64];

	fprintf(rep, "timestamp     %llu", (unsigned long long)ms);
	if (ms / 1000 < (uint64_t)1 << 40 && gmtime_r(&secs, &tm) &&
	    strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm))
		fprintf(rep, " (%s.%03uZ)", buf, (unsigned)(ms % 1000));
	fputc_rep('\n');
}

/* The text report's table of the tags seen (records or heap sub-records):
 * one line a tag, named by name(), then the total. */
static void tag_table(const char *title, const char *(*name)(unsigned),
                      const uint64_t count[256], const uint64_t bytes[256])
{
	uint64_t n = 0, b = 0;
	char lbl[16];
	unsigned t;

	fprintf(rep, "\n%-28s %4s %12s %15s\n", title, "tag", "count", "bytes");
	for (t = 0; t < 256; t++) {
		if (!count[t])
			continue;
		fprintf(rep, "  %-26s 0x%02X %12llu %15llu\n", tag_label(name(t), t, lbl),
		       t, (unsigned long long)count[t], (unsigned long long)bytes[t]);
		n += count[t];
		b += bytes[t];
	}
	fprintf(rep, "  %-26s %4s %12llu %15llu\n", "total", "",
	       (unsigned long long)n, (unsigned long long)b);
}

/* The text report's table of primitive arrays by element type: one line a
 * type seen, then the total. */
static void type_table(const char *title, const uint64_t count[12],
                       const uint64_t bytes[12])
{
	uint64_t n = 0, b = 0;
	unsigned t;

	fprintf(rep, "\n%-33s %12s %15s\n", title, "count", "element bytes");
	for (t = 0; t < 12; t++) {
		if (!count[t])
			continue;
		fprintf(rep, "  %-31s %12llu %15llu\n", type_name(t),
		       (unsigned long long)count[t], (unsigned long long)bytes[t]);
		n += count[t];
		b += bytes[t];
	}
	fprintf(rep, "  %-31s %12llu %15llu\n", "total", (unsigned long long)n,
	       (unsigned long long)b);
}

static void text_report(const struct info *in)
{
	const struct hs_state *st = &in->st;
	const struct hs_census *c = &in->census;
	uint64_t stripped = 0;
	unsigned t;

	fprintf(rep, "file          %s\n", in->in_name);
	fprintf(rep, "format        %s\n", st->header[0] ? st->header : "(none)");
	if (st->idsize)
		fprintf(rep, "id size       %u\n", st->idsize);
	if (st->version)
		put_timestamp(st->timestamp);
	fprintf(rep, "bytes         %llu\n", (unsigned long long)st->in_off);

	tag_table("records", hs_rec_name, c->rec_count, c->rec_bytes);
	if (c->empty_heap_recs)
		fprintf(rep, "  %llu heap records of length 0\n",
		       (unsigned long long)c->empty_heap_recs);
	tag_table("heap sub-records", hs_sub_name, c->sub_count, c->sub_bytes);

	for (t = 0; t < 12; t++)
		stripped += c->nodata_count[t];
	/* in a stripped dump, arrays with their elements were kept whole
	 * (hprofstrip --keep-strings) */
	type_table(stripped ? "kept arrays (0x23, stripped dump)"
	                    : "primitive arrays (0x23)",
	           c->prim_count, c->prim_bytes);
	type_table("stripped arrays (0xC3)", c->nodata_count, c->nodata_bytes);

	if (st->version == '3') {
		fprintf(rep, "\n%-33s %12s %15s\n", "heaps (sub-record bytes)", "",
		       "bytes");
		for (t = 0; t < HS_HEAP_COUNT_; t++) {
			if (!c->heap_bytes[t])
				continue;
			fprintf(rep, "  %-31s %12s %15llu\n", heap_names[t], "",
			       (unsigned long long)c->heap_bytes[t]);
		}
	}

	fputc_rep('\n');
	if (st->err)
		fprintf(rep, "malformed at offset %llu: %s\n",
		       (unsigned long long)st->err_off, hs_strerror(st->err));
	else if (st->salvaged)
		fprintf(rep, "well-formed after --salvage: cut at offset %llu, %llu "
		       "bytes from offset %llu dropped, %llu objects kept\n",
		       (unsigned long long)st->in_off,
		       (unsigned long long)(st->in_off - st->salvage_from),
		       (unsigned long long)st->salvage_from,
		       (unsigned long long)st->objects);
	else
		fprintf(rep, "well-formed\n");
}

/* ---- JSON ------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at s (no overlong forms, no
 * surrogates, at most U+10FFFF), 0 if there is none. */
static unsigned utf8_len(const unsigned char *s)
{
	unsigned n, i, cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, cp = s[0] & 0x1Fu;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, cp = s[0] & 0x0Fu;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (i = 1; i < n; i++) {  /* stops at the NUL, which is no 10xxxxxx */
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3Fu);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
}

/* JSON text is UTF-8: a byte that is not part of a UTF-8 sequence (a
 * header string or file name may hold any) is written as \u00XX. */
static void json_string(const char *s)
{
	fputc_rep('"');
	while (*s) {
		unsigned char ch = (unsigned char)*s;
		unsigned n = utf8_len((const unsigned char *)s);
		if (ch == '"' || ch == '\\')
			fprintf(rep, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7F || !n)
			fprintf(rep, "\\u%04x", ch);
		else
			fwrite(s, 1, n, rep);
		s += n ? n : 1;
	}
	fputc_rep('"');
}

static void json_tags(const char *key, const uint64_t *count,
                      const uint64_t *bytes, const char *(*name)(unsigned))
{
	const char *sep = "";
	char lbl[16];
	unsigned t;

	fprintf(rep, ",\n  \"%s\": {", key);
	for (t = 0; t < 256; t++) {
		if (!count[t])
			continue;
		fprintf(rep, "%s\n    ", sep);
		json_string(tag_label(name(t), t, lbl));
		fprintf(rep, ": {\"tag\": %u, \"count\": %llu, \"bytes\": %llu}", t,
		       (unsigned long long)count[t],
		       (unsigned long long)bytes[t]);
		sep = ",";
	}
	fprintf(rep, "%s}", *sep ? "\n  " : "");
}

static void json_types(const char *key, const uint64_t *count,
                       const uint64_t *bytes)
{
	const char *sep = "";
	uint64_t n = 0, b = 0;
	unsigned t;

	for (t = 0; t < 12; t++) {
		n += count[t];
		b += bytes[t];
	}
	fprintf(rep, ",\n  \"%s\": {\"count\": %llu, \"bytes\": %llu, \"by_type\": {",
	       key, (unsigned long long)n, (unsigned long long)b);
	for (t = 0; t < 12; t++) {
		if (!count[t])
			continue;
		fprintf(rep, "%s\"%s\": {\"count\": %llu, \"bytes\": %llu}", sep,
		       type_name(t), (unsigned long long)count[t],
		       (unsigned long long)bytes[t]);
		sep = ", ";
	}
	fprintf(rep, "}}");
}

static void json_report(const struct info *in)
{
	const struct hs_state *st = &in->st;
	const struct hs_census *c = &in->census;
	unsigned t;

	fprintf(rep, "{\n  \"file\": ");
	json_string(in->in_name);
	fprintf(rep, ",\n  \"header\": ");
	if (st->header[0])
		json_string(st->header);
	else
		fprintf(rep, "null");
	if (st->version) {  /* any byte after "1.0." */
		char v[8];
		snprintf(v, sizeof v, "1.0.%c", st->version);
		fprintf(rep, ",\n  \"version\": ");
		json_string(v);
	} else {
		fprintf(rep, ",\n  \"version\": null");
	}
	if (st->idsize)
		fprintf(rep, ",\n  \"id_size\": %u", st->idsize);
	else
		fprintf(rep, ",\n  \"id_size\": null");
	if (st->version)
		fprintf(rep, ",\n  \"timestamp\": %llu",
		       (unsigned long long)st->timestamp);
	else
		fprintf(rep, ",\n  \"timestamp\": null");
	fprintf(rep, ",\n  \"bytes\": %llu", (unsigned long long)st->in_off);
	json_tags("records", c->rec_count, c->rec_bytes, hs_rec_name);
	fprintf(rep, ",\n  \"empty_heap_records\": %llu",
	       (unsigned long long)c->empty_heap_recs);
	json_tags("sub_records", c->sub_count, c->sub_bytes, hs_sub_name);
	json_types("primitive_arrays", c->prim_count, c->prim_bytes);
	json_types("stripped_arrays", c->nodata_count, c->nodata_bytes);
	{
		/* a stripped dump's 0x23 arrays were kept whole
		 * (--keep-strings); an unstripped dump kept none */
		static const uint64_t none[12];
		int stripped = 0;
		for (t = 0; t < 12; t++)
			stripped |= c->nodata_count[t] != 0;
		json_types("kept_arrays", stripped ? c->prim_count : none,
		           stripped ? c->prim_bytes : none);
	}
	fprintf(rep, ",\n  \"heaps\": {");
	for (t = 0; t < HS_HEAP_COUNT_; t++)
		fprintf(rep, "%s\"%s\": %llu", t ? ", " : "", heap_names[t],
		       (unsigned long long)c->heap_bytes[t]);
	fprintf(rep, "}");
	fprintf(rep, ",\n  \"well_formed\": %s", st->err ? "false" : "true");
	if (st->err) {
		fprintf(rep, ",\n  \"error_offset\": %llu,\n  \"error\": ",
		       (unsigned long long)st->err_off);
		json_string(hs_strerror(st->err));
	} else {
		fprintf(rep, ",\n  \"error_offset\": null,\n  \"error\": null");
	}
	if (st->salvaged)
		fprintf(rep, ",\n  \"salvaged\": {\"cut_offset\": %llu, "
		       "\"dropped_from\": %llu, \"objects_kept\": %llu}",
		       (unsigned long long)st->in_off,
		       (unsigned long long)st->salvage_from,
		       (unsigned long long)st->objects);
	fprintf(rep, "\n}\n");
}

/* ---- report ---------------------------------------------------------- */

int info_print(const struct info *in, FILE *f)
{
	rep = f;
	if (in->json)
		json_report(in);
	else
		text_report(in);
	return fflush(f) || ferror(f) ? -1 : 0;
}

int info_mem(const char *name, const void *buf, size_t len, int json)
{
	static struct info in;

	info_start(&in, name, json, 0);
	if (!hs_feed(&in.st, buf, len))
		hs_finish(&in.st);
	if (info_print(&in, stdout))
		return EXIT_BAD_INPUT;
	return in.st.err ? EXIT_BAD_INPUT : EXIT_OK;
}
