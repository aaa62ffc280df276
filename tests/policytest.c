/*
 * policytest: the shim's policy (preload/policy.c) as plain C, without
 * LD_PRELOAD: configuration from the variables' values, which paths are
 * dumps (patterns, HotSpot's numbered names, JDK 22 segment files), which
 * libraries stand for a runtime. Prints one line per failed check and
 * 'policy: N passed, N failed'.
 */
#include "../preload/policy.h"
#include "check.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void kind_is(const struct policy *p, const char *path, int want,
                    const char *want_base)
{
	char base[256] = "";
	int k = policy_kind(p, path, base, sizeof base);

	CHECK(k == want, "%s: kind %d, want %d", path, k, want);
	if (want != DUMP_NONE)
		CHECK(!strcmp(base, want_base), "%s: base %s, want %s", path, base,
		      want_base);
}

/* A fake environment: NULL-terminated name, value pairs. */
static const char *lookup(void *ctx, const char *name)
{
	const char **kv = ctx;

	for (; kv[0]; kv += 2)
		if (!strcmp(kv[0], name))
			return kv[1];
	return NULL;
}

/* policy_parse with HPROFSTRIP_PATTERN, _SNIFF, _QUIET, _LOG, _KEEP */
static void parse(struct policy *p, const char *pattern, const char *sniff,
                  const char *quiet, const char *log, const char *keep)
{
	const char *kv[] = { "HPROFSTRIP_PATTERN", pattern, "HPROFSTRIP_SNIFF",
	                     sniff, "HPROFSTRIP_QUIET", quiet, "HPROFSTRIP_LOG",
	                     log, "HPROFSTRIP_KEEP", keep, NULL };
	policy_parse(p, lookup, kv);
}

/* policy_parse with HPROFSTRIP_COMPRESS and HPROFSTRIP_FILTER */
static void parse_pipe(struct policy *p, const char *compress,
                       const char *filter)
{
	const char *kv[] = { "HPROFSTRIP_COMPRESS", compress,
	                     "HPROFSTRIP_FILTER", filter, NULL };
	policy_parse(p, lookup, kv);
}

/* HPROFSTRIP_APP_ONLY=v (NULL: unset) gives app_only want */
static void app_only_is(const char *v, int want)
{
	const char *kv[] = { "HPROFSTRIP_APP_ONLY", v, NULL };
	struct policy p;

	policy_parse(&p, lookup, kv);
	CHECK(p.app_only == want, "app-only %s%s%s: %d", v ? "'" : "",
	      v ? v : "unset", v ? "'" : "", p.app_only);
}

/* HPROFSTRIP_HISTO=v (NULL: unset) gives histo want; bad: the value is
 * noted as not understood */
static void histo_is(const char *v, int want, int bad)
{
	const char *kv[] = { "HPROFSTRIP_HISTO", v, NULL };
	struct policy p;

	policy_parse(&p, lookup, kv);
	CHECK(p.histo == want && !p.bool_bad[0] == !bad, "histo %s%s%s: %d "
	      "(not understood: '%s')", v ? "'" : "", v ? v : "unset",
	      v ? "'" : "", p.histo, p.bool_bad);
}

/* HPROFSTRIP_COMPRESS=v gives program prog (NULL: refused) at level */
static void compress_is(const char *v, const char *prog, int level)
{
	struct policy p;

	parse_pipe(&p, v, NULL);
	if (prog)
		CHECK(!strcmp(p.compress, prog) && p.level == level &&
		      !p.compress_bad[0], "compress %s: %s %d", v, p.compress,
		      p.level);
	else
		CHECK(!p.compress[0] && !strcmp(p.compress_bad, v),
		      "compress %s refused: '%s'", v, p.compress_bad);
}

/* HPROFSTRIP_REDACT=v (NULL: unset) gives level want; bad: said */
static void redact_is(const char *v, int want, int bad)
{
	const char *kv[] = { "HPROFSTRIP_REDACT", v, NULL };
	struct policy p;

	policy_parse(&p, lookup, kv);
	CHECK(p.redact == want && !p.redact_bad[0] == !bad &&
	      (!bad || !strcmp(p.redact_bad, v)),
	      "redact '%s': level %d, want %d; not known '%s'", v ? v : "unset",
	      p.redact, want, p.redact_bad);
}

