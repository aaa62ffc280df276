/*
 * shimstress: robustness checks for libhprofstrip.so, run in-process under
 * the shim (issue 3). Every check also holds without the shim, with EXP the
 * input itself, so the driver checks itself.
 *
 *   shimstress TEST IN EXP DIR [ARG]
 *
 * IN is a complete dump; EXP is what a tracked dump of IN must look like
 * on disk (hprofstrip's output under the shim, IN without it). DIR is an
 * empty directory for the outputs. One line per failed check on stderr,
 * "shimstress: TEST: ok ..." on stdout; exit 0 only if all passed.
 *
 * Tests:
 *   threads     8 threads write one tracked fd, a mutex around each write,
 *               in file order (JDK 17's CompressionBackend workers)
 *   concurrent  ARG dumps (default 6) written at once, one per thread;
 *               every one must be EXP, except, past the shim's 16 trackers,
 *               IN; prints "exp N in M"
 *   fork        a writer thread is mid-dump when the main thread forks; the
 *               child closes the inherited fd, writes a complete dump of its
 *               own and exits (KOOM dumps in a forked child); the parent's
 *               dump goes on
 *   vfork       mid-dump, a vfork child closes the tracked fd (as JDK's
 *               childproc closes descriptors) and _exits: the parent's dump
 *               goes on
 *   reuse       a closed tracked fd number reused by a file that does not
 *               match: untouched; also after a close the shim never saw
 *               (raw syscall), 20 times, and a dump after that is stripped
 *   dup2        dup2/dup3 onto a tracked fd ends that dump; a tracked fd
 *               duplicated to another number goes on there; dup2 of one
 *               dump onto another
 *   errno       failing calls give the errno they give without the shim;
 *               successful tracked calls leave errno alone
 *   keeperrno   a dump by write, writev, pwrite, errno set before each
 *               call: no successful call changes it (run it over
 *               libfaultinject.so: EINTR and short writes below the shim);
 *               ARG "raw": the dump opened by a raw syscall, so its first
 *               write is sniffed, the first call the shim decides on
 *   lseek       SEEK_CUR/SEEK_END/SEEK_SET answers are the offsets of the
 *               dump the program writes
 *   letgo       two threads write 16 bytes that are no HPROF at the same
 *               instant (a barrier) to one fresh DIR/x.hprof, ARG times
 *               (default 200): every file is 32 bytes, both pieces in it
 *               (a waiting writer once passed the let-go session's lock
 *               before its fds were dropped and wrote at offset 0 over
 *               the other; run over libfaultinject.so FAULT=slowunlock,
 *               which widens that window to 20 ms)
 *   refused     16 dumps open (the shim's table full), a plain file at
 *               fd ARG - 32 (ARG at least 64), and a 17th dump opened at
 *               fd ARG: prints "dump fd ARG: R, bystander fd B: R", R
 *               "written" or an errno's name (under HPROFSTRIP_REDACT the
 *               17th dump is refused, EPERM; the bystander never is: a
 *               mark on the wrong bit once refused it instead)
 *   copies      a dump (DIR/c.hprof, IN's first bytes written) copied
 *               with dup3 to ARG fds from 2000 up (every other one
 *               close-on-exec), each then written once: prints "N EPERM,
 *               M EBADF, K written" (under a shim with a table of 1024
 *               fds and HPROFSTRIP_REDACT each copy is refused: the first
 *               64 marked, EPERM; past those, a read-only /dev/null in
 *               its place, EBADF); every copy keeps its close-on-exec
 *               flag; then, the copies closed, 64 copies made again from
 *               2200 up: "after their close: J EPERM" (the marks were
 *               forgotten, so there is room for 64 more)
 *   cloexec     IN written to DIR/c.hprof (open, no O_CLOEXEC), then,
 *               before its close, every fd opened since it started must be
 *               close-on-exec (what the shim holds for the dump: the
 *               names map, a compressor's socket); prints "N other fds,
 *               all close-on-exec" and names each that is not
 *   closewait   a thread closes a dump (IN written to DIR/a.hprof) whose
 *               end waits for a child (HPROFSTRIP_FILTER that sleeps);
 *               meanwhile the main thread opens DIR/b.hprof, writes IN to
 *               it and forks: these must not wait for the close (at most
 *               ARG ms, default 1000). Prints "close N ms, others M ms"
 *   write       write IN to DIR/ARG (a name: the environment decides if it
 *               is tracked) with write() pieces; compare with EXP. ARG may
 *               be prefixed with "HOW:" to choose the open call: open
 *               (default), open2 (open without a mode, non-constant flags:
 *               __open_2 when fortified), openat, openat2 (__openat_2),
 *               creat, raw (a raw syscall the shim cannot see, like an fd
 *               from another process); HOW may end in "+pwrite" or
 *               "+writev"
 *   plain       files that do not match, exercised with every call the shim
 *               wraps; byte-identical checks (the bats file compares strace
 *               output with and without the shim). With ARG "magic" the
 *               data starts like a dump (run it with HPROFSTRIP_SNIFF=0).
 *               IN and EXP are not read (pass anything).
 *
 * Build it plain, with -D_FILE_OFFSET_BITS=64 (open64, lseek64, pwrite64,
 * ...) and with -O2 -D_FORTIFY_SOURCE=2 (__open_2, __openat_2).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *test = "?";
static int failures;
static const unsigned char *in_d, *exp_d;
static size_t in_len, exp_len;
static const char *dir;

/* non-constant open flags: the fortified open() then calls __open_2 */
static volatile int vflags_wr = O_WRONLY | O_TRUNC;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "shimstress: %s: line %d: ", test,  \
			        __LINE__);                                 \
			fprintf(stderr, __VA_ARGS__);                      \
			fputc('\n', stderr);                               \
			failures++;                                        \
		}                                                          \
	} while (0)

