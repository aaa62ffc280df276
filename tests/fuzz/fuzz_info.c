/*
 * libFuzzer target: hprofstrip --info, the census (strip/cli/info.c and the
 * engine's census).
 *
 * Input: flags, 3 seed bytes for the piece sizes (see common.h), the dump.
 * Flag 1: --json. Checks:
 *   - the census does not depend on where the input was cut
 *   - on a dump both accept, it agrees with the oracle (tests/oracle.c):
 *     sub-records by tag, 0x23 arrays and element bytes, 0xC3 arrays and
 *     the bytes they stand for
 *   - the report: exit code 0 iff well-formed; the text report's last
 *     line says "well-formed" or "malformed at offset N: ..." with the
 *     engine's offset; --json is valid JSON (RFC 8259, UTF-8) whose
 *     "well_formed" agrees
 */
#include "common.h"
#include "oracle.h"
#include "../../strip/cli/info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct cr_run A, B;
static struct hs_census ca, cb;

/* ---- a strict JSON checker ---------------------------------------------- */

struct js {
	const unsigned char *p, *end;
	int depth;
};

static void js_ws(struct js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	                         *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int js_lit(struct js *j, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, s, n))
		return 0;
	j->p += n;
	return 1;
}

/* One UTF-8 sequence, well-formed (no overlongs, surrogates, > U+10FFFF). */
static int js_utf8(struct js *j)
{
	const unsigned char *p = j->p;
	size_t left = (size_t)(j->end - p), n, i;
	unsigned c = p[0], cp;

	if (c < 0x80)
		n = 1, cp = c;
	else if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	j->p += n;
	return 1;
}

static int js_string(struct js *j)
{
	if (!js_lit(j, "\""))
		return 0;
	while (j->p < j->end) {
		unsigned c = *j->p;
		if (c == '"') {
			j->p++;
			return 1;
		}
		if (c < 0x20)
			return 0;
		if (c == '\\') {
			j->p++;
			if (j->p == j->end)
				return 0;
			c = *j->p++;
			if (c == 'u') {
				int i;
				for (i = 0; i < 4; i++, j->p++)
					if (j->p == j->end ||
					    !strchr("0123456789abcdefABCDEF", *j->p) ||
					    !*j->p)
						return 0;
			} else if (!strchr("\"\\/bfnrt", (int)c) || !c) {
				return 0;
			}
			continue;
		}
		if (!js_utf8(j))
			return 0;
	}
	return 0;
}

static int js_digits(struct js *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static int js_number(struct js *j)
{
	js_lit(j, "-");
	if (js_lit(j, "0")) {
		/* no leading zeros */
	} else if (j->p < j->end && *j->p >= '1' && *j->p <= '9') {
		js_digits(j);
	} else {
		return 0;
	}
	if (js_lit(j, ".") && !js_digits(j))
		return 0;
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (!js_lit(j, "+"))
			js_lit(j, "-");
		if (!js_digits(j))
			return 0;
	}
	return 1;
}

static int js_value(struct js *j);

static int js_members(struct js *j, int object)
{
	const char *close = object ? "}" : "]";

	if (++j->depth > 64)
		return 0;
	js_ws(j);
	if (js_lit(j, close))
		return j->depth--, 1;
	for (;;) {
		js_ws(j);
		if (object) {
			if (!js_string(j))
				return 0;
			js_ws(j);
			if (!js_lit(j, ":"))
				return 0;
		}
		if (!js_value(j))
			return 0;
		js_ws(j);
		if (js_lit(j, close))
			return j->depth--, 1;
		if (!js_lit(j, ","))
			return 0;
	}
}

static int js_value(struct js *j)
{
	js_ws(j);
	if (j->p == j->end)
		return 0;
	switch (*j->p) {
	case '{': j->p++; return js_members(j, 1);
	case '[': j->p++; return js_members(j, 0);
	case '"': return js_string(j);
	case 't': return js_lit(j, "true");
	case 'f': return js_lit(j, "false");
	case 'n': return js_lit(j, "null");
	default: return js_number(j);
	}
}

static int json_valid(const char *s, size_t len)
{
	struct js j = { (const unsigned char *)s, (const unsigned char *)s + len,
	                0 };

	if (!js_value(&j))
		return 0;
	js_ws(&j);
	return j.p == j.end;
}

/* ---- the target ----------------------------------------------------------- */

static void check_report(const unsigned char *x, size_t n, int json)
{
	static char *buf;
	size_t len = 0;
	FILE *mem, *saved = stdout;
	int rc;
	char want[128];

	free(buf);
	buf = NULL;
	mem = open_memstream(&buf, &len);
	if (!mem)
		fz_fail("open_memstream");
	stdout = mem;  /* info_mem reports on stdout (glibc: a variable) */
	rc = info_mem("fuzz.hprof", x, n, json);
	stdout = saved;
	fclose(mem);
	if (rc != (A.err ? 1 : 0))
		fz_fail("--info: exit %d, engine says %s", rc, hs_strerror(A.err));
	if (json) {
		if (!json_valid(buf, len))
			fz_fail("--info --json: invalid JSON:\n%s", buf);
		if (!strstr(buf, A.err ? "\"well_formed\": false"
		                       : "\"well_formed\": true"))
			fz_fail("--info --json: well_formed wrong:\n%s", buf);
		return;
	}
	if (A.err)
		snprintf(want, sizeof want, "\nmalformed at offset %llu: %s\n",
		         (unsigned long long)A.err_off, hs_strerror(A.err));
	else
		snprintf(want, sizeof want, "\nwell-formed\n");
	if (len < strlen(want) || strcmp(buf + len - strlen(want), want))
		fz_fail("--info: last line is not '%s'", want + 1);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const unsigned char *x;
	size_t n;
	unsigned fl, t;
	uint32_t seed;
	uint64_t p23 = 0, p23b = 0, c3 = 0, c3b = 0;
	struct fz_cuts c;
	struct oracle_result o;

	if (!fz_input(data, size, &x, &n, &fl, &seed))
		return 0;

	fz_engine(x, n, 0, 0, NULL, n, &ca, &A);
	fz_cuts_init(&c, seed);
	fz_engine(x, n, 0, 0, &c, n, &cb, &B);
	fz_same(&A, &B, "census, cut");
	if (memcmp(&ca, &cb, sizeof ca))
		fz_fail("census differs when cut");
	check_report(x, n, fl & 1);

	oracle_walk(ORACLE_COUNT, x, n, &o);
	if (A.err || !o.ok)
		return 0;
	for (t = 0; t < 256; t++)
		if (ca.sub_count[t] != o.sub_count[t])
			fz_fail("census: %llu sub-records 0x%02X, oracle %llu",
			        (unsigned long long)ca.sub_count[t], t,
			        (unsigned long long)o.sub_count[t]);
	for (t = 0; t < 12; t++) {
		p23 += ca.prim_count[t];
		p23b += ca.prim_bytes[t];
		c3 += ca.nodata_count[t];
		c3b += ca.nodata_bytes[t];
	}
	if (p23 != o.n23 || p23b != o.elems || c3 != o.nc3 ||
	    c3b != o.c3_elems)
		fz_fail("census: arrays %llu/%llu, %llu/%llu; oracle %llu/%llu, "
		        "%llu/%llu", (unsigned long long)p23,
		        (unsigned long long)p23b, (unsigned long long)c3,
		        (unsigned long long)c3b, (unsigned long long)o.n23,
		        (unsigned long long)o.elems, (unsigned long long)o.nc3,
		        (unsigned long long)o.c3_elems);
	return 0;
}