/* the level words, whatever their case and the blanks around them; a
 * word not known gives the strongest level, names */
static void redact_levels(void)
{
	static const char *const values[] = { "values", "VALUES", "Values",
		" values", "values\t", "values\r", "1", "yes", "YES", "true", "On",
		"on " };
	static const char *const names[] = { "names", "NAMES", "Names",
		"names ", "\tnAmEs  ", "names\r\n", "\n names\v\f" };
	static const char *const off[] = { "0", "no", "No", "false", "OFF",
		" off\t" };
	static const char *const bad[] = { "bogus", "name", "values,names",
		"na mes", " ", "\r\n", "2", "valuesx", "v\ralues" };
	size_t i;

	redact_is(NULL, 0, 0);
	redact_is("", 0, 0);
	for (i = 0; i < sizeof values / sizeof values[0]; i++)
		redact_is(values[i], 1, 0);
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		redact_is(names[i], 2, 0);
	for (i = 0; i < sizeof off / sizeof off[0]; i++)
		redact_is(off[i], 0, 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		redact_is(bad[i], 2, 1);
}

/* globs fnmatch cannot read match nothing, and the first is noted */
static void bad_globs(void)
{
	static const char *const good[] = { "*.hprof", "[ab]*.hprof", "[]]x",
		"[!a]x", "[^a]x", "[[:alpha:]]*", "\\[x", "a\\*", "[a-z]" };
	static const char *const bad[] = { "[", "a[b", "[!]", "x\\",
		"[[:alpha:]", "*.hprof[", "[a-" };
	struct policy p;
	size_t i;

	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		CHECK(!policy_glob_bad(good[i], strlen(good[i])), "glob %s: bad",
		      good[i]);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK(policy_glob_bad(bad[i], strlen(bad[i])), "glob %s: not bad",
		      bad[i]);
	parse(&p, "[", NULL, NULL, NULL, NULL);
	CHECK(!strcmp(p.pattern_bad, "["), "pattern [: bad '%s'", p.pattern_bad);
	kind_is(&p, "[", DUMP_NONE, "");
	kind_is(&p, "x.hprof", DUMP_NONE, "");
	parse(&p, "*.bin:a[b:[:*.hprof", NULL, NULL, NULL, NULL);
	CHECK(!strcmp(p.pattern_bad, "a[b"), "pattern a[b: bad '%s'",
	      p.pattern_bad);
	kind_is(&p, "x.hprof", DUMP_MAIN, "x.hprof");
	kind_is(&p, "x.bin", DUMP_MAIN, "x.bin");
	kind_is(&p, "a[b", DUMP_NONE, "");
	parse(&p, "[ab].hprof", NULL, NULL, NULL, NULL);
	CHECK(!p.pattern_bad[0], "pattern [ab].hprof: bad '%s'", p.pattern_bad);
	kind_is(&p, "a.hprof", DUMP_MAIN, "a.hprof");
}

/* policy_may_match never rules out a name policy_kind would take, in
 * itself or (relative, with a glob that names a directory) made absolute;
 * and it rules out the names that cannot match: returns how many of the
 * names it ruled out. */
static int may_match_is_safe(const char *pattern)
{
	static const char *const names[] = {
		"x.hprof", "x.hprof.1", "x.hprof.p2", "x.hprof.1.p3",
		"x.hprof.p2.1", "a/b/x.hprof", "/srv/dumps/x.hprof", "x.hprof.tmp",
		"x.hprofx", "hprof", ".hprof", "a.txt", "heap.bin", "heap.bin.p0",
		"/tmp/x", "dumps/java_pid12.hprof", "java_pid12.hprof.7", "p1",
		".p1", "x.p", "x.", "", "dumps/heap.bin", "srv/dumps/a.hprof", "12",
		"x.hprof.gz", "x.hprof.gz.p1", "x.hprof.gz.2", "a.gz",
	};
	static const char *const dirs[] = { "/srv/", "/srv/dumps/", "/" };
	struct policy p;
	char base[256], full[512];
	unsigned i, j;
	int out = 0;

	parse(&p, pattern, NULL, NULL, NULL, NULL);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (policy_may_match(&p, names[i]))
			continue;
		out++;
		CHECK(policy_kind(&p, names[i], base, sizeof base) == DUMP_NONE,
		      "pattern %s: %s ruled out, but it is a dump", pattern,
		      names[i]);
		for (j = 0; names[i][0] != '/' && j < sizeof dirs / sizeof dirs[0];
		     j++) {
			snprintf(full, sizeof full, "%s%s", dirs[j], names[i]);
			CHECK(!p.dirs || policy_kind(&p, full, base, sizeof base) ==
			                     DUMP_NONE,
			      "pattern %s: %s ruled out, but %s is a dump", pattern,
			      names[i], full);
		}
	}
	return out;
}

