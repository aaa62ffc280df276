/*
 * hprofstrip-run: run a command with libhprofstrip.so preloaded, as
 * eatmydata does for libeatmydata. It sets LD_PRELOAD (the library first,
 * before whatever was there) and the shim's HPROFSTRIP_* variables its
 * options ask for, then execs the command. See hprofstrip-run(1).
 *
 * The library: $HPROFSTRIP_LIB, else the first that exists of, from this
 * program's directory DIR (readlink /proc/self/exe):
 *   DIR/../lib/MULTIARCH/hprofstrip/libhprofstrip.so   the Debian package
 *   DIR/../lib/hprofstrip/LIBC/libhprofstrip.so        a release tarball,
 *       LIBC glibc or musl: the C library COMMAND runs with (runlibc.c)
 *   DIR/../lib/hprofstrip/libhprofstrip.so             make install
 *   DIR/libhprofstrip.so                               the build directory
 * MULTIARCH is the compiler's multiarch triplet (HS_MULTIARCH, set by the
 * Makefile; none if the compiler has none).
 */
#include "runlibc.h"
#include "../strip/io/compressors.h"
#include "../strip/io/levels.h"
#include "../strip/engine/hprof.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "hprofstrip-run"
#define LIBNAME "libhprofstrip.so"

enum {
	EXIT_USAGE = 2,
	EXIT_NOLIB = 125,       /* the launcher itself failed, as env(1) */
	EXIT_CANNOT_RUN = 126,  /* found, not executable */
	EXIT_NOT_FOUND = 127,   /* not found */
};

static const char usage[] =
"Usage: hprofstrip-run [OPTIONS] [--] COMMAND [ARG...]\n"
"Run COMMAND with libhprofstrip.so preloaded, so that the heap dumps its\n"
"Java runtime writes reach the disk already stripped of primitive-array\n"
"contents. Restore them with hprofrestore before opening them in a viewer.\n"
"\n"
"  --pattern GLOB   HPROFSTRIP_PATTERN: colon-separated globs of dump paths\n"
"                   (the shim's default: *.hprof)\n"
"  --keep WHAT      HPROFSTRIP_KEEP=WHAT: strings keeps the contents of\n"
"                   Strings, bitmaps Android bitmaps' pictures (both\n"
"                   user data), strings,bitmaps both\n"
"  --redact[=names] HPROFSTRIP_REDACT=values: also zero every primitive\n"
"                   field value and the application's static values, so\n"
"                   no user value reaches the disk (references stay);\n"
"                   =names: names too, the originals in DUMP.names;\n"
"                   =LEVEL in any case: values, names, 1, yes, true, on\n"
"                   (values), 0, no, false, off (none)\n"
"  --compress C     HPROFSTRIP_COMPRESS: write PATH.zst, .gz, .xz or .lz4\n"
"                   through the compressor; C is zstd[:1-19], gzip[:1-9],\n"
"                   xz[:0-9] or lz4[:1-12]\n"
"  --filter CMD     HPROFSTRIP_FILTER: pipe each stripped dump to the shell\n"
"                   command CMD (the dump's path in HPROFSTRIP_PATH)\n"
"  --app-only       HPROFSTRIP_APP_ONLY=1: Android dumps lose the objects of\n"
"                   the zygote and image heaps while they are written\n"
"  --histo, --no-histo\n"
"                   HPROFSTRIP_HISTO=1 or 0: write (the shim's default) or\n"
"                   not each dump's class histogram, DUMP.histo, and the\n"
"                   top three classes on its close line\n"
"  --suspects       HPROFSTRIP_SUSPECTS=1: once each dump has closed, a\n"
"                   detached, low-priority hprofstrip --suspects writes\n"
"                   DUMP.suspects (what holds the heap; 0600)\n"
"  --programs LIST  the programs (colon-separated names or globs) that strip\n"
"                   every dump they write, copies too, instead of COMMAND\n"
"                   (added to HPROFSTRIP_PROGRAMS)\n"
"  -q               HPROFSTRIP_QUIET=1: the shim prints nothing\n"
"  -h, --help       this help\n"
"  -V, --version\n"
"\n"
"A process that hosts a Java runtime strips that runtime's own dumps, never\n"
"a copy of an older one. A wrapped COMMAND that hosts none, such as\n"
"'adb pull', strips every dump it writes: COMMAND's name is added to\n"
"HPROFSTRIP_PROGRAMS (--programs names others). Its child processes are\n"
"not named, so a cp or tar they run is left alone.\n"
"\n"
"LD_PRELOAD gets the library's absolute path before any value it has (not\n"
"twice). The library: $HPROFSTRIP_LIB if set, else the first there of, from\n"
"the directory DIR of this program, DIR/../lib/MULTIARCH/hprofstrip/ (the\n"
"Debian package), DIR/../lib/hprofstrip/glibc/ or musl/ (a release tarball:\n"
"the one of the C library COMMAND runs with), DIR/../lib/hprofstrip/ (make\n"
"install), DIR/ (the build directory); each with libhprofstrip.so.\n"
"\n"
"Exit status: COMMAND's; 2 usage error, 125 no library, 126 COMMAND not\n"
"executable, 127 COMMAND not found.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, PROG ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '" PROG " --help'.\n");
	return EXIT_USAGE;
}

