/*
 * shimrace: libhprofstrip.so under many threads at once, for
 * ThreadSanitizer (make check-tsan): the shim and this driver are both
 * built with -fsanitize=thread, and any report fails the run.
 *
 *   SHIMRACE_IN=IN SHIMRACE_DIR=DIR shimrace IN EXP DIR [ROUNDS]
 *
 * The shim is linked in as shimrace's first library (make check-tsan), so
 * it comes before libc in symbol lookup, as LD_PRELOAD puts it. IN is a
 * complete dump, EXP what a tracked dump of IN must be on disk
 * (hprofstrip's output of IN when the process strips: named in
 * HPROFSTRIP_PROGRAMS; IN itself when not), DIR an empty directory. One line per failed check on stderr; exit 0 only
 * if all passed. Phases:
 *
 *   early     one file built twice: libshimrace.so, a library shimrace
 *             needs, whose constructor runs before the shim's (a needed
 *             library is initialized before LD_PRELOAD's). It starts one
 *             thread per wrapper the shim exports, and each thread's first
 *             call, all at the same instant through a barrier, is its
 *             wrapper, while the shim's constructor runs in the main
 *             thread. The library's clock_gettime and getenv make the
 *             shim's setup and its policy's parse pause (see there), so
 *             the other threads come while they are under way. Then each writes a dump (the open and write calls:
 *             15 threads) or a plain file (the others) to the end, errno
 *             set before each call and checked after each success.
 *   mixed     ROUNDS (default 6) rounds of 10 threads, each opening at the
 *             same instant (a barrier) a dump written with write, writev,
 *             pwrite, pwritev, sendfile or through a dup, or a plain file
 *             exercised with every call, then closing it.
 *   segments  a JDK 22 parallel dump: a thread writes the main file's
 *             header while two others open its .p0 and .p1 files and write
 *             the heap records there; they close them just after the main
 *             file starts over (ftruncate to 0, its header again); then it takes
 *             them with sendfile, as HotSpot merges them. Checked against EXP when
 *             SHIMRACE_SEGMENTS_EXACT=1 (a redacted .pN file withholds
 *             its instances' fields: not the offline output).
 *   signal    a thread writes dump D in small pieces while another sends
 *             it SIGUSR1 again and again; the handler writes the next
 *             record of dump H (another tracked dump) and a line to a plain
 *             file. A handler's write that comes while the thread is inside
 *             the shim, holding D's lock, must be refused (EDEADLK) and
 *             write nothing; else it is H's next record. D and H must both
 *             be EXP, the plain file whole. Prints the counts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* the fortified names, declared by glibc only when fortifying */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
int fcntl64(int fd, int cmd, ...);

#define KEEP 4242

int shimrace_failures;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "shimrace: line %d: ", __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fputc('\n', stderr);                              \
			__atomic_add_fetch(&shimrace_failures, 1,         \
			                   __ATOMIC_RELAXED);             \
		}                                                         \
	} while (0)

