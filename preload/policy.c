/* The shim's policy: see policy.h. */
#include "policy.h"
#include "../strip/io/compressors.h"
#include "../strip/io/levels.h"
#include "../strip/engine/hprof.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* HPROFSTRIP_KEEP: comma-separated words: "strings", "bitmaps" */
static void parse_keep(struct policy *p, const char *v)
{
	while (v && *v) {
		size_t n = strcspn(v, ",");
		if (n == 7 && !memcmp(v, "strings", 7))
			p->keep_strings = 1;
		else if (n == 7 && !memcmp(v, "bitmaps", 7))
			p->keep_bitmaps = 1;
		else if (n && !p->keep_bad[0])
			snprintf(p->keep_bad, sizeof p->keep_bad, "%.*s", (int)n, v);
		v += n + (v[n] == ',');
	}
}

/* HPROFSTRIP_REDACT: a level word (levels.h), or unset or empty for none.
 * Any other value asked for redaction of some kind: the strongest level
 * (names) is given, and the value is noted to be said. */
static void parse_redact(struct policy *p, const char *v)
{
	int level = v && *v ? io_redact_level(v) : IO_LEVEL_OFF;

	if (level == IO_LEVEL_UNKNOWN) {
		snprintf(p->redact_bad, sizeof p->redact_bad, "%s", v);
		level = IO_LEVEL_NAMES;
	}
	p->redact = level;
}

/* HPROFSTRIP_COMPRESS: zstd[:1-19], gzip[:1-9], xz[:0-9] or lz4[:1-12] */
static void parse_compress(struct policy *p, const char *v)
{
	const struct io_compressor *c;
	size_t n;
	char *end;
	long lvl = 1;

	if (!v || !*v)
		return;
	n = strcspn(v, ":");
	c = io_compressor_named(v, n);
	if (c && v[n] == ':') {
		errno = 0;
		lvl = strtol(v + n + 1, &end, 10);
		if (!v[n + 1] || *end || errno || lvl < c->lo || lvl > c->hi)
			c = NULL;
	}
	if (!c || n >= sizeof p->compress) {
		snprintf(p->compress_bad, sizeof p->compress_bad, "%s", v);
		return;
	}
	memcpy(p->compress, c->name, n + 1);
	p->level = (int)lvl;
}

int policy_yes(const char *v, int dflt)
{
	static const char *const words[][2] = {
		{ "0", "1" }, { "no", "yes" }, { "false", "true" },
		{ "off", "on" },
	};
	unsigned i, j;

	if (!v || !*v)
		return dflt;
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		for (j = 0; j < 2; j++)
			if (!strcasecmp(v, words[i][j]))
				return (int)j;
	return -1;
}

/* A yes/no variable: its value, or dflt and the first value not
 * understood noted in p->bool_bad. */
static int yes_no(struct policy *p, const char *name, const char *v, int dflt)
{
	int r = policy_yes(v, dflt);

	if (r >= 0)
		return r;
	if (!p->bool_bad[0])
		snprintf(p->bool_bad, sizeof p->bool_bad, "%s=%.48s", name, v);
	return dflt;
}

/* Is the glob g (n bytes) one fnmatch cannot read: a '[' without its
 * ']', or a last '\\' with nothing to escape? (A libc reads such a '['
 * as itself, or fails; either way not what was meant.) */
int policy_glob_bad(const char *g, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (g[i] == '\\') {
			if (++i == n)
				return 1;
			continue;
		}
		if (g[i] != '[')
			continue;
		j = i + 1;
		if (j < n && (g[j] == '!' || g[j] == '^'))
			j++;
		if (j < n && g[j] == ']')  /* a ']' first is itself */
			j++;
		for (; j < n && g[j] != ']'; j++)
			if (g[j] == '[' && j + 1 < n && g[j + 1] == ':') {
				/* a class, [:alpha:], inside */
				for (j += 2; j + 1 < n && (g[j] != ':' ||
				                           g[j + 1] != ']'); j++)
					;
				if (j + 1 >= n)
					return 1;
				j++;
			}
		if (j >= n)
			return 1;
		i = j;
	}
	return 0;
}

/* The first glob of the colon-separated list that fnmatch cannot read,
 * in bad (size bytes); "" if none. */
static void first_bad_glob(const char *list, char *bad, size_t size)
{
	size_t n;

	bad[0] = 0;
	for (; *list; list += n + (list[n] == ':')) {
		n = strcspn(list, ":");
		if (policy_glob_bad(list, n)) {
			snprintf(bad, size, "%.*s", (int)n, list);
			return;
		}
	}
}