/* call fails with errno err (set to 0 before it), as without the shim */
#define FAILS(call, err, ...)                                               \
	do {                                                                \
		errno = 0;                                                  \
		CHECK((call) == -1 && errno == (err), __VA_ARGS__);         \
	} while (0)

static void die(const char *what)
{
	fprintf(stderr, "shimstress: %s: %s: %s\n", test, what, strerror(errno));
	exit(2);
}

/* ---- helpers ----------------------------------------------------------- */

#include "shimdrive.h"

/* d[from, to) in random pieces */
static void write_pieces(int fd, const unsigned char *d, size_t from,
                         size_t to, uint64_t *seed)
{
	while (from < to) {
		size_t n = sd_piece(seed, to - from);
		sd_write_all(fd, d + from, n);
		from += n;
	}
}

static int open_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	return fd;
}

static void check_exp(const char *path)
{
	CHECK(!sd_same_file(path, exp_d, exp_len), "%s is not the expected dump",
	      path);
}

/* ---- threads ------------------------------------------------------------ */

static struct {
	pthread_mutex_t mu;
	int fd;
	size_t off;
	uint64_t seed;
} tw = { PTHREAD_MUTEX_INITIALIZER, -1, 0, 1 };

static void *tw_main(void *arg)
{
	(void)arg;
	for (;;) {
		size_t n;
		pthread_mutex_lock(&tw.mu);
		if (tw.off >= in_len) {
			pthread_mutex_unlock(&tw.mu);
			return NULL;
		}
		n = sd_piece(&tw.seed, in_len - tw.off);
		sd_write_all(tw.fd, in_d + tw.off, n);
		tw.off += n;
		pthread_mutex_unlock(&tw.mu);
		if (tw.seed % 3 == 0)
			sched_yield();
	}
}

static void t_threads(void)
{
	pthread_t t[8];
	char *p = sd_path_in(dir, "threads.hprof");
	int i;

	tw.fd = open_new(p);
	for (i = 0; i < 8; i++)
		if ((errno = pthread_create(&t[i], NULL, tw_main, NULL)))
			die("pthread_create");
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	CHECK(lseek(tw.fd, 0, SEEK_CUR) == (off_t)in_len, "offset after writes");
	close(tw.fd);
	check_exp(p);
	free(p);
}

/* ---- letgo: two writers of a file let go of --------------------------------- */

static pthread_barrier_t bar;

static struct {
	int fd;
	char piece[2][16];
} lg;

static void *lg_main(void *arg)
{
	int i = (int)(intptr_t)arg;

	pthread_barrier_wait(&bar);
	sd_write_all(lg.fd, lg.piece[i], sizeof lg.piece[i]);
	return NULL;
}

static void t_letgo(int rounds)
{
	char *p = sd_path_in(dir, "x.hprof");
	unsigned char *d;
	size_t len;
	pthread_t t[2];
	int r, i, bad = 0;

	memcpy(lg.piece[0], "first  writer..\n", 16);
	memcpy(lg.piece[1], "second writer..\n", 16);
	pthread_barrier_init(&bar, NULL, 2);
	for (r = 0; r < rounds && bad < 3; r++) {
		lg.fd = open_new(p);
		for (i = 0; i < 2; i++)
			if ((errno = pthread_create(&t[i], NULL, lg_main,
			                            (void *)(intptr_t)i)))
				die("pthread_create");
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		if (close(lg.fd))
			die("close");
		d = sd_slurp(p, &len);
		if (len != 32 || (memcmp(d, lg.piece[0], 16) &&
		                  memcmp(d, lg.piece[1], 16)) ||
		    (memcmp(d + 16, lg.piece[0], 16) &&
		     memcmp(d + 16, lg.piece[1], 16)) ||
		    !memcmp(d, d + 16, 16)) {
			CHECK(0, "round %d: %zu bytes, not both pieces", r, len);
			bad++;
		}
		free(d);
	}
	pthread_barrier_destroy(&bar);
	free(p);
}

/* ---- refused: the 17th dump's mark is on its own fd ---------------------- */

static const char *outcome(int fd)
{
	ssize_t w = write(fd, "bytes\n", 6);

	return w == 6 ? "written" : errno == EPERM ? "EPERM"
	     : errno == EBADF ? "EBADF" : "failed";
}

static void t_refused(int at)
{
	int held[16], fill[256], nfill = 0, i, fd, by, nul;
	char name[64];
	char *p;

	if (at < 64 || at >= 256 + 32)
		die("refused: ARG must be 64..287");
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "held%d.hprof", i);
		p = sd_path_in(dir, name);
		held[i] = open_new(p);
		free(p);
	}
	p = sd_path_in(dir, "bystander.log");
	fd = open_new(p);
	free(p);
	by = at - 32;
	if (dup2(fd, by) != by)
		die("dup2");
	close(fd);
	/* every free fd below at taken, so the open gives at */
	nul = open("/dev/null", O_RDONLY);
	if (nul < 0)
		die("/dev/null");
	while (nfill < 256 && (fd = dup(nul)) >= 0 && fd < at)
		fill[nfill++] = fd;
	if (fd >= at)
		close(fd);
	p = sd_path_in(dir, "d17.hprof");
	fd = open_new(p);
	free(p);
	for (i = 0; i < nfill; i++)
		close(fill[i]);
	close(nul);
	if (fd != at)
		die("the 17th dump's fd is not ARG");
	printf("shimstress: refused: dump fd %d: %s, ", at, outcome(at));
	printf("bystander fd %d: %s\n", by, outcome(by));
	close(at);
	close(by);
	for (i = 0; i < 16; i++)
		close(held[i]);
}