static void may_match(void)
{
	struct policy p;

	/* 10 of the names end in .hprof, less a number; 3 more in .bin */
	CHECK(may_match_is_safe(NULL) == 15, "*.hprof: %d names ruled out, "
	      "want 15", may_match_is_safe(NULL));
	CHECK(may_match_is_safe("*.hprof:*.bin") == 12, "*.hprof:*.bin");
	CHECK(may_match_is_safe("/srv/dumps/*:x") == 0, "a glob ending in *");
	may_match_is_safe("/srv/dumps/x.hprof");
	may_match_is_safe("[ab]:*.hprof[");
	may_match_is_safe("srv/dumps/a.hprof:?2");
	may_match_is_safe("*.hpro\\f:heap.b?n");
	parse(&p, "*.hprof", NULL, NULL, NULL, NULL);
	CHECK(!policy_may_match(&p, "/tmp/build/x.o"), "x.o ruled out");
	CHECK(policy_may_match(&p, "java_pid1.hprof.p3"), "a segment");
	parse(&p, "/srv/dumps/x.hprof", NULL, NULL, NULL, NULL);
	CHECK(policy_may_match(&p, "x.hprof") && policy_may_match(&p, ".hprof"),
	      "a tail longer than a relative name");
	CHECK(!policy_may_match(&p, "/x.hprof"), "nor an absolute one");
	/* a glob ending in a bracket has no literal tail: nothing ruled
	 * out by one (a tail of "fF]" once ruled every dump out) */
	may_match_is_safe("*.hpro[fF]");
	parse(&p, "*.hpro[fF]", NULL, NULL, NULL, NULL);
	CHECK(policy_may_match(&p, "/tmp/x.hprof") &&
	      policy_may_match(&p, "x.hproF") &&
	      policy_may_match(&p, "java_pid1.hprof.p3"),
	      "*.hpro[fF]: a dump ruled out");
	parse(&p, "*.bin:heap.hpro[!x]", NULL, NULL, NULL, NULL);
	CHECK(policy_may_match(&p, "heap.hprof") &&
	      policy_may_match(&p, "/d/a.bin"), "heap.hpro[!x]: ruled out");
	parse(&p, "[ab", NULL, NULL, NULL, NULL);
	CHECK(p.tails == 0 && !policy_may_match(&p, "[ab"),
	      "an unreadable glob matches nothing");
}