/* Each readable glob's literal tail (policy.h), or p->tails -1. */
static void find_tails(struct policy *p)
{
	const char *g = p->pattern;
	size_t n, k;

	p->tails = 0;
	for (; *g; g += n + (g[n] == ':')) {
		n = strcspn(g, ":");
		/* (an unreadable glob matches nothing: it has no tail) */
		if (!n || policy_glob_bad(g, n))
			continue;
		for (k = n; k > 0 && !strchr("*?[]\\", g[k - 1]); k--)
			;
		if (k == n || p->tails == POLICY_TAILS) {
			p->tails = -1;
			return;
		}
		p->tail_at[p->tails] = (unsigned short)(g + k - p->pattern);
		p->tail_len[p->tails++] = (unsigned short)(n - k);
		p->tail_end[(unsigned char)g[n - 1] / 8] |=
			(unsigned char)(1u << ((unsigned char)g[n - 1] % 8));
	}
}

/* "256M", "2G", "1500000K", "100000000": digits, then at most one of
 * K M G T (a B or iB after it) */
static int size_word(const char *v)
{
	size_t i = 0;

	while (v[i] >= '0' && v[i] <= '9')
		i++;
	if (!i || i > 15)
		return 0;
	if (v[i] && strchr("kKmMgGtT", v[i]))
		i++;
	if (!strcmp(v + i, "") || !strcmp(v + i, "B") || !strcmp(v + i, "iB"))
		return 1;
	return 0;
}

void policy_parse(struct policy *p,
                  const char *(*get)(void *ctx, const char *name), void *ctx)
{
	const char *pattern = get(ctx, "HPROFSTRIP_PATTERN");
	const char *sniff = get(ctx, "HPROFSTRIP_SNIFF");
	const char *quiet = get(ctx, "HPROFSTRIP_QUIET");
	const char *log = get(ctx, "HPROFSTRIP_LOG");
	const char *app = get(ctx, "HPROFSTRIP_APP_ONLY");
	const char *programs = get(ctx, "HPROFSTRIP_PROGRAMS");
	const char *histo = get(ctx, "HPROFSTRIP_HISTO");
	const char *suspects = get(ctx, "HPROFSTRIP_SUSPECTS");
	const char *filter, *v;

	memset(p, 0, sizeof *p);
	snprintf(p->pattern, sizeof p->pattern, "%s",
	         pattern && *pattern ? pattern : "*.hprof");
	p->sniff = yes_no(p, "HPROFSTRIP_SNIFF", sniff, 1);
	p->quiet = yes_no(p, "HPROFSTRIP_QUIET", quiet, 0);
	p->app_only = yes_no(p, "HPROFSTRIP_APP_ONLY", app, 0);
	p->histo = yes_no(p, "HPROFSTRIP_HISTO", histo, 1);
	p->suspects = yes_no(p, "HPROFSTRIP_SUSPECTS", suspects, 0);
	v = get(ctx, "HPROFSTRIP_SUSPECTS_MEMORY");
	if (v && size_word(v))
		snprintf(p->suspects_memory, sizeof p->suspects_memory, "%s", v);
	else if (v && *v)
		snprintf(p->suspects_memory_bad, sizeof p->suspects_memory_bad,
		         "%s", v);
	snprintf(p->programs, sizeof p->programs, "%s", programs ? programs : "");
	p->dirs = strchr(p->pattern, '/') != NULL;
	first_bad_glob(p->pattern, p->pattern_bad, sizeof p->pattern_bad);
	find_tails(p);
	snprintf(p->log, sizeof p->log, "%s", log ? log : "");
	parse_keep(p, get(ctx, "HPROFSTRIP_KEEP"));
	parse_redact(p, get(ctx, "HPROFSTRIP_REDACT"));
	v = get(ctx, "HPROFSTRIP_NAMES_KEY");
	snprintf(p->names_key, sizeof p->names_key, "%s", v ? v : "");
	parse_compress(p, get(ctx, "HPROFSTRIP_COMPRESS"));
	filter = get(ctx, "HPROFSTRIP_FILTER");
	if (filter && strlen(filter) >= sizeof p->filter)
		p->filter_long = 1;
	else if (filter)
		snprintf(p->filter, sizeof p->filter, "%s", filter);
}