/* ---- copies: refused copies past the table's fds, and past its marks ---- */

static void t_copies(int n)
{
	char *p = sd_path_in(dir, "c.hprof");
	int fd = open_new(p), i, perm = 0, badf = 0, wrote = 0, again = 0;
	struct rlimit rl;

	free(p);
	if (n < 1 || n > 150)
		die("copies: ARG must be 1..150");
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < 4096 &&
	    rl.rlim_max >= 4096) {
		rl.rlim_cur = 4096;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (write(fd, in_d, in_len < 4096 ? in_len : 4096) < 0)
		die("the dump's first bytes");
	for (i = 0; i < n; i++) {
		const char *o;
		int fl;
		if (dup3(fd, 2000 + i, i % 2 ? O_CLOEXEC : 0) != 2000 + i)
			die("dup3");
		o = outcome(2000 + i);
		perm += !strcmp(o, "EPERM");
		badf += !strcmp(o, "EBADF");
		wrote += !strcmp(o, "written");
		fl = fcntl(2000 + i, F_GETFD);
		CHECK(fl >= 0 && !!(fl & FD_CLOEXEC) == i % 2,
		      "copy %d: close-on-exec %d, not %d", 2000 + i, fl, i % 2);
	}
	for (i = 0; i < n; i++)
		close(2000 + i);
	for (i = 0; i < 64; i++) {
		if (dup2(fd, 2200 + i) != 2200 + i)
			die("dup2");
		again += !strcmp(outcome(2200 + i), "EPERM");
	}
	for (i = 0; i < 64; i++)
		close(2200 + i);
	close(fd);
	printf("shimstress: copies: %d EPERM, %d EBADF, %d written; after their "
	       "close: %d EPERM\n", perm, badf, wrote, again);
}

/* ---- cloexec: what the shim holds open is no child's -------------------- */

static void t_cloexec(void)
{
	char *p = sd_path_in(dir, "c.hprof");
	int fd, n = 0, bad = 0, i;
	char link[64], target[4096];
	static unsigned char before[1024];

	/* (the fds this process was given are not the shim's) */
	for (i = 3; i < 1024; i++)
		before[i] = fcntl(i, F_GETFD) >= 0;
	fd = open_new(p);
	sd_write_all(fd, in_d, in_len);
	for (i = 3; i < 1024; i++) {
		int fl;
		ssize_t k;
		if (i == fd || before[i] || (fl = fcntl(i, F_GETFD)) < 0)
			continue;
		n++;
		if (fl & FD_CLOEXEC)
			continue;
		snprintf(link, sizeof link, "/proc/self/fd/%d", i);
		k = readlink(link, target, sizeof target - 1);
		target[k > 0 ? k : 0] = 0;
		CHECK(0, "fd %d (%s) is not close-on-exec", i, target);
		bad++;
	}
	printf("shimstress: cloexec: %d other fds, %s\n", n,
	       bad ? "not all close-on-exec" : "all close-on-exec");
	close(fd);
	free(p);
}

/* ---- closewait: a close that waits for a child holds no other thread ---- */

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static struct {
	int fd;
	int64_t took;
} cw;

static void *cw_main(void *arg)
{
	int64_t t0 = now_ms();

	(void)arg;
	if (close(cw.fd))
		die("close a.hprof");
	cw.took = now_ms() - t0;
	return NULL;
}

static void t_closewait(int limit)
{
	char *a = sd_path_in(dir, "a.hprof"), *b = sd_path_in(dir, "b.hprof");
	struct timespec ms300 = { 0, 300000000 };
	pthread_t t;
	int64_t t0, others;
	int fd, st;
	pid_t pid;

	cw.fd = open_new(a);
	sd_write_all(cw.fd, in_d, in_len);
	if ((errno = pthread_create(&t, NULL, cw_main, NULL)))
		die("pthread_create");
	nanosleep(&ms300, NULL);  /* the close is waiting for its child */
	t0 = now_ms();
	fd = open_new(b);
	sd_write_all(fd, in_d, in_len);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		_exit(0);
	others = now_ms() - t0;
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	pthread_join(t, NULL);
	if (close(fd))
		die("close b.hprof");
	CHECK(others <= limit, "the open, write and fork took %lld ms while "
	      "another thread's close waited", (long long)others);
	printf("shimstress: closewait: close %lld ms, others %lld ms\n",
	       (long long)cw.took, (long long)others);
	free(a);
	free(b);
}

/* ---- concurrent dumps ----------------------------------------------------- */

struct cjob {
	char *path;
	int fd;
	uint64_t seed;
};

static void *c_main(void *arg)
{
	struct cjob *j = arg;

	j->fd = open_new(j->path);
	pthread_barrier_wait(&bar);  /* all open at once */
	write_pieces(j->fd, in_d, 0, in_len, &j->seed);
	pthread_barrier_wait(&bar);  /* all written before any closes */
	if (close(j->fd))
		die("close");
	return NULL;
}