/* A decimal level with no sign and no leading zero, in [lo, hi]. */
static int level_ok(const char *s, int lo, int hi)
{
	int n = 0;

	if (!*s || (s[0] == '0' && s[1]))
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > 99)
			return 0;
		n = n * 10 + (*s - '0');
	}
	return n >= lo && n <= hi;
}

/* zstd, zstd:1..19, gzip, gzip:1..9, xz, xz:0..9, lz4, lz4:1..12 */
static int compress_ok(const char *c)
{
	size_t n = strcspn(c, ":");
	const struct io_compressor *k = io_compressor_named(c, n);

	if (!k)
		return 0;
	return !c[n] || level_ok(c + n + 1, k->lo, k->hi);
}

/* Is path a readable regular file? */
static int lib_there(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, R_OK);
}

#ifndef HS_MULTIARCH
#define HS_MULTIARCH ""
#endif

/* out = PREFIX/lib/SUB/LIBNAME (SUB without its slashes' care), if that is
 * a library */
static int lib_at(char *out, int plen, const char *prefix, const char *sub)
{
	return snprintf(out, PATH_MAX, "%.*s/lib/%s" LIBNAME, plen, prefix,
	                sub) < PATH_MAX && lib_there(out);
}

/* The library's absolute path into out (PATH_MAX bytes), for running cmd;
 * 0 if none (said). */
static int find_lib(char *out, const char *cmd)
{
	const char *env = getenv("HPROFSTRIP_LIB");
	char dir[PATH_MAX], *slash;
	int parent;
	ssize_t n;

	if (env && *env) {
		errno = 0;
		if (!lib_there(env) || !realpath(env, out)) {
			fprintf(stderr, PROG ": HPROFSTRIP_LIB=%s: %s\n", env,
			        errno ? strerror(errno) : "not a regular file");
			return 0;
		}
		return 1;
	}
	n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0) {
		fprintf(stderr, PROG ": cannot tell where it is installed "
		        "(/proc/self/exe: %s); set HPROFSTRIP_LIB to the path of "
		        LIBNAME "\n", strerror(errno));
		return 0;
	}
	dir[n] = 0;
	/* the kernel's path: absolute and canonical, so DIR/.. is DIR less
	 * its last component, and no path made here holds "." or ".." */
	slash = strrchr(dir, '/');
	*(slash ? slash : dir) = 0;
	slash = strrchr(dir, '/');
	parent = slash ? (int)(slash - dir) : 0;
	if (*HS_MULTIARCH &&
	    lib_at(out, parent, dir, HS_MULTIARCH "/hprofstrip/"))
		return 1;
	{
		/* a release holds both; the command's libc picks, else this
		 * machine's (a static command preloads nothing either way) */
		enum run_libc c = run_libc_of(cmd);
		if (c == RUN_LIBC_UNKNOWN)
			c = run_libc_host();
		if (lib_at(out, parent, dir, c == RUN_LIBC_MUSL ?
		           "hprofstrip/musl/" : "hprofstrip/glibc/"))
			return 1;
	}
	if (lib_at(out, parent, dir, "hprofstrip/"))
		return 1;
	if (snprintf(out, PATH_MAX, "%s/" LIBNAME, dir) < PATH_MAX &&
	    lib_there(out))
		return 1;
	fprintf(stderr, PROG ": " LIBNAME " not found in %s/ nor under "
	        "%.*s/lib/ (in hprofstrip/, hprofstrip/glibc/, "
	        "hprofstrip/musl/%s%s); set HPROFSTRIP_LIB to its path\n",
	        dir, parent, dir, *HS_MULTIARCH ? ", " : "",
	        *HS_MULTIARCH ? HS_MULTIARCH "/hprofstrip/" : "");
	return 0;
}