static const char *env(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

static struct policy the_policy;
static __thread int parsing __attribute__((tls_model("initial-exec")));

static void parse_once(void)
{
	parsing = 1;
	policy_parse(&the_policy, env, NULL);
	parsing = 0;
}

/* Parsed once: the first caller parses, the others wait for it, then
 * all read the struct, never written again. A call from inside the parse
 * in this same thread (a signal handler) must not wait for itself: it
 * gets a policy under which nothing is a dump. */
const struct policy *policy(void)
{
	static const struct policy none = { .quiet = 1 };
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	static int loaded;

	if (__atomic_load_n(&loaded, __ATOMIC_ACQUIRE))
		return &the_policy;
	if (parsing)
		return &none;
	pthread_once(&once, parse_once);
	__atomic_store_n(&loaded, 1, __ATOMIC_RELEASE);
	return &the_policy;
}

/* Does a glob of the colon-separated list match a or b (b may be NULL)?
 * A glob fnmatch cannot read matches nothing. */
static int globs_match(const char *list, const char *a, const char *b)
{
	const char *g, *colon;
	char one[1024];

	for (g = list; *g; g = *colon ? colon + 1 : colon) {
		size_t n;
		colon = strchr(g, ':');
		if (!colon)
			colon = g + strlen(g);
		n = (size_t)(colon - g);
		if (!n || n >= sizeof one || policy_glob_bad(g, n))
			continue;
		memcpy(one, g, n);
		one[n] = 0;
		if (!fnmatch(one, a, 0) || (b && !fnmatch(one, b, 0)))
			return 1;
	}
	return 0;
}

int policy_matches(const struct policy *p, const char *path)
{
	const char *slash = strrchr(path, '/');

	return globs_match(p->pattern, path, slash ? slash + 1 : path);
}

int policy_program_listed(const struct policy *p, const char *name)
{
	return *name && globs_match(p->programs, name, NULL);
}

int policy_header(const unsigned char *h, size_t n, uint64_t born_ms,
                  uint64_t *stamp)
{
	size_t i, end;
	uint64_t t = 0;

	/* (its level is in the tenth byte, XFL) */
	if (n >= 1 && h[0] == 0x1f && (n < 2 || h[1] == 0x8b))
		return n < 10 ? HDR_MORE : HDR_GZIP;
	for (i = 0; i < n && i < HS_MAGIC_LEN; i++)
		if (h[i] != (unsigned char)HS_MAGIC[i])
			return HDR_OTHER;
	/* the header string ends with a NUL within 32 bytes (the engine's
	 * limit), then a 4-byte id size and the 8-byte stamp */
	for (end = HS_MAGIC_LEN; end < n && end < 32 && h[end]; end++)
		;
	if (end >= 32)
		return HDR_OTHER;
	if (n < end + 13)
		return HDR_MORE;
	for (i = end + 5; i < end + 13; i++)
		t = t << 8 | h[i];
	if (stamp)
		*stamp = t;
	return born_ms && t + HDR_SLACK_MS < born_ms ? HDR_COPY : HDR_DUMP;
}

/* policy_numbered_base of path's first n bytes, for prefix "" (p 0) or
 * "p" */
static size_t numbered_base(const char *path, size_t n, char p)
{
	size_t i = n, k = p != 0;

	while (i > 0 && path[i - 1] >= '0' && path[i - 1] <= '9')
		i--;
	if (i == n || i < k + 2 || (k && path[i - 1] != p) ||
	    path[i - k - 1] != '.')
		return 0;
	return i - k - 1;
}

size_t policy_numbered_base(const char *path, const char *prefix)
{
	if (prefix[0] && (prefix[1] || prefix[0] != 'p'))
		return 0;
	return numbered_base(path, strlen(path), prefix[0]);
}

/* Do path's first n bytes end with a glob's tail? (longer: with far, an
 * absolute form of path is matched too, which may) */
static int ends_with_tail(const struct policy *p, const char *path, size_t n,
                          int far)
{
	int i;

	for (i = 0; i < p->tails; i++) {
		const char *t = p->pattern + p->tail_at[i];
		size_t k = p->tail_len[i], j = k;
		if (k > n) {
			if (far)
				return 1;
			continue;
		}
		/* from the last byte: most names differ there */
		while (j > 0 && path[n - k + j - 1] == t[j - 1])
			j--;
		if (!j)
			return 1;
	}
	return 0;
}

int policy_may_match(const struct policy *p, const char *path)
{
	size_t n = strlen(path), b, c;
	int far = p->dirs && path[0] != '/';
	unsigned char last = n ? (unsigned char)path[n - 1] : 0;

	if (p->tails < 0)
		return 1;
	/* a ".gz" near the end: maybe a gzip dump's name (policy_kind
	 * tells) */
	for (b = n > 12 ? n - 12 : 0; b + 3 <= n; b++)
		if (path[b] == '.' && path[b + 1] == 'g' && path[b + 2] == 'z')
			return 1;
	/* (most names: their last byte ends no tail, and is no digit) */
	if (!far && !(p->tail_end[last / 8] & (1u << (last % 8))) &&
	    (last < '0' || last > '9'))
		return 0;
	if (ends_with_tail(p, path, n, far))
		return 1;
	/* the forms less a number: "<base>.N", "<base>.pN", "<base>.N.pN" */
	if ((c = numbered_base(path, n, 0)) != 0)
		return ends_with_tail(p, path, c, far);
	if ((b = numbered_base(path, n, 'p')) == 0)
		return 0;
	c = numbered_base(path, b, 0);
	return ends_with_tail(p, path, b, far) ||
	       (c && ends_with_tail(p, path, c, far));
}

/* The first n bytes of path, in base (size bytes); 0 if they do not fit. */
static int prefix_of(const char *path, size_t n, char *base, size_t size)
{
	if (!n || n >= size)
		return 0;
	memcpy(base, path, n);
	base[n] = 0;
	return 1;
}

/* A match, or a match with ".gz" after it (a runtime's gzip dump:
 * HotSpot names its -XX:HeapDumpGzipLevel dumps java_pid<pid>.hprof.gz). */
static int matches_gz(const struct policy *p, const char *path)
{
	char base[PATH_MAX];
	size_t n = strlen(path);

	return policy_matches(p, path) ||
	       (n > 3 && !strcmp(path + n - 3, ".gz") &&
	        prefix_of(path, n - 3, base, sizeof base) &&
	        policy_matches(p, base));
}

int policy_dump_name(const struct policy *p, const char *path)
{
	char base[PATH_MAX];

	if (matches_gz(p, path))
		return 1;
	return prefix_of(path, policy_numbered_base(path, ""), base,
	                 sizeof base) && matches_gz(p, base);
}

int policy_kind(const struct policy *p, const char *path, char *base,
                size_t size)
{
	if (policy_dump_name(p, path)) {
		snprintf(base, size, "%s", path);
		return DUMP_MAIN;
	}
	if (prefix_of(path, policy_numbered_base(path, "p"), base, size) &&
	    policy_dump_name(p, base))
		return DUMP_SEGMENT;
	return DUMP_NONE;
}

int policy_runtime_name(const char *name)
{
	const char *b = strrchr(name, '/');

	b = b ? b + 1 : name;
	return !strcmp(b, "libjvm.so") || !strcmp(b, "libart.so");
}

int policy_absolute(int dirfd, const char *path, char *out, size_t size)
{
	char link[64];
	size_t n;
	ssize_t k;

	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (dirfd == AT_FDCWD) {
		if (!getcwd(out, size))
			return 0;
	} else {
		snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
		k = readlink(link, out, size - 1);
		if (k <= 0)
			return 0;
		out[k] = 0;
	}
	n = strlen(out);
	if (n + 1 + strlen(path) >= size)
		return 0;
	snprintf(out + n, size - n, "%s%s", n && out[n - 1] == '/' ? "" : "/",
	         path);
	return 1;
}

static int runtime_lib(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	return info->dlpi_name && policy_runtime_name(info->dlpi_name);
}

/* Only a process that hosts a runtime writes heap dumps of its own, so
 * only there is a file sniffed: a cp or cat of a dump is left alone. */
int policy_hosts_runtime(void)
{
	static int yes;

	if (__atomic_load_n(&yes, __ATOMIC_RELAXED))
		return 1;
	if (!dl_iterate_phdr(runtime_lib, NULL))
		return 0;
	__atomic_store_n(&yes, 1, __ATOMIC_RELAXED);
	return 1;
}

/* argv[0]'s basename and the executable's, matched once */
int policy_opted_in(void)
{
	static int state;  /* 0 not known, 1 no, 2 yes */
	const struct policy *p = policy();
	char exe[PATH_MAX], *slash;
	ssize_t k;
	int yes, saved = errno;

	if ((yes = __atomic_load_n(&state, __ATOMIC_RELAXED)) != 0)
		return yes == 2;
	yes = 0;
	if (p->programs[0]) {
		yes = policy_program_listed(p, program_invocation_short_name);
		k = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (!yes && k > 0) {
			exe[k] = 0;
			slash = strrchr(exe, '/');
			yes = policy_program_listed(p, slash ? slash + 1 : exe);
		}
	}
	__atomic_store_n(&state, yes ? 2 : 1, __ATOMIC_RELAXED);
	errno = saved;
	return yes;
}