static void t_concurrent(int n)
{
	struct cjob *j = calloc((size_t)n, sizeof *j);
	pthread_t *t = calloc((size_t)n, sizeof *t);
	int i, nexp = 0, nin = 0;
	char name[32];

	if (!j || !t)
		die("calloc");
	pthread_barrier_init(&bar, NULL, (unsigned)n);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof name, "c%d.hprof", i);
		j[i].path = sd_path_in(dir, name);
		j[i].seed = (uint64_t)i * 7919 + 1;
		if ((errno = pthread_create(&t[i], NULL, c_main, &j[i])))
			die("pthread_create");
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++) {
		if (!sd_same_file(j[i].path, exp_d, exp_len))
			nexp++;
		else if (!sd_same_file(j[i].path, in_d, in_len))
			nin++;
		else
			CHECK(0, "%s is neither stripped nor the input", j[i].path);
		free(j[i].path);
	}
	printf("shimstress: concurrent: exp %d in %d\n", nexp, nin);
	pthread_barrier_destroy(&bar);
	free(j);
	free(t);
}

/* ---- fork and vfork ----------------------------------------------------- */

static struct {
	int fd;
	size_t done;   /* bytes written so far (atomic) */
	int stage;     /* 0 until forked, 1 until the child closed (atomic) */
	int busy_fd;   /* another dump, written all along */
} fw;

static void gate(size_t off, size_t at, int stage)
{
	if (off >= at)
		while (__atomic_load_n(&fw.stage, __ATOMIC_ACQUIRE) < stage)
			sched_yield();
}

/* the dump the fork cuts in two: parks at 1/3 until the fork, at 1/2
 * until the child has closed its copy of the fd */
static void *fw_main(void *arg)
{
	uint64_t seed = 99;
	size_t off = 0;
	(void)arg;
	while (off < in_len) {
		size_t n = sd_piece(&seed, in_len - off);
		if (off < in_len / 3 && off + n > in_len / 3)
			n = in_len / 3 - off;
		if (off < in_len / 2 && off + n > in_len / 2)
			n = in_len / 2 - off;
		sd_write_all(fw.fd, in_d + off, n);
		off += n;
		__atomic_store_n(&fw.done, off, __ATOMIC_RELEASE);
		gate(off, in_len / 3, 1);
		gate(off, in_len / 2, 2);
	}
	return NULL;
}

/* a second dump written the whole time, so the fork meets writes */
static void *busy_main(void *arg)
{
	uint64_t seed = 77;
	(void)arg;
	write_pieces(fw.busy_fd, in_d, 0, in_len, &seed);
	return NULL;
}