int main(void)
{
	struct policy p;
	char buf[4096], cwd[4000];

	/* configuration */
	parse(&p, NULL, NULL, NULL, NULL, NULL);
	CHECK(!strcmp(p.pattern, "*.hprof") && p.sniff && !p.quiet && !p.dirs &&
	      !p.log[0], "defaults");
	parse(&p, "", "0", "1", "/tmp/log", NULL);
	CHECK(!strcmp(p.pattern, "*.hprof") && !p.sniff && p.quiet &&
	      !strcmp(p.log, "/tmp/log"), "empty pattern, sniff 0, quiet 1");
	parse(&p, "/srv/*.bin", "1", "0", "", NULL);
	CHECK(p.sniff && !p.quiet && p.dirs && !p.log[0], "sniff 1, quiet 0");
	parse(&p, NULL, "", "", NULL, NULL);
	CHECK(p.sniff && !p.quiet, "empty values");
	CHECK(!p.keep_strings && !p.keep_bad[0], "keep: off by default");
	parse(&p, NULL, NULL, NULL, NULL, "strings");
	CHECK(p.keep_strings && !p.keep_bad[0], "keep=strings");
	parse(&p, NULL, NULL, NULL, NULL, ",strings,bogus,x");
	CHECK(p.keep_strings && !strcmp(p.keep_bad, "bogus"), "keep: a bad word");
	parse(&p, NULL, NULL, NULL, NULL, "string");
	CHECK(!p.keep_strings && !strcmp(p.keep_bad, "string"), "keep=string");

	redact_levels();
	bad_globs();
	may_match();

	/* app-only: set and not "0", like HPROFSTRIP_QUIET */
	app_only_is(NULL, 0);
	app_only_is("", 0);
	app_only_is("0", 0);
	app_only_is("1", 1);
	app_only_is("yes", 1);
	app_only_is("00", 0);  /* not understood: the default, said */
	parse(&p, NULL, NULL, "1", NULL, "strings");
	CHECK(!p.app_only, "app-only: off with other variables set");

	/* histo: a yes/no word, on by default */
	histo_is(NULL, 1, 0);
	histo_is("", 1, 0);
	histo_is("0", 0, 0);
	histo_is("no", 0, 0);
	histo_is("OFF", 0, 0);
	histo_is("yes", 1, 0);
	histo_is("maybe", 1, 1);  /* not understood: the default, said */
	CHECK(p.histo, "histo: on with other variables set");

	/* yes/no words, for every yes/no variable */
	{
		static const char *const yes[] = { "1", "yes", "YES", "true",
		                                   "True", "on", "ON" };
		static const char *const no[] = { "0", "no", "No", "false",
		                                  "FALSE", "off", "Off" };
		unsigned i;

		for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
			parse(&p, NULL, yes[i], yes[i], NULL, NULL);
			CHECK(p.sniff && p.quiet && !p.bool_bad[0], "yes: %s",
			      yes[i]);
			app_only_is(yes[i], 1);
			CHECK(policy_yes(yes[i], 0) == 1, "policy_yes %s", yes[i]);
		}
		for (i = 0; i < sizeof no / sizeof no[0]; i++) {
			parse(&p, NULL, no[i], no[i], NULL, NULL);
			CHECK(!p.sniff && !p.quiet && !p.bool_bad[0], "no: %s",
			      no[i]);
			app_only_is(no[i], 0);
			CHECK(policy_yes(no[i], 1) == 0, "policy_yes %s", no[i]);
		}
		CHECK(policy_yes(NULL, 1) == 1 && policy_yes("", 0) == 0 &&
		      policy_yes("maybe", 1) == -1 && policy_yes("2", 0) == -1 &&
		      policy_yes("yess", 0) == -1, "policy_yes: defaults, bad");
		parse(&p, NULL, "maybe", "sure", NULL, NULL);
		CHECK(p.sniff && !p.quiet &&
		      !strcmp(p.bool_bad, "HPROFSTRIP_SNIFF=maybe"),
		      "bad yes/no: defaults kept, the first said: '%s'",
		      p.bool_bad);
		parse(&p, NULL, "1", "sure", NULL, NULL);
		CHECK(p.sniff && !p.quiet &&
		      !strcmp(p.bool_bad, "HPROFSTRIP_QUIET=sure"),
		      "bad quiet: '%s'", p.bool_bad);
	}

	/* programs that strip every dump they write */
	{
		const char *kv[] = { "HPROFSTRIP_PROGRAMS", "adb::my-*:x", NULL };

		policy_parse(&p, lookup, kv);
		CHECK(policy_program_listed(&p, "adb") &&
		      policy_program_listed(&p, "my-puller") &&
		      policy_program_listed(&p, "x"), "programs listed");
		CHECK(!policy_program_listed(&p, "cp") &&
		      !policy_program_listed(&p, "") &&
		      !policy_program_listed(&p, "adbd") &&
		      !policy_program_listed(&p, "xy"), "programs not listed");
		parse(&p, NULL, NULL, NULL, NULL, NULL);
		CHECK(!policy_program_listed(&p, "adb") &&
		      !policy_program_listed(&p, "java"), "none by default");
	}

	/* headers: whose dump is it? */
	{
		unsigned char h[HDR_MAX + 8];
		const uint64_t born = 1700000000000ull;  /* ms */
		uint64_t stamp = 0;
		size_t n;
		int i;

		/* "JAVA PROFILE 1.0.2\0", id size 8, stamp */
		memset(h, 0, sizeof h);
		memcpy(h, "JAVA PROFILE 1.0.2", 18);
		h[22] = 8;
		for (i = 0; i < 8; i++)
			h[23 + i] = (unsigned char)(born >> (56 - 8 * i));
		for (n = 0; n < 31; n++)
			CHECK(policy_header(h, n, born, NULL) == HDR_MORE,
			      "header cut at %zu: more", n);
		CHECK(policy_header(h, 31, born, &stamp) == HDR_DUMP &&
		      stamp == born, "stamped when the process began: a dump");
		CHECK(policy_header(h, 31, born + 5000, NULL) == HDR_COPY,
		      "stamped 5 s before: a copy");
		CHECK(policy_header(h, 31, born + HDR_SLACK_MS, NULL) == HDR_DUMP,
		      "within the slack: a dump");
		CHECK(policy_header(h, 31, born + HDR_SLACK_MS + 1, NULL) ==
		      HDR_COPY, "past the slack: a copy");
		CHECK(policy_header(h, 31, 0, NULL) == HDR_DUMP,
		      "stamp not asked about");
		h[30] = 0xff;  /* later than born */
		CHECK(policy_header(h, 40, born, NULL) == HDR_DUMP, "later");
		/* ART's 1.0.3 */
		h[17] = '3';
		CHECK(policy_header(h, 31, born + 100000, NULL) == HDR_COPY,
		      "1.0.3 copy");
		/* others */
		CHECK(policy_header((const unsigned char *)"\x1f\x8b\x08", 3, born,
		                    NULL) == HDR_MORE, "gzip's first 3 bytes");
		CHECK(policy_header((const unsigned char *)"\x1f\x8b\x08\0\0\0\0\0\4",
		                    9, born, NULL) == HDR_MORE,
		      "gzip's header less its OS byte");
		CHECK(policy_header((const unsigned char *)"\x1f\x8b\x08\0\0\0\0\0\4\3",
		                    10, born, NULL) == HDR_GZIP, "gzip");
		CHECK(policy_header((const unsigned char *)"\x1f", 1, born, NULL) ==
		      HDR_MORE, "gzip's first byte");
		CHECK(policy_header((const unsigned char *)"\x1f\x8c", 2, born,
		                    NULL) == HDR_OTHER, "not gzip");
		CHECK(policy_header((const unsigned char *)"JAVA PROFILX", 12, born,
		                    NULL) == HDR_OTHER, "not HPROF");
		CHECK(policy_header((const unsigned char *)"JAVA", 4, born, NULL) ==
		      HDR_MORE, "a prefix of the magic");
		memset(h, 'x', sizeof h);
		memcpy(h, "JAVA PROFILE 1.0.", 17);
		CHECK(policy_header(h, HDR_MAX, born, NULL) == HDR_OTHER,
		      "no NUL in 32 bytes");
	}

	/* compressors and filters */
	parse_pipe(&p, NULL, NULL);
	CHECK(!p.compress[0] && !p.compress_bad[0] && !p.filter[0] &&
	      !p.filter_long, "compress, filter: off by default");
	parse_pipe(&p, "", "");
	CHECK(!p.compress[0] && !p.compress_bad[0] && !p.filter[0],
	      "compress, filter: empty");
	compress_is("zstd", "zstd", 1);
	compress_is("zstd:19", "zstd", 19);
	compress_is("gzip", "gzip", 1);
	compress_is("gzip:9", "gzip", 9);
	compress_is("xz:0", "xz", 0);
	compress_is("lz4", "lz4", 1);
	compress_is("lz4:12", "lz4", 12);
	compress_is("lz4:13", NULL, 0);
	compress_is("lz4:0", NULL, 0);
	compress_is("zstd:0", NULL, 0);
	compress_is("zstd:20", NULL, 0);
	compress_is("gzip:10", NULL, 0);
	compress_is("zstd:", NULL, 0);
	compress_is("zstd:3x", NULL, 0);
	compress_is("zst", NULL, 0);
	compress_is("bzip2", NULL, 0);
	compress_is("zstd:-1", NULL, 0);
	parse_pipe(&p, NULL, "curl -T - https://x/$HPROFSTRIP_PATH");
	CHECK(!strcmp(p.filter, "curl -T - https://x/$HPROFSTRIP_PATH") &&
	      !p.filter_long, "filter");
	memset(buf, 'x', sizeof buf - 1);
	buf[sizeof buf - 1] = 0;
	parse_pipe(&p, NULL, buf);
	CHECK(!p.filter[0] && p.filter_long, "filter too long");

	/* patterns: the path or its basename, several globs */
	parse(&p, NULL, NULL, NULL, NULL, NULL);
	CHECK(policy_matches(&p, "x.hprof"), "x.hprof");
	CHECK(policy_matches(&p, "/var/tmp/x.hprof"), "basename");
	CHECK(!policy_matches(&p, "x.hprofx"), "x.hprofx");
	CHECK(!policy_matches(&p, "heap.bin"), "heap.bin");
	parse(&p, "::*.dump:heap-*.bin::", NULL, NULL, NULL, NULL);
	CHECK(policy_matches(&p, "a.dump") && policy_matches(&p, "d/heap-1.bin"),
	      "several globs");
	CHECK(!policy_matches(&p, "x.hprof"), "the default is replaced");

	/* numbered names */
	CHECK(policy_numbered_base("gc.hprof.1", "") == 8, "gc.hprof.1");
	CHECK(policy_numbered_base("gc.hprof.123", "") == 8, "gc.hprof.123");
	CHECK(policy_numbered_base("gc.hprof.", "") == 0, "gc.hprof.");
	CHECK(policy_numbered_base("gc.hprof.1a", "") == 0, "gc.hprof.1a");
	CHECK(policy_numbered_base("gc.hprof", "") == 0, "gc.hprof");
	CHECK(policy_numbered_base(".1", "") == 0, ".1");
	CHECK(policy_numbered_base("x.hprof.p12", "p") == 7, "x.hprof.p12");
	CHECK(policy_numbered_base("x.hprof.p", "p") == 0, "x.hprof.p");
	CHECK(policy_numbered_base("x.hprof.12", "p") == 0, "x.hprof.12 as .pN");

	/* kinds */
	parse(&p, NULL, NULL, NULL, NULL, NULL);
	kind_is(&p, "x.hprof", DUMP_MAIN, "x.hprof");
	kind_is(&p, "/d/gc.hprof.5", DUMP_MAIN, "/d/gc.hprof.5");
	kind_is(&p, "java_pid7.hprof.3", DUMP_MAIN, "java_pid7.hprof.3");
	kind_is(&p, "x.hprof.p0", DUMP_SEGMENT, "x.hprof");
	/* a runtime's gzip dump: java_pid<pid>.hprof.gz, its numbered and
	 * segment names; ".gz" alone, or after no dump's name, is none */
	kind_is(&p, "java_pid7.hprof.gz", DUMP_MAIN, "java_pid7.hprof.gz");
	kind_is(&p, "x.hprof.gz.1", DUMP_MAIN, "x.hprof.gz.1");
	kind_is(&p, "x.hprof.gz.p3", DUMP_SEGMENT, "x.hprof.gz");
	kind_is(&p, "x.hprof.gz.gz", DUMP_NONE, "");
	kind_is(&p, "x.gz", DUMP_NONE, "");
	kind_is(&p, ".gz", DUMP_NONE, "");
	kind_is(&p, "heap.bin.gz", DUMP_NONE, "");
	kind_is(&p, "gc.hprof.3.p12", DUMP_SEGMENT, "gc.hprof.3");
	kind_is(&p, "gc.hprof.3.4", DUMP_NONE, "");
	kind_is(&p, "heap.bin", DUMP_NONE, "");
	kind_is(&p, "heap.bin.p0", DUMP_NONE, "");
	kind_is(&p, "x.hprof.tmp", DUMP_NONE, "");

	/* runtimes */
	CHECK(policy_runtime_name("/usr/lib/jvm/j/lib/server/libjvm.so"), "libjvm");
	CHECK(policy_runtime_name("libart.so"), "libart");
	CHECK(!policy_runtime_name("libjvm.so.1"), "libjvm.so.1");
	CHECK(!policy_runtime_name("/x/libartx.so"), "libartx.so");
	CHECK(!policy_runtime_name(""), "empty name");

	/* relative paths made absolute */
	CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
	CHECK(policy_absolute(AT_FDCWD, "./a/x.hprof", buf, sizeof buf) &&
	      !strncmp(buf, cwd, strlen(cwd)) &&
	      !strcmp(buf + strlen(cwd), strcmp(cwd, "/") ? "/a/x.hprof"
	                                                  : "a/x.hprof"),
	      "absolute: %s", buf);
	CHECK(!policy_absolute(AT_FDCWD, "x", buf, 2), "too long");

	return check_done("policy");
}
