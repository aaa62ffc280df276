/*
 * The shim's policy: its configuration (the HPROFSTRIP_* variables) and
 * which paths and processes hold dumps. Apart from policy() (the
 * environment, read once), policy_hosts_runtime() (the libraries loaded)
 * and policy_opted_in() (the program's name), these are pure functions
 * of their arguments, unit-tested from C without LD_PRELOAD
 * (tests/policytest.c). Its messages are say.c's.
 */
#ifndef HPROFSTRIP_POLICY_H
#define HPROFSTRIP_POLICY_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define POLICY_TAILS 32

struct policy {
	char pattern[1024];     /* colon-separated fnmatch globs */
	char pattern_bad[64];   /* the first of them fnmatch cannot read
	                           (it matches nothing), or "" */
	int sniff;              /* HPROFSTRIP_SNIFF (yes/no, default yes) */
	int quiet;              /* HPROFSTRIP_QUIET (yes/no, default no) */
	int dirs;               /* a glob names a directory ('/') */
	int tails;              /* how many readable globs have a literal
	                           tail (below); -1: some glob has none, so
	                           every name is matched in full */
	unsigned short tail_at[POLICY_TAILS], tail_len[POLICY_TAILS];
	                        /* each one's tail: the bytes of pattern
	                           after the glob's last * ? [ ] or \ */
	unsigned char tail_end[32];  /* the tails' last bytes, a bit each */
	char log[PATH_MAX];     /* HPROFSTRIP_LOG, or "" for stderr */
	int keep_strings;       /* HPROFSTRIP_KEEP=strings */
	int keep_bitmaps;       /* HPROFSTRIP_KEEP=bitmaps */
	int app_only;           /* HPROFSTRIP_APP_ONLY (yes/no, default no) */
	int suspects;           /* HPROFSTRIP_SUSPECTS (yes/no, default no):
	                           each dump's <dump>.suspects (suspects.c) */
	char suspects_memory[24]; /* HPROFSTRIP_SUSPECTS_MEMORY, a size
	                           ("256M"), or "" for the default */
	char suspects_memory_bad[24]; /* ... a value that is no size */
	int histo;              /* HPROFSTRIP_HISTO (yes/no, default yes):
	                           each dump's <dump>.histo */
	char bool_bad[96];      /* "HPROFSTRIP_X=value": the first yes/no
	                           variable whose value is not understood
	                           (its default is used) */
	char programs[1024];    /* HPROFSTRIP_PROGRAMS: colon-separated globs
	                           of the programs that strip every dump they
	                           write (adb): "" none */
	char keep_bad[64];      /* an HPROFSTRIP_KEEP word not understood */
	char compress[8];       /* HPROFSTRIP_COMPRESS: zstd, gzip, xz, lz4, or "" */
	int level;              /* ... its level (default 1) */
	char compress_bad[64];  /* an HPROFSTRIP_COMPRESS value not understood */
	int redact;             /* HPROFSTRIP_REDACT: 0 none, 1 values,
	                           2 names (levels.h's words) */
	char names_key[40];     /* HPROFSTRIP_NAMES_KEY, or "" */
	char redact_bad[64];    /* ... a value not understood: the names
	                           level is given, the strongest */
	char filter[1024];      /* HPROFSTRIP_FILTER: a command for sh -c */
	int filter_long;        /* HPROFSTRIP_FILTER was too long: unused */
};

/* A yes/no value: 1 or 0 for 1/0, yes/no, true/false, on/off (any
 * case); dflt when unset or empty; -1 when not understood. */
int policy_yes(const char *v, int dflt);

/* Is name (a program's, no directory) in HPROFSTRIP_PROGRAMS? */
int policy_program_listed(const struct policy *p, const char *name);

/* What a file's first bytes say, for a process that may strip it. */
enum {
	HDR_MORE,    /* too few bytes to tell yet */
	HDR_DUMP,    /* an HPROF header, stamped at or after the process
	                began (or the stamp is not asked about) */
	HDR_COPY,    /* an HPROF header stamped before the process began:
	                a copy of an older dump, not this runtime's */
	HDR_GZIP,    /* a gzip stream (HotSpot's -gz dumps) */
	HDR_OTHER,   /* not HPROF */
};
/* Bytes an HPROF header can take, up to the end of its time stamp. */
#define HDR_MAX 44
/* The first n bytes of a file (n <= HDR_MAX) judged; born_ms: when this
 * process began (ms since the epoch), 0 to accept any stamp. A stamp up
 * to HDR_SLACK_MS before born_ms counts as after it (clock steps). */
#define HDR_SLACK_MS 1000
int policy_header(const unsigned char *h, size_t n, uint64_t born_ms,
                  uint64_t *stamp);

/* What a path is. */
enum { DUMP_NONE, DUMP_MAIN, DUMP_SEGMENT };

/* From the variables, as get(ctx, "HPROFSTRIP_...") returns them (NULL:
 * unset). */
void policy_parse(struct policy *p,
                  const char *(*get)(void *ctx, const char *name), void *ctx);
/* This process's policy, parsed from its environment once. */
const struct policy *policy(void);

/* Is the glob g (n bytes) one fnmatch cannot read (a '[' without its
 * ']', a last '\\')? Such a glob matches nothing. */
int policy_glob_bad(const char *g, size_t n);
/* Does a glob match path or its basename? */
int policy_matches(const struct policy *p, const char *path);
/* Can path name a dump at all? 0 only when no form of it that
 * policy_kind matches (path, its basename, its absolute path, each less
 * a ".N", ".pN" or ".pN.N" end) ends with a glob's literal tail: a test
 * of a few bytes that spares the opens of every other file the globs. */
int policy_may_match(const struct policy *p, const char *path);
/* "<base>.<digits>" (prefix "") or "<base>.p<digits>" (prefix "p"): the
 * length of <base>, or 0 (also for any other prefix). */
size_t policy_numbered_base(const char *path, const char *prefix);
/* A match, or a match with HotSpot's dump number after it (<path>.1). */
int policy_dump_name(const struct policy *p, const char *path);
/* DUMP_MAIN (base = path), DUMP_SEGMENT (a JDK 22 <dump>.pN file; base =
 * the dump's path) or DUMP_NONE. */
int policy_kind(const struct policy *p, const char *path, char *base,
                size_t size);
/* A library name that stands for a Java runtime (libjvm.so, libart.so,
 * with or without a directory). */
int policy_runtime_name(const char *name);

/* path made absolute against dirfd (AT_FDCWD: the working directory);
 * 0 if it cannot be. */
int policy_absolute(int dirfd, const char *path, char *out, size_t size);
/* Is a runtime loaded in this process? (Once one is, it stays.) */
int policy_hosts_runtime(void);
/* Is this program named by HPROFSTRIP_PROGRAMS (by argv[0]'s or its
 * executable's basename)? Read once. */
int policy_opted_in(void);

#endif