static void t_fork(void)
{
	char *pa = sd_path_in(dir, "parent.hprof");
	char *pb = sd_path_in(dir, "child.hprof");
	char *pc = sd_path_in(dir, "busy.hprof");
	pthread_t t, busy;
	pid_t pid;
	int st, go[2], back[2];
	char c = 0;

	/* over an old, longer file, truncated: a wrong end in the child (a
	 * length patch, a cut at its own idea of the end) would show */
	{
		char *old = sd_path_in(dir, "parent.old");
		fw.fd = open_new(old);
		sd_write_all(fw.fd, in_d, in_len);
		close(fw.fd);
		if (rename(old, pa))
			die("rename");
		free(old);
	}
	fw.fd = open(pa, O_WRONLY | O_TRUNC);
	fw.busy_fd = open_new(pc);
	if (fw.fd < 0 || pipe(go) || pipe(back))
		die("open, pipe");
	if ((errno = pthread_create(&t, NULL, fw_main, NULL)) ||
	    (errno = pthread_create(&busy, NULL, busy_main, NULL)))
		die("pthread_create");
	while (__atomic_load_n(&fw.done, __ATOMIC_ACQUIRE) < in_len / 3)
		sched_yield();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* the child: one thread, a copy of the parent's memory */
		uint64_t seed = 5;
		int fd;
		test = "fork (child)";
		failures = 0;
		if (read(go[0], &c, 1) != 1)
			die("read");
		close(fw.fd);  /* must not end the parent's dump */
		close(fw.busy_fd);
		if (write(back[1], &c, 1) != 1)
			die("write");
		fd = open_new(pb);
		write_pieces(fd, in_d, 0, in_len, &seed);
		if (close(fd))
			die("close");
		check_exp(pb);
		_exit(failures ? 1 : 0);
	}
	/* the parent writes on past what the child's copy knows, then lets
	 * the child close its copy of the fd */
	__atomic_store_n(&fw.stage, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&fw.done, __ATOMIC_ACQUIRE) < in_len / 2)
		sched_yield();
	if (write(go[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
		die("pipe");
	__atomic_store_n(&fw.stage, 2, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	pthread_join(busy, NULL);
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed (status %d)", st);
	close(fw.fd);
	close(fw.busy_fd);
	check_exp(pa);
	check_exp(pc);
	close(go[0]);
	close(go[1]);
	close(back[0]);
	close(back[1]);
	free(pa);
	free(pb);
	free(pc);
}

static void t_vfork(void)
{
	char *pa = sd_path_in(dir, "vfork.hprof");
	uint64_t seed = 3;
	int fd = open_new(pa), st;
	pid_t pid;

	write_pieces(fd, in_d, 0, in_len / 2, &seed);
	pid = vfork();
	if (pid < 0)
		die("vfork");
	if (pid == 0) {
		close(fd);  /* the child's copy of the fd table; shared memory */
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid");
	write_pieces(fd, in_d, in_len / 2, in_len, &seed);
	CHECK(lseek(fd, 0, SEEK_END) == (off_t)in_len, "offset after vfork");
	close(fd);
	check_exp(pa);
	free(pa);
}

/* ---- fd reuse ------------------------------------------------------------- */

/* Writes a non-dump pattern to fd (which must be a fresh file) and checks
 * the file holds exactly it. */
static void plain_data(int fd, const char *path)
{
	unsigned char buf[3000];
	size_t i;

	for (i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 31 + 7);
	sd_write_all(fd, buf, 1000);
	CHECK(pwrite(fd, buf + 1000, 1000, 1000) == 1000, "pwrite");
	CHECK(lseek(fd, 0, SEEK_CUR) == 1000, "real offset: %lld",
	      (long long)lseek(fd, 0, SEEK_CUR));
	CHECK(lseek(fd, 2000, SEEK_SET) == 2000, "lseek");
	sd_write_all(fd, buf + 2000, 1000);
	CHECK(!sd_same_file(path, buf, sizeof buf), "%s was changed", path);
}

static void t_reuse(void)
{
	char *pa = sd_path_in(dir, "reuse.hprof"), *pb = sd_path_in(dir, "reuse.bin");
	char name[32];
	uint64_t seed = 11;
	int fa, fb, i;

	/* closed as usual */
	fa = open_new(pa);
	write_pieces(fa, in_d, 0, in_len, &seed);
	close(fa);
	check_exp(pa);
	fb = open_new(pb);
	CHECK(fb == fa, "fd not reused (%d, %d)", fa, fb);
	plain_data(fb, pb);
	close(fb);

	/* closed behind the shim's back, many times */
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof name, "lost%d.hprof", i);
		char *pl = sd_path_in(dir, name);
		fa = open_new(pl);
		write_pieces(fa, in_d, 0, in_len / 2, &seed);
		if (syscall(SYS_close, fa))
			die("close");
		fb = open_new(pb);
		CHECK(fb == fa, "fd not reused (%d, %d)", fa, fb);
		plain_data(fb, pb);
		close(fb);
		/* and by dup: the same number from a non-matching file */
		fb = open_new(pb);
		fa = open_new(pl);
		write_pieces(fa, in_d, 0, in_len / 3, &seed);
		if (syscall(SYS_close, fa))
			die("close");
		CHECK(dup(fb) == fa, "dup did not reuse %d", fa);
		close(fb);
		plain_data(fa, pb);
		close(fa);
		free(pl);
	}
	/* trackers were not leaked */
	fa = open_new(pa);
	write_pieces(fa, in_d, 0, in_len, &seed);
	close(fa);
	check_exp(pa);
	free(pa);
	free(pb);
}

/* ---- dup2 ------------------------------------------------------------------- */

static void t_dup2(void)
{
	char *pa = sd_path_in(dir, "dup-a.hprof");
	char *pb = sd_path_in(dir, "dup-b.hprof");
	char *po = sd_path_in(dir, "dup-o.bin");
	uint64_t seed = 21;
	int a, b, o, x;

	/* dup2 of a plain file onto a finished but open dump: ends it */
	a = open_new(pa);
	o = open_new(po);
	write_pieces(a, in_d, 0, in_len, &seed);
	CHECK(dup2(o, a) == a, "dup2");
	check_exp(pa);
	close(o);
	plain_data(a, po);  /* a is now the plain file */
	close(a);

	/* a dump moved to another number mid-way: dup2, then dup3 */
	a = open_new(pa);
	write_pieces(a, in_d, 0, in_len / 3, &seed);
	CHECK(dup2(a, 200) == 200, "dup2 to 200");
	CHECK(dup2(a, a) == a, "dup2 onto itself");
	close(a);
	write_pieces(200, in_d, in_len / 3, 2 * in_len / 3, &seed);
	CHECK(dup3(200, 201, O_CLOEXEC) == 201, "dup3");
	close(200);
	CHECK(lseek(201, 0, SEEK_CUR) == (off_t)(2 * in_len / 3), "offset");
	write_pieces(201, in_d, 2 * in_len / 3, in_len, &seed);
	close(201);
	check_exp(pa);

	/* one dump onto another */
	a = open_new(pa);
	b = open_new(pb);
	write_pieces(a, in_d, 0, in_len, &seed);
	write_pieces(b, in_d, 0, in_len / 2, &seed);
	CHECK(dup2(b, a) == a, "dup2 b onto a");
	check_exp(pa);
	close(b);
	write_pieces(a, in_d, in_len / 2, in_len, &seed);
	x = fcntl(a, F_DUPFD_CLOEXEC, 300);
	CHECK(x >= 300, "F_DUPFD_CLOEXEC");
	close(a);
	CHECK(lseek(x, 0, SEEK_END) == (off_t)in_len, "offset");
	close(x);
	check_exp(pb);
	free(pa);
	free(pb);
	free(po);
}

/* ---- errno -------------------------------------------------------------- */

#define KEEP 12345

static void *volatile nullbuf;  /* NULL the compiler cannot see */
static volatile int vminus1 = -1;

/* A dump written with write, writev and pwrite, errno set to KEEP before
 * each call: every successful call leaves it there, whatever the shim met
 * below (run it over libfaultinject.so with FAULT=eintr or short). */
static void t_keeperrno(const char *arg)
{
	char *pa = sd_path_in(dir, "keep.hprof");
	uint64_t seed = 37;
	size_t off = 0;
	int a, i = 0;

	/* "raw": opened where the shim cannot see, so the first write is
	 * sniffed, and is the first call the shim decides on */
	if (arg && !strcmp(arg, "raw"))
		a = (int)syscall(SYS_openat, AT_FDCWD, pa,
		                 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	else
		a = open_new(pa);
	if (a < 0)
		die(pa);

	while (off < in_len) {
		size_t n = sd_piece(&seed, SIZE_MAX);
		struct iovec v[2];
		if (!off && n < 64)
			n = 64;
		if (n > in_len - off)
			n = in_len - off;
		errno = KEEP;
		switch (i++ % 3) {
		case 0:
			CHECK(write(a, in_d + off, n) == (ssize_t)n, "write");
			break;
		case 1:
			v[0].iov_base = (void *)(in_d + off);
			v[0].iov_len = n / 2;
			v[1].iov_base = (void *)(in_d + off + n / 2);
			v[1].iov_len = n - n / 2;
			CHECK(writev(a, v, 2) == (ssize_t)n, "writev");
			break;
		default:
			CHECK(pwrite(a, in_d + off, n, (off_t)off) == (ssize_t)n,
			      "pwrite");
			CHECK(lseek(a, (off_t)n, SEEK_CUR) == (off_t)(off + n),
			      "lseek");
		}
		CHECK(errno == KEEP, "errno %d after a successful call at %zu",
		      errno, off);
		off += n;
	}
	errno = KEEP;
	CHECK(close(a) == 0 && errno == KEEP, "close: errno %d", errno);
	check_exp(pa);
	free(pa);
}

static void t_errno(void)
{
	char *pa = sd_path_in(dir, "errno.hprof");
	char *pn = sd_path_in(dir, "nodir/x.hprof");
	struct iovec iov[2];
	uint64_t seed = 31;
	char b[16] = "0123456789abcdef";
	int a, bad;
	off_t pos;

	/* a number that is surely not open */
	bad = 900;
	close(bad);
	FAILS(write(bad, b, 4), EBADF, "write EBADF: %d", errno);
	FAILS(pwrite(bad, b, 4, 0), EBADF, "pwrite EBADF");
	iov[0].iov_base = b;
	iov[0].iov_len = 4;
	FAILS(writev(bad, iov, 1), EBADF, "writev EBADF");
	FAILS(lseek(bad, 0, SEEK_CUR), EBADF, "lseek EBADF");
	FAILS(close(bad), EBADF, "close EBADF");
	FAILS(dup2(bad, 901), EBADF, "dup2 EBADF");
	FAILS(dup(bad), EBADF, "dup EBADF");
	FAILS(fcntl(bad, F_GETFL), EBADF, "fcntl EBADF");
	FAILS(ftruncate(bad, 0), EBADF, "ftruncate EBADF");
	FAILS(open(pn, O_WRONLY | O_CREAT | O_TRUNC, 0600),
	      ENOENT, "open ENOENT");
	free(pn);

	/* successful calls on a tracked dump leave errno alone */
	errno = KEEP;
	a = open(pa, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(a >= 0 && errno == KEEP, "open: errno %d", errno);
	write_pieces(a, in_d, 0, 100, &seed);  /* header and more */
	errno = KEEP;
	CHECK(write(a, in_d + 100, 50) == 50 && errno == KEEP, "write: errno %d", errno);
	errno = KEEP;
	CHECK(write(a, in_d + 150, 0) == 0 && errno == KEEP, "write 0");
	errno = KEEP;
	CHECK(pwrite(a, in_d + 150, 50, 150) == 50 && errno == KEEP, "pwrite");
	errno = KEEP;
	pos = lseek(a, 0, SEEK_END);
	CHECK(pos == 200 && errno == KEEP, "lseek: %lld errno %d", (long long)pos, errno);
	iov[0].iov_base = (void *)(in_d + 200);
	iov[0].iov_len = 30;
	iov[1].iov_base = (void *)(in_d + 230);
	iov[1].iov_len = 20;
	errno = KEEP;
	CHECK(writev(a, iov, 2) == 50 && errno == KEEP, "writev");
	/* failures on the tracked dump: what the kernel says */
	FAILS(lseek(a, -5, SEEK_SET), EINVAL, "lseek EINVAL");
	FAILS(lseek(a, 0, 77), EINVAL, "lseek whence EINVAL");
	FAILS(pwrite(a, b, 4, -1), EINVAL, "pwrite EINVAL");
	FAILS(write(a, nullbuf, 10), EFAULT, "write EFAULT: %d", errno);
	FAILS(write(1000 + a, nullbuf, 10), EBADF, "write EBADF");
	FAILS(pwrite(a, nullbuf, 10, 0), EFAULT, "pwrite EFAULT");
	iov[0].iov_base = nullbuf;
	iov[0].iov_len = 10;
	FAILS(writev(a, iov, 1), EFAULT, "writev EFAULT");
	FAILS(writev(a, iov, vminus1), EINVAL, "writev EINVAL");
	errno = KEEP;
	CHECK(fcntl(a, F_GETFL) >= 0 && errno == KEEP, "fcntl");
	write_pieces(a, in_d, 250, in_len, &seed);
	errno = KEEP;
	CHECK(close(a) == 0 && errno == KEEP, "close: errno %d", errno);
	check_exp(pa);
	free(pa);
}

/* ---- lseek ---------------------------------------------------------------- */

static void t_lseek(void)
{
	uint64_t seed = 41;
	char *pa = sd_path_in(dir, "lseek.hprof");
	size_t off = 0, k;
	int a = open_new(pa), i;

	CHECK(lseek(a, 0, SEEK_CUR) == 0, "start");
	for (i = 0; off < in_len; i++) {
		size_t n = sd_piece(&seed, in_len - off);
		if (i % 3 == 2) {
			/* positional: the file position stays */
			CHECK(pwrite(a, in_d + off, n, (off_t)off) == (ssize_t)n,
			      "pwrite");
			CHECK(lseek(a, 0, SEEK_CUR) == (off_t)(off), "pwrite moved "
			      "the position");
			CHECK(lseek(a, 0, SEEK_END) == (off_t)(off + n), "end");
		} else {
			sd_write_all(a, in_d + off, n);
		}
		off += n;
		CHECK(lseek(a, 0, SEEK_CUR) == (off_t)off, "SEEK_CUR %lld != %zu",
		      (long long)lseek(a, 0, SEEK_CUR), off);
		CHECK(lseek(a, 0, SEEK_END) == (off_t)off, "SEEK_END");
		k = off / 2;
		CHECK(lseek(a, (off_t)k, SEEK_SET) == (off_t)k, "SEEK_SET");
		CHECK(lseek(a, (off_t)(off - k), SEEK_CUR) == (off_t)off,
		      "SEEK_CUR forward");
		CHECK(lseek(a, -(off_t)off, SEEK_END) == 0, "SEEK_END back");
		CHECK(lseek(a, 0, SEEK_END) == (off_t)off, "SEEK_END again");
	}
	/* past the largest offset: EINVAL, the position where it was (the
	 * shim once added INT64_MAX to it, undefined) */
	if (sizeof(off_t) == 8) {
		off_t big = (off_t)(~(uint64_t)0 >> 1);
		FAILS(lseek(a, big, SEEK_CUR), EINVAL, "SEEK_CUR past the end "
		      "of offsets");
		FAILS(lseek(a, big, SEEK_END), EINVAL, "SEEK_END past the end "
		      "of offsets");
		CHECK(lseek(a, 0, SEEK_CUR) == (off_t)off, "moved by a failed "
		      "lseek");
	}
	close(a);
	check_exp(pa);
	free(pa);
}

/* ---- one dump, the open and write calls chosen -------------------------------- */

static void t_write(const char *arg)
{
	const char *name = strchr(arg, ':') ? strchr(arg, ':') + 1 : arg;
	char how[32] = "open";
	char *p = sd_path_in(dir, name), *plus;
	uint64_t seed = 51;
	size_t off = 0;
	int fd = -1, dfd;

	if (strchr(arg, ':'))
		snprintf(how, sizeof how, "%.*s", (int)(strchr(arg, ':') - arg), arg);
	plus = strchr(how, '+');
	if (plus)
		*plus++ = 0;
	if (!strcmp(how, "open")) {
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	} else if (!strcmp(how, "raw")) {
		/* opened where the shim cannot see (another process, binder) */
		fd = (int)syscall(SYS_openat, AT_FDCWD, p,
		                  O_WRONLY | O_CREAT | O_TRUNC, 0600);
	} else if (!strcmp(how, "open2") || !strcmp(how, "openat2")) {
		fd = creat(p, 0600);  /* exists, so no O_CREAT below */
		if (fd < 0)
			die(p);
		close(fd);
		dfd = open(dir, O_RDONLY | O_DIRECTORY);
		fd = how[4] == 'a' ? openat(dfd, name, vflags_wr)
		                   : open(p, vflags_wr);
		close(dfd);
	} else if (!strcmp(how, "openat")) {
		dfd = open(dir, O_RDONLY | O_DIRECTORY);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		close(dfd);
	} else if (!strcmp(how, "creat")) {
		fd = creat(p, 0600);
	} else {
		fprintf(stderr, "shimstress: write: unknown open call %s\n", how);
		exit(2);
	}
	if (fd < 0)
		die(p);
	while (off < in_len) {
		size_t n = sd_piece(&seed, SIZE_MAX);
		if (!off && n < 64)
			n = 64;  /* the header in one write, as writers do; a
			            sniffer needs its first 17 bytes at once */
		if (n > in_len - off)
			n = in_len - off;
		if (plus && !strcmp(plus, "pwrite")) {
			CHECK(pwrite(fd, in_d + off, n, (off_t)off) == (ssize_t)n,
			      "pwrite");
		} else if (plus && !strcmp(plus, "writev")) {
			struct iovec v[2];
			v[0].iov_base = (void *)(in_d + off);
			v[0].iov_len = n / 2;
			v[1].iov_base = (void *)(in_d + off + n / 2);
			v[1].iov_len = n - n / 2;
			CHECK(writev(fd, v, 2) == (ssize_t)n, "writev");
		} else {
			sd_write_all(fd, in_d + off, n);
		}
		off += n;
	}
	if (close(fd))
		die("close");
	check_exp(p);
	free(p);
}

/* ---- files that do not match ---------------------------------------------- */

static void t_plain(int magic)
{
	char *pa = sd_path_in(dir, "a.txt"), *pb = sd_path_in(dir, "b.bin"),
	     *pc = sd_path_in(dir, "c.hprof"), *pd = sd_path_in(dir, "d.dat");
	unsigned char buf[8192], back[8192];
	struct iovec v[3];
	off_t o;
	int a, b, c, d, x, dfd;
	size_t i;

	for (i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)(i * 13 + 5);
	if (magic)
		memcpy(buf, "JAVA PROFILE 1.0.2", 19);

	/* open, write, pwrite, writev, pwritev, lseek, ftruncate */
	a = open(pa, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (a < 0)
		die(pa);
	sd_write_all(a, buf, 1000);
	CHECK(pwrite(a, buf + 1000, 1000, 1000) == 1000, "pwrite");
	CHECK(lseek(a, 0, SEEK_CUR) == 1000, "offset");
	CHECK(lseek(a, 0, SEEK_END) == 2000, "end");
	v[0].iov_base = buf + 2000;
	v[0].iov_len = 500;
	v[1].iov_base = buf + 2500;
	v[1].iov_len = 0;
	v[2].iov_base = buf + 2500;
	v[2].iov_len = 500;
	CHECK(writev(a, v, 3) == 1000, "writev");
	v[0].iov_base = buf + 3000;
	v[0].iov_len = 1000;
	CHECK(pwritev(a, v, 1, 3000) == 1000, "pwritev");
	CHECK(ftruncate(a, 5000) == 0, "ftruncate");
	CHECK(lseek(a, 4000, SEEK_SET) == 4000, "lseek");
	sd_write_all(a, buf + 4000, 1000);
	CHECK(fdatasync(a) == 0, "fdatasync");

	/* creat, dup, dup2, dup3, fcntl dups, sendfile, copy_file_range */
	b = creat(pb, 0644);
	if (b < 0)
		die(pb);
	sd_write_all(b, buf, 100);
	x = dup(b);
	sd_write_all(x, buf + 100, 100);
	CHECK(dup2(x, 150) == 150, "dup2");
	close(x);
	sd_write_all(150, buf + 200, 100);
	CHECK(dup3(150, 151, O_CLOEXEC) == 151, "dup3");
	close(150);
	x = fcntl(151, F_DUPFD_CLOEXEC, 160);
	CHECK(x >= 160, "F_DUPFD_CLOEXEC");
	close(151);
	sd_write_all(x, buf + 300, 100);
	o = 0;
	c = open(pa, O_RDONLY);
	CHECK(lseek(c, 400, SEEK_SET) == 400, "lseek");
	o = 400;
	CHECK(sendfile(x, c, &o, 600) == 600 && o == 1000, "sendfile");
	{
		loff_t ci = 1000;
		ssize_t r = copy_file_range(c, &ci, x, NULL, 1000, 0);
		if (r < 0 && (errno == ENOSYS || errno == EXDEV || errno == EOPNOTSUPP))
			r = pwrite(x, buf + 1000, 1000, 1000) == 1000 &&
			    lseek(x, 1000, SEEK_CUR) == 2000 ? 1000 : -1;
		CHECK(r == 1000, "copy_file_range");
	}
	close(c);
	close(x);

	/* a *.hprof opened for append, and one opened read-only */
	c = open(pc, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (c < 0)
		die(pc);
	sd_write_all(c, buf, 3000);
	sd_write_all(c, buf + 3000, 2000);
	close(c);
	c = open(pc, O_RDONLY);
	CHECK(read(c, back, 5000) == 5000 && !memcmp(back, buf, 5000), "read");
	close(c);

	/* openat, the fortified open */
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	d = openat(dfd, "d.dat", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (d < 0)
		die(pd);
	sd_write_all(d, buf, 10);
	close(d);
	d = openat(dfd, "d.dat", vflags_wr);
	sd_write_all(d, buf, 20);
	close(d);
	d = open(pd, vflags_wr);
	sd_write_all(d, buf, 30);
	close(d);
	close(dfd);

	CHECK(!sd_same_file(pa, buf, 5000), "a.txt changed");
	CHECK(!sd_same_file(pb, buf, 2000), "b.bin changed");
	CHECK(!sd_same_file(pc, buf, 5000), "c.hprof changed");
	CHECK(!sd_same_file(pd, buf, 30), "d.dat changed");
	free(pa);
	free(pb);
	free(pc);
	free(pd);
}

int main(int argc, char **argv)
{
	const char *arg;

	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: shimstress TEST IN EXP DIR [ARG]\n"
		        "tests: threads concurrent fork vfork reuse dup2 errno "
		        "keeperrno lseek letgo refused copies cloexec closewait write\n"
		        "       plain\n");
		return 2;
	}
	test = argv[1];
	dir = argv[4];
	arg = argc > 5 ? argv[5] : NULL;
	if (strcmp(test, "plain")) {
		in_d = sd_slurp(argv[2], &in_len);
		exp_d = sd_slurp(argv[3], &exp_len);
	}
	if (!strcmp(test, "threads"))
		t_threads();
	else if (!strcmp(test, "concurrent"))
		t_concurrent(arg ? atoi(arg) : 6);
	else if (!strcmp(test, "fork"))
		t_fork();
	else if (!strcmp(test, "vfork"))
		t_vfork();
	else if (!strcmp(test, "reuse"))
		t_reuse();
	else if (!strcmp(test, "dup2"))
		t_dup2();
	else if (!strcmp(test, "errno"))
		t_errno();
	else if (!strcmp(test, "keeperrno"))
		t_keeperrno(arg);
	else if (!strcmp(test, "lseek"))
		t_lseek();
	else if (!strcmp(test, "letgo"))
		t_letgo(arg ? atoi(arg) : 200);
	else if (!strcmp(test, "refused") && arg)
		t_refused(atoi(arg));
	else if (!strcmp(test, "copies") && arg)
		t_copies(atoi(arg));
	else if (!strcmp(test, "cloexec"))
		t_cloexec();
	else if (!strcmp(test, "closewait"))
		t_closewait(arg ? atoi(arg) : 1000);
	else if (!strcmp(test, "write") && arg)
		t_write(arg);
	else if (!strcmp(test, "plain"))
		t_plain(arg && !strcmp(arg, "magic"));
	else {
		fprintf(stderr, "shimstress: unknown test %s\n", test);
		return 2;
	}
	if (failures) {
		fprintf(stderr, "shimstress: %s: %d failed checks\n", test, failures);
		return 1;
	}
	printf("shimstress: %s: ok\n", test);
	return 0;
}