/* Does the LD_PRELOAD list (':' or blank separated) name lib already,
 * by the same path or as the same file? */
static int preloaded(const char *list, const char *lib)
{
	struct stat want, sb;
	int have = !stat(lib, &want);
	char one[PATH_MAX];

	while (*list) {
		size_t n = strcspn(list, ": \t\n");
		if (n && n < sizeof one) {
			memcpy(one, list, n);
			one[n] = 0;
			if (!strcmp(one, lib) ||
			    (have && !stat(one, &sb) && sb.st_dev == want.st_dev &&
			     sb.st_ino == want.st_ino))
				return 1;
		}
		list += n;
		list += *list != 0;
	}
	return 0;
}

/* name=a:b, or the one of them that is not empty; 0 on failure (said). */
static int set_joined(const char *name, const char *a, const char *b)
{
	char *v;
	size_t n;
	int rc;

	if (!a || !*a) {
		a = b;
		b = NULL;
	}
	if (!b || !*b)
		return !setenv(name, a ? a : "", 1) || (perror(PROG ": setenv"), 0);
	n = strlen(a) + 1 + strlen(b) + 1;
	v = malloc(n);
	if (!v) {
		perror(PROG);
		return 0;
	}
	snprintf(v, n, "%s:%s", a, b);
	rc = setenv(name, v, 1);
	free(v);
	if (rc)
		perror(PROG ": setenv");
	return !rc;
}

/* LD_PRELOAD=lib[:old]; 0 on failure (said). */
static int set_preload(const char *lib)
{
	const char *old = getenv("LD_PRELOAD");

	if (old && *old && preloaded(old, lib))
		return 1;
	return set_joined("LD_PRELOAD", lib, old);
}

/* HPROFSTRIP_PROGRAMS gets list added; 0 on failure (said). */
static int add_programs(const char *list)
{
	return set_joined("HPROFSTRIP_PROGRAMS", getenv("HPROFSTRIP_PROGRAMS"),
	                  list);
}

/* The value of option argv[*i] (as "--name VALUE" or "--name=VALUE"), or
 * NULL if argv[*i] is not that option. *missing is set when it is, without
 * a value. */