static void die(const char *what)
{
	fprintf(stderr, "shimrace: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* seeded pieces, whole files (sd_*) */
#include "shimdrive.h"

#ifdef SHIMRACE_LIB
/* ---- the library: shared helpers, and the early threads ------------------ */

static unsigned char *in_d;
static size_t in_len;
static char dir[512];

/* IN, read with raw system calls: the early threads start before the
 * shim's constructor, and nothing of the shim may run before they do */
static int load_raw(const char *path)
{
	struct stat sb;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0 || fstat(fd, &sb))
		return -1;
	in_d = malloc((size_t)sb.st_size);
	if (!in_d)
		return -1;
	while (got < (size_t)sb.st_size) {
		ssize_t r = syscall(SYS_read, fd, in_d + got,
		                    (size_t)sb.st_size - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	syscall(SYS_close, fd);
	in_len = got;
	return 0;
}

/* How a job writes its bytes. */
enum how { W_WRITE, W_WRITEV, W_PWRITE, W_PWRITE64, W_PWRITEV, W_PWRITEV64,
           W_SENDFILE, W_SENDFILE64, W_COPY, W_HOWS };

/* d[off, off + n) written to fd (at file offset off for the positional
 * calls) with one call of how, errno KEEP before and after; returns the
 * bytes written (> 0). src: an fd of a file holding d (the copies). */
static size_t put(int fd, enum how how, const unsigned char *d, size_t off,
                  size_t n, int src)
{
	struct iovec v[3];
	int64_t o64 = (int64_t)off;
	off_t o = (off_t)off;
	loff_t lo = (loff_t)off;
	ssize_t r;

	v[0].iov_base = (void *)(d + off);
	v[0].iov_len = n / 2;
	v[1].iov_base = (void *)(d + off + n / 2);
	v[1].iov_len = 0;
	v[2].iov_base = (void *)(d + off + n / 2);
	v[2].iov_len = n - n / 2;
	errno = KEEP;
	switch (how) {
	case W_WRITE: r = write(fd, d + off, n); break;
	case W_WRITEV: r = writev(fd, v, 3); break;
	case W_PWRITE: r = pwrite(fd, d + off, n, o); break;
	case W_PWRITE64: r = pwrite64(fd, d + off, n, o64); break;
	case W_PWRITEV: r = pwritev(fd, v, 3, o); break;
	case W_PWRITEV64: r = pwritev64(fd, v, 3, o64); break;
	case W_SENDFILE: r = sendfile(fd, src, &o, n); break;
	case W_SENDFILE64: r = sendfile64(fd, src, &lo, n); break;
	default: r = copy_file_range(src, &lo, fd, NULL, n, 0); break;
	}
	if (r < 0 && errno == EINTR)
		return 0;
	if (r <= 0)
		die("write call");
	CHECK(errno == KEEP, "errno %d after a successful write (how %d)",
	      errno, (int)how);
	/* the positional calls leave the file position: move it along, as
	 * a runtime that writes so keeps its own */
	if (how == W_PWRITE || how == W_PWRITE64 || how == W_PWRITEV ||
	    how == W_PWRITEV64) {
		errno = KEEP;
		CHECK(lseek(fd, (off_t)r, SEEK_CUR) == (off_t)(off + (size_t)r),
		      "lseek after a positional write");
		CHECK(errno == KEEP, "errno %d after lseek", errno);
	}
	return (size_t)r;
}

/* d[from, len) to fd in random pieces with how */
static void put_all(int fd, enum how how, const unsigned char *d, size_t from,
                    size_t len, int src, uint64_t seed)
{
	while (from < len) {
		size_t n = sd_piece(&seed, len - from);
		/* the header in one call, as writers do: sniffing looks at
		 * the first write's first 17 bytes */
		if (!from && n < 64)
			n = len < 64 ? len : 64;
		from += put(fd, how, d, from, n, src);
	}
}

/* a plain file's bytes: no dump's */
static unsigned char pattern[20000];

static void fill_pattern(void)
{
	size_t i;

	for (i = 0; i < sizeof pattern; i++)
		pattern[i] = (unsigned char)(i * 31 + 7);
}

/* a new file in DIR, created or truncated by a raw system call, so the
 * shim never saw it opened */
static int raw_create(const char *name)
{
	char p[600];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return (int)syscall(SYS_openat, AT_FDCWD, p,
	                    O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

/* ---- the early threads ----------------------------------------------- */

/* Each early thread's first call into the shim. */
enum first {
	F_OPEN, F_OPEN64, F_OPENAT, F_OPENAT64, F_OPEN_2, F_OPEN64_2,
	F_OPENAT_2, F_OPENAT64_2, F_CREAT, F_CREAT64,            /* dumps */
	F_WRITE, F_WRITEV, F_PWRITE, F_PWRITEV,        /* dumps, sniffed */
	F_PWRITE64, F_PWRITEV64, F_SENDFILE, F_SENDFILE64, F_COPY, F_LSEEK,
	F_LSEEK64, F_FTRUNCATE, F_FTRUNCATE64, F_CLOSE, F_DUP, F_DUP2, F_DUP3,
	F_FCNTL, F_FCNTL64, F_FIRSTS
};
/* the first ones write dumps (a copy into a file not seen opened is no
 * dump: sniffing looks at writes) */
#define F_DUMPS F_PWRITE64

struct early {
	pthread_t t;
	enum first k;
	int fd;      /* a raw fd made before the barrier, or -1 */
	int src;     /* IN, raw, for the copies */
	int ok;      /* 1 when the thread got to its end */
};

static struct early early[F_FIRSTS];
static pthread_barrier_t early_bar;
static int early_started;

static int open_first(enum first k, const char *path, const char *name)
{
	int fl = O_WRONLY | O_TRUNC, dfd = -1, fd;

	if (k == F_OPENAT || k == F_OPENAT64 || k == F_OPENAT_2 ||
	    k == F_OPENAT64_2)
		dfd = (int)syscall(SYS_openat, AT_FDCWD, dir,
		                   O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	switch (k) {
	case F_OPEN: fd = open(path, fl | O_CREAT, 0600); break;
	case F_OPEN64: fd = open64(path, fl | O_CREAT, 0600); break;
	case F_OPENAT: fd = openat(dfd, name, fl | O_CREAT, 0600); break;
	case F_OPENAT64: fd = openat64(dfd, name, fl | O_CREAT, 0600); break;
	case F_OPEN_2: fd = __open_2(path, fl); break;
	case F_OPEN64_2: fd = __open64_2(path, fl); break;
	case F_OPENAT_2: fd = __openat_2(dfd, name, fl); break;
	case F_OPENAT64_2: fd = __openat64_2(dfd, name, fl); break;
	case F_CREAT: fd = creat(path, 0600); break;
	default: fd = creat64(path, 0600); break;
	}
	if (dfd >= 0)
		close(dfd);
	return fd;
}

/* The first call (errno KEEP before, checked after), then the file
 * written to its end; the main thread checks the files. */
static void *early_main(void *arg)
{
	struct early *e = arg;
	char name[32], path[600];
	int fd = e->fd, x;
	uint64_t seed = 1000 + (uint64_t)e->k;

	snprintf(name, sizeof name, "e%d.%s", (int)e->k,
	         e->k < F_DUMPS ? "hprof" : "txt");
	snprintf(path, sizeof path, "%s/%s", dir, name);
	pthread_barrier_wait(&early_bar);
	errno = KEEP;
	switch (e->k) {
	case F_WRITE: put_all(fd, W_WRITE, in_d, 0, in_len, -1, seed); break;
	case F_WRITEV: put_all(fd, W_WRITEV, in_d, 0, in_len, -1, seed); break;
	case F_PWRITE: put_all(fd, W_PWRITE, in_d, 0, in_len, -1, seed); break;
	case F_PWRITEV: put_all(fd, W_PWRITEV, in_d, 0, in_len, -1, seed); break;
	case F_SENDFILE:
		put_all(fd, W_SENDFILE, pattern, 0, sizeof pattern, e->src, seed);
		break;
	case F_PWRITE64:
		put_all(fd, W_PWRITE64, pattern, 0, sizeof pattern, -1, seed);
		break;
	case F_PWRITEV64:
		put_all(fd, W_PWRITEV64, pattern, 0, sizeof pattern, -1, seed);
		break;
	case F_SENDFILE64:
		put_all(fd, W_SENDFILE64, pattern, 0, sizeof pattern, e->src, seed);
		break;
	case F_COPY:
		put_all(fd, W_COPY, pattern, 0, sizeof pattern, e->src, seed);
		break;
	case F_LSEEK:
		CHECK(lseek(fd, 0, SEEK_END) == 0 && errno == KEEP, "lseek");
		break;
	case F_LSEEK64:
		CHECK(lseek64(fd, 0, SEEK_END) == 0 && errno == KEEP, "lseek64");
		break;
	case F_FTRUNCATE:
		CHECK(ftruncate(fd, 0) == 0 && errno == KEEP, "ftruncate");
		break;
	case F_FTRUNCATE64:
		CHECK(ftruncate64(fd, 0) == 0 && errno == KEEP, "ftruncate64");
		break;
	case F_CLOSE:
		CHECK(close(fd) == 0 && errno == KEEP, "close");
		fd = raw_create(name);
		break;
	case F_DUP:
	case F_DUP2:
	case F_DUP3:
	case F_FCNTL:
	case F_FCNTL64:
		x = e->k == F_DUP ? dup(fd)
		  : e->k == F_DUP2 ? dup2(fd, 700 + (int)e->k)
		  : e->k == F_DUP3 ? dup3(fd, 700 + (int)e->k, O_CLOEXEC)
		  : e->k == F_FCNTL ? fcntl(fd, F_DUPFD_CLOEXEC, 700)
		                    : fcntl64(fd, F_DUPFD_CLOEXEC, 700);
		CHECK(x >= 0 && errno == KEEP, "dup %d: errno %d", (int)e->k, errno);
		close(fd);  /* (seen by the sanitizer: the number is reused) */
		fd = x;
		break;
	default:
		fd = open_first(e->k, path, name);
		CHECK(fd >= 0 && errno == KEEP, "open %d: errno %d", (int)e->k,
		      errno);
		put_all(fd, W_WRITE, in_d, 0, in_len, -1, seed);
	}
	/* the plain files whose first call wrote nothing yet */
	if (e->k >= F_LSEEK)
		put_all(fd, W_WRITE, pattern, 0, sizeof pattern, -1, seed);
	errno = KEEP;
	CHECK(close(fd) == 0 && errno == KEEP, "close %d: errno %d", (int)e->k,
	      errno);
	if (e->src >= 0)
		close(e->src);
	e->ok = 1;
	return NULL;
}

/* Files for the first calls, made with raw system calls: a file named
 * like a dump, not seen opened, for the write calls (sniffed); a plain
 * one for the others; an empty file for the opens without O_CREAT. */
static int early_prepare(struct early *e)
{
	char name[32];

	e->fd = e->src = -1;
	snprintf(name, sizeof name, "e%d.%s", (int)e->k,
	         e->k < F_DUMPS ? "hprof" : "txt");
	if (e->k == F_OPEN_2 || e->k == F_OPEN64_2 || e->k == F_OPENAT_2 ||
	    e->k == F_OPENAT64_2)
		return syscall(SYS_close, raw_create(name)) ? -1 : 0;
	if (e->k < F_WRITE)
		return 0;
	e->fd = raw_create(name);
	if (e->k == F_SENDFILE || e->k == F_SENDFILE64 || e->k == F_COPY) {
		/* the copies' source */
		snprintf(name, sizeof name, "e%d.src", (int)e->k);
		e->src = raw_create(name);
		if (e->src < 0 || syscall(SYS_write, e->src, pattern,
		                          sizeof pattern) != (long)sizeof pattern)
			return -1;
	}
	return e->fd < 0 ? -1 : 0;
}

/* The shim's two set-up steps that other threads must wait for, made
 * slow while the early threads start: dump tracking's setup reads the
 * clock once (hst_setup), and the policy's parse reads
 * HPROFSTRIP_PATTERN first. This library comes after the shim in symbol
 * lookup (and after the sanitizer's interceptors), so the shim's calls
 * reach these; the first of each pauses (the setup 300 ms, the parse,
 * which comes after it, 100 ms), and a thread that did not wait for it
 * meets a half-set state (a report, or a crash). */
static void pause_once(int *done, long ms)
{
	struct timespec d = { 0, ms * 1000 * 1000 };

	if (__atomic_load_n(&early_started, __ATOMIC_RELAXED) &&
	    !__atomic_exchange_n(done, 1, __ATOMIC_RELAXED))
		nanosleep(&d, NULL);
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	static int paused;

	pause_once(&paused, 300);
	return (int)syscall(SYS_clock_gettime, clk, ts);
}

char *getenv(const char *name)
{
	static char *(*next)(const char *);
	static int paused;

	if (!__atomic_load_n(&next, __ATOMIC_ACQUIRE))
		__atomic_store_n(&next, (char *(*)(const char *))
		                 dlsym(RTLD_NEXT, "getenv"), __ATOMIC_RELEASE);
	if (!strcmp(name, "HPROFSTRIP_PATTERN"))
		pause_once(&paused, 100);
	return __atomic_load_n(&next, __ATOMIC_ACQUIRE)(name);
}

/* Before the shim's constructor: the early threads, released at once. */
__attribute__((constructor)) static void shimrace_early(void)
{
	const char *in = getenv("SHIMRACE_IN"), *d = getenv("SHIMRACE_DIR");
	int k;

	if (!in || !d)
		return;
	snprintf(dir, sizeof dir, "%s", d);
	fill_pattern();
	if (load_raw(in))
		die(in);
	pthread_barrier_init(&early_bar, NULL, F_FIRSTS + 1);
	for (k = 0; k < F_FIRSTS; k++) {
		early[k].k = (enum first)k;
		if (early_prepare(&early[k]))
			die("early files");
		if ((errno = pthread_create(&early[k].t, NULL, early_main,
		                            &early[k])))
			die("pthread_create");
	}
	__atomic_store_n(&early_started, 1, __ATOMIC_RELAXED);
	pthread_barrier_wait(&early_bar);
}

/* ---- what the main program asks of the library --------------------------- */

/* Joins the early threads; their dumps are checked by the caller. */
int shimrace_early_join(void)
{
	int k, ok = 0;

	if (!__atomic_load_n(&early_started, __ATOMIC_RELAXED))
		return -1;
	for (k = 0; k < F_FIRSTS; k++) {
		pthread_join(early[k].t, NULL);
		ok += early[k].ok;
	}
	return ok;
}

const unsigned char *shimrace_pattern(size_t *len)
{
	*len = sizeof pattern;
	return pattern;
}

void shimrace_put_all(int fd, int how, const unsigned char *d, size_t from,
                      size_t len, int src, uint64_t seed)
{
	put_all(fd, (enum how)how, d, from, len, src, seed);
}


#else
/* ---- the program -------------------------------------------------------- */

int shimrace_early_join(void);
const unsigned char *shimrace_pattern(size_t *len);
void shimrace_put_all(int fd, int how, const unsigned char *d, size_t from,
                      size_t len, int src, uint64_t seed);
extern int shimrace_failures;

/* the library's enum how */
enum { W_WRITE, W_WRITEV, W_PWRITE, W_PWRITE64, W_PWRITEV, W_PWRITEV64,
       W_SENDFILE, W_SENDFILE64, W_COPY };

static unsigned char *in_d, *exp_d;
static size_t in_len, exp_len;
static const char *dir, *in_path;

/* ---- early ---------------------------------------------------------------- */

static void p_early(void)
{
	size_t plen;
	const unsigned char *pat = shimrace_pattern(&plen);
	int k, ok = shimrace_early_join();
	char name[32];

	CHECK(ok == 29, "early threads: %d of 29 got to their end", ok);
	for (k = 0; k < 29; k++) {
		char *p;
		snprintf(name, sizeof name, "e%d.%s", k, k < 14 ? "hprof" : "txt");
		p = sd_path_in(dir, name);
		if (k < 14)
			CHECK(!sd_same_file(p, exp_d, exp_len), "%s is not EXP", p);
		else
			CHECK(!sd_same_file(p, pat, plen), "%s is not its bytes", p);
		free(p);
	}
	printf("shimrace: early: %d threads\n", ok);
}

/* ---- mixed ------------------------------------------------------------------ */

#define MIXED_THREADS 10

static pthread_barrier_t mixed_bar;
static int rounds = 6;

/* a plain file with every call the shim wraps; its bytes checked */
static void plain_job(const char *path, uint64_t seed)
{
	size_t plen;
	const unsigned char *pat = shimrace_pattern(&plen);
	int fd, x;

	errno = KEEP;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && errno == KEEP, "open %s", path);
	shimrace_put_all(fd, (int)(seed % 3), pat, 0, plen / 2, -1, seed);
	x = dup(fd);
	CHECK(x >= 0 && errno == KEEP, "dup");
	CHECK(ftruncate(x, (off_t)plen) == 0 && errno == KEEP, "ftruncate");
	shimrace_put_all(x, W_PWRITEV, pat, plen / 2, plen, -1, seed);
	CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)plen && errno == KEEP, "lseek");
	CHECK(close(x) == 0 && close(fd) == 0 && errno == KEEP, "close");
	CHECK(!sd_same_file(path, pat, plen), "%s is not its bytes", path);
}

/* a dump: job picks the open and write calls */
static void dump_job(const char *path, unsigned job, uint64_t seed)
{
	int fd, src = -1, x = -1;
	unsigned how = job % 6;

	errno = KEEP;
	fd = job & 8 ? creat(path, 0600)
	             : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && errno == KEEP, "open %s", path);
	if (how == 4 && (src = open(in_path, O_RDONLY | O_CLOEXEC)) < 0)
		die(in_path);
	if (how == 5) {
		/* through a dup, the first fd closed: ART's way */
		x = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		CHECK(x >= 0 && close(fd) == 0 && errno == KEEP, "dup");
		fd = x;
	}
	shimrace_put_all(fd, how == 0 || how == 5 ? W_WRITE : how == 1 ? W_WRITEV
	                 : how == 2 ? W_PWRITE : how == 3 ? W_PWRITEV
	                 : W_SENDFILE, in_d, 0, in_len, src, seed);
	errno = KEEP;
	CHECK(close(fd) == 0 && errno == KEEP, "close %s", path);
	if (src >= 0)
		close(src);
	CHECK(!sd_same_file(path, exp_d, exp_len), "%s is not EXP", path);
}

static void *mixed_main(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, r;
	char name[48], *p;

	for (r = 0; r < (unsigned)rounds; r++) {
		unsigned job = t * 7 + r * 3;
		snprintf(name, sizeof name, "m%u-%u.%s", t, r,
		         job % 4 == 3 ? "txt" : "hprof");
		p = sd_path_in(dir, name);
		pthread_barrier_wait(&mixed_bar);
		if (job % 4 == 3)
			plain_job(p, job);
		else
			dump_job(p, job, job);
		unlink(p);
		free(p);
	}
	return NULL;
}

static void p_mixed(void)
{
	pthread_t t[MIXED_THREADS];
	unsigned i;

	pthread_barrier_init(&mixed_bar, NULL, MIXED_THREADS);
	for (i = 0; i < MIXED_THREADS; i++)
		if ((errno = pthread_create(&t[i], NULL, mixed_main,
		                            (void *)(uintptr_t)i)))
			die("pthread_create");
	for (i = 0; i < MIXED_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&mixed_bar);
	printf("shimrace: mixed: %d rounds of %d threads\n", rounds,
	       MIXED_THREADS);
}

/* ---- segments ------------------------------------------------------------- */

/* IN's records: [0, hdr) the header; heap records from heap_at to
 * heap_end, cut in two at heap_mid (record boundaries). */
static size_t hdr_len, heap_at, heap_mid, heap_end;

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* 0 if IN has heap records (0x0C, 0x1C) after its non-heap ones */
static int frame(void)
{
	size_t at, n = 0;

	if (hdr_len)
		return heap_at ? 0 : -1;
	hdr_len = strlen((const char *)in_d) + 1 + 4 + 8;
	for (at = hdr_len; at + 9 <= in_len; at += 9 + be32(in_d + at + 5)) {
		unsigned tag = in_d[at];
		if ((tag == 0x0C || tag == 0x1C) && !heap_at)
			heap_at = at;
		if (heap_at && tag != 0x0C && tag != 0x1C)
			break;
		if (heap_at && at >= heap_at + (in_len - heap_at) / 3 && !heap_mid)
			heap_mid = at;
		n++;
	}
	heap_end = at;
	if (!heap_mid)
		heap_mid = heap_end;
	return heap_at && n ? 0 : -1;
}

static struct {
	char *main, *seg[2];
	int fd;
	int restarted;  /* the main file started over (relaxed) */
	pthread_barrier_t bar;
} sg;

static void *seg_main(void *arg)
{
	int i = (int)(uintptr_t)arg, fd;
	size_t from = i ? heap_mid : heap_at, to = i ? heap_end : heap_mid;

	pthread_barrier_wait(&sg.bar);  /* opened while the header goes */
	errno = KEEP;
	fd = open(sg.seg[i], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && errno == KEEP, "open %s", sg.seg[i]);
	shimrace_put_all(fd, W_WRITE, in_d + from, 0, to - from, -1, 17 + i);
	/* closed once the main has started over, with nothing between
	 * the two threads that orders them but a relaxed flag */
	pthread_barrier_wait(&sg.bar);
	while (!__atomic_load_n(&sg.restarted, __ATOMIC_RELAXED))
		sched_yield();
	CHECK(close(fd) == 0 && errno == KEEP, "close %s", sg.seg[i]);
	return NULL;
}

/* the main file's header, then, while the segments close, the main
 * started over (ftruncate to 0) and its header written again */
static void *seg_header(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&sg.bar);
	shimrace_put_all(sg.fd, W_WRITE, in_d, 0, heap_at, -1, 5);
	pthread_barrier_wait(&sg.bar);
	CHECK(ftruncate(sg.fd, 0) == 0 && lseek(sg.fd, 0, SEEK_SET) == 0,
	      "ftruncate, lseek");
	__atomic_store_n(&sg.restarted, 1, __ATOMIC_RELAXED);
	shimrace_put_all(sg.fd, W_WRITE, in_d, 0, heap_at, -1, 6);
	return NULL;
}

static void p_segments(int exact)
{
	pthread_t t[3];
	int i;

	if (frame()) {
		CHECK(0, "IN has no heap records to make segments of");
		return;
	}
	sg.main = sd_path_in(dir, "seg.hprof");
	sg.seg[0] = sd_path_in(dir, "seg.hprof.p0");
	sg.seg[1] = sd_path_in(dir, "seg.hprof.p1");
	sg.fd = open(sg.main, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (sg.fd < 0)
		die(sg.main);
	pthread_barrier_init(&sg.bar, NULL, 3);
	if ((errno = pthread_create(&t[0], NULL, seg_header, NULL)) ||
	    (errno = pthread_create(&t[1], NULL, seg_main, (void *)0)) ||
	    (errno = pthread_create(&t[2], NULL, seg_main, (void *)1)))
		die("pthread_create");
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* merged as HotSpot does: sendfile of each, then removed */
	for (i = 0; i < 2; i++) {
		int src = open(sg.seg[i], O_RDONLY | O_CLOEXEC);
		struct stat sb;
		off_t o = 0;
		if (src < 0 || fstat(src, &sb))
			die(sg.seg[i]);
		while (o < sb.st_size)
			if (sendfile(sg.fd, src, &o, (size_t)(sb.st_size - o)) <= 0)
				die("sendfile");
		close(src);
		unlink(sg.seg[i]);
	}
	shimrace_put_all(sg.fd, W_WRITE, in_d, heap_end, in_len, -1, 9);
	CHECK(close(sg.fd) == 0, "close %s", sg.main);
	if (exact)
		CHECK(!sd_same_file(sg.main, exp_d, exp_len), "%s is not EXP", sg.main);
	printf("shimrace: segments: ok\n");
	for (i = 0; i < 2; i++)
		free(sg.seg[i]);
	free(sg.main);
}

/* ---- signal --------------------------------------------------------------- */

static struct {
	int d, h, plain;        /* the fds */
	pthread_t writer;
	size_t h_off;           /* H's bytes written so far (handler only) */
	int done;               /* the writer finished (atomic) */
	unsigned refused, taken, plain_ok, other;
} sig;

/* Writes H's next record (one call), and a line to the plain file. */
static void on_signal(int signo)
{
	int saved = errno;
	size_t n = 0;
	ssize_t r;

	(void)signo;
	if (sig.h_off < in_len) {
		n = sig.h_off < hdr_len ? hdr_len
		  : 9 + be32(in_d + sig.h_off + 5);
		if (n > in_len - sig.h_off)
			n = in_len - sig.h_off;
		errno = 0;
		r = write(sig.h, in_d + sig.h_off, n);
		if (r == (ssize_t)n) {
			sig.h_off += n;
			sig.taken++;
		} else if (r == -1 && errno == EDEADLK) {
			sig.refused++;
		} else {
			sig.other++;
		}
	}
	if (write(sig.plain, "handler\n", 8) == 8)
		sig.plain_ok++;
	errno = saved;
}

static void *sig_writer(void *arg)
{
	uint64_t seed = 3;
	size_t off = 0;
	int round;

	(void)arg;
	/* D in tiny pieces, three times over (started afresh by
	 * ftruncate(0) and lseek), so the signals meet it inside the
	 * shim often */
	for (round = 0; round < 3; round++) {
		off = 0;
		if (round) {
			CHECK(ftruncate(sig.d, 0) == 0, "ftruncate");
			CHECK(lseek(sig.d, 0, SEEK_SET) == 0, "lseek");
		}
		while (off < in_len) {
			size_t n = 1 + sd_piece(&seed, 64) % 64;
			ssize_t r;
			if (n > in_len - off)
				n = in_len - off;
			r = write(sig.d, in_d + off, n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				die("write D");
			off += (size_t)r;
		}
	}
	__atomic_store_n(&sig.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void p_signal(void)
{
	struct sigaction sa;
	char *pd = sd_path_in(dir, "sig-d.hprof"), *ph = sd_path_in(dir, "sig-h.hprof");
	char *pp = sd_path_in(dir, "sig.txt");
	unsigned sent = 0;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		die("sigaction");
	if (frame())
		die("IN has no heap records");
	sig.d = open(pd, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	sig.h = open(ph, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	sig.plain = open(pp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (sig.d < 0 || sig.h < 0 || sig.plain < 0)
		die("open");
	if ((errno = pthread_create(&sig.writer, NULL, sig_writer, NULL)))
		die("pthread_create");
	while (!__atomic_load_n(&sig.done, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 20000 };
		if (pthread_kill(sig.writer, SIGUSR1) == 0)
			sent++;
		nanosleep(&ts, NULL);
	}
	pthread_join(sig.writer, NULL);
	/* the rest of H, by the main thread */
	while (sig.h_off < in_len) {
		ssize_t r = write(sig.h, in_d + sig.h_off, in_len - sig.h_off);
		if (r <= 0)
			die("write H");
		sig.h_off += (size_t)r;
	}
	CHECK(close(sig.d) == 0 && close(sig.h) == 0 && close(sig.plain) == 0,
	      "close");
	CHECK(!sd_same_file(pd, exp_d, exp_len), "%s is not EXP", pd);
	CHECK(!sd_same_file(ph, exp_d, exp_len), "%s is not EXP", ph);
	{
		size_t n;
		unsigned char *f = sd_slurp(pp, &n);
		for (i = 0; i + 8 <= n && !memcmp(f + i, "handler\n", 8); i += 8)
			;
		CHECK(i == n && n == 8 * (size_t)sig.plain_ok,
		      "the plain file has %zu bytes, not %u lines", n, sig.plain_ok);
		free(f);
	}
	CHECK(!sig.other, "%u handler writes neither done nor refused",
	      sig.other);
	printf("shimrace: signal: %u signals, %u records written from the "
	       "handler, %u refused inside the shim\n", sent, sig.taken,
	       sig.refused);
	if (getenv("SHIMRACE_NEED_REFUSED"))
		CHECK(sig.refused > 0, "no handler write came inside the shim");
	free(pd);
	free(ph);
	free(pp);
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: shimrace IN EXP DIR [ROUNDS]\n");
		return 2;
	}
	in_path = argv[1];
	dir = argv[3];
	if (argc > 4)
		rounds = atoi(argv[4]);
	in_d = sd_slurp(argv[1], &in_len);
	exp_d = sd_slurp(argv[2], &exp_len);
	p_early();
	p_mixed();
	p_segments(getenv("SHIMRACE_SEGMENTS_EXACT") != NULL);
	p_signal();
	if (shimrace_failures) {
		fprintf(stderr, "shimrace: %d failed checks\n", shimrace_failures);
		return 1;
	}
	printf("shimrace: ok\n");
	return 0;
}
#endif