static const char *value_of(const char *name, int argc, char **argv, int *i,
                            int *missing)
{
	size_t n = strlen(name);
	const char *s = argv[*i];

	if (strncmp(s, name, n))
		return NULL;
	if (s[n] == '=')
		return s + n + 1;
	if (s[n])
		return NULL;
	if (*i + 1 >= argc || !argv[*i + 1]) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

int main(int argc, char **argv)
{
	const char *pattern = NULL, *keep = NULL, *compress = NULL;
	const char *filter = NULL, *programs = NULL, *v;
	char lib[PATH_MAX];
	/* redact: a level (levels.h), or IO_LEVEL_UNKNOWN: not asked */
	int i, quiet = 0, app_only = 0, suspects = 0, redact = IO_LEVEL_UNKNOWN, missing = 0;
	/* histo: 1 --histo, 0 --no-histo (the last given wins), -1 neither */
	int histo = -1;
	static const char *const level_word[] = { "off", "values", "names" };

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "--")) {
			i++;
			break;
		}
		if (s[0] != '-' || !s[1])
			break;
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			fputs(usage, stdout);
			return fflush(stdout) ? 1 : 0;
		}
		if (!strcmp(s, "-V") || !strcmp(s, "--version")) {
			printf(PROG " %s\n", HS_VERSION);
			return fflush(stdout) ? 1 : 0;
		}
		if (!strcmp(s, "-q")) {
			quiet = 1;
		} else if (!strcmp(s, "--app-only")) {
			app_only = 1;
		} else if (!strcmp(s, "--histo")) {
			histo = 1;
		} else if (!strcmp(s, "--no-histo")) {
			histo = 0;
		} else if (!strcmp(s, "--suspects")) {
			suspects = 1;
		} else if (!strcmp(s, "--redact")) {
			redact = IO_LEVEL_VALUES;
		} else if (!strncmp(s, "--redact=", 9)) {
			if ((redact = io_redact_level(s + 9)) == IO_LEVEL_UNKNOWN)
				return usage_error("--redact: unknown level '%s' "
				                   "(the levels: values, names)",
				                   s + 9);
		} else if ((v = value_of("--pattern", argc, argv, &i, &missing))) {
			if (!*v)
				return usage_error("--pattern: empty glob%s", "");
			pattern = v;
		} else if ((v = value_of("--keep", argc, argv, &i, &missing))) {
			if (strcmp(v, "strings") && strcmp(v, "bitmaps") &&
			    strcmp(v, "strings,bitmaps") &&
			    strcmp(v, "bitmaps,strings"))
				return usage_error("--keep: '%s' is not 'strings', "
				                   "'bitmaps' or 'strings,bitmaps'", v);
			keep = v;
		} else if ((v = value_of("--compress", argc, argv, &i, &missing))) {
			if (!compress_ok(v))
				return usage_error("--compress: '%s' is not zstd[:1-19], "
				                   "gzip[:1-9], xz[:0-9] or lz4[:1-12]", v);
			compress = v;
		} else if ((v = value_of("--filter", argc, argv, &i, &missing))) {
			if (!*v)
				return usage_error("--filter: empty command%s", "");
			filter = v;
		} else if ((v = value_of("--programs", argc, argv, &i, &missing))) {
			if (!*v)
				return usage_error("--programs: empty list%s", "");
			programs = v;
		} else if (missing) {
			return usage_error("%s needs a value", s);
		} else {
			return usage_error("unknown option '%s'", s);
		}
	}
	if (i >= argc)
		return usage_error("no command to run%s", "");
	if (redact > IO_LEVEL_OFF && keep)
		return usage_error("--redact and --keep cannot be combined: "
		                   "redaction removes what Strings and bitmaps "
		                   "hold%s", "");

	if (!find_lib(lib, argv[i]))
		return EXIT_NOLIB;
	if (!set_preload(lib))
		return EXIT_NOLIB;
	{
		/* jcmd and jmap ask another JVM to write the dump: the shim
		 * in their own process sees none of it */
		const char *slash = strrchr(argv[i], '/');
		const char *name = slash ? slash + 1 : argv[i];

		if (!quiet && (!strcmp(name, "jcmd") || !strcmp(name, "jmap")))
			fprintf(stderr, PROG ": %s asks the target JVM to write "
			        "the dump, and that JVM's dumps are stripped only "
			        "if it runs under the shim: start it with "
			        PROG " (or LD_PRELOAD=%s); %s itself writes no "
			        "dump\n", name, lib, name);
		if (!programs)
			programs = name;  /* the wrapped command, as it will run */
	}
	if (*programs && !add_programs(programs))
		return EXIT_NOLIB;
	if ((pattern && setenv("HPROFSTRIP_PATTERN", pattern, 1)) ||
	    (keep && setenv("HPROFSTRIP_KEEP", keep, 1)) ||
	    (compress && setenv("HPROFSTRIP_COMPRESS", compress, 1)) ||
	    (filter && setenv("HPROFSTRIP_FILTER", filter, 1)) ||
	    (quiet && setenv("HPROFSTRIP_QUIET", "1", 1)) ||
	    (app_only && setenv("HPROFSTRIP_APP_ONLY", "1", 1)) ||
	    (suspects && setenv("HPROFSTRIP_SUSPECTS", "1", 1)) ||
	    (histo >= 0 && setenv("HPROFSTRIP_HISTO", histo ? "1" : "0", 1)) ||
	    (redact != IO_LEVEL_UNKNOWN &&
	     setenv("HPROFSTRIP_REDACT", level_word[redact], 1))) {
		perror(PROG ": setenv");
		return EXIT_NOLIB;
	}

#ifdef HS_COVERAGE
	{
		/* make coverage: an exec drops the counters a normal exit
		 * would write, so they are written now */
		extern void __gcov_dump(void);
		__gcov_dump();
	}
#endif
	execvp(argv[i], argv + i);
	{
		int e = errno;
		fprintf(stderr, PROG ": %s: %s\n", argv[i], strerror(e));
		return e == ENOENT || e == ENOTDIR ? EXIT_NOT_FOUND
		                                   : EXIT_CANNOT_RUN;
	}
}
