/*
 * pairtime: what a preloaded library costs a command that never dumps,
 * paired run by run against another library (make bench's bystander
 * section, tests/bench/bystander.sh).
 *
 *   pairtime [-n RUNS] [-s SETUP] LIB_A LIB_B -- COMMAND [ARG...]
 *       runs COMMAND with LD_PRELOAD=LIB_A, then LIB_B, RUNS times each
 *       in turn (A B A B ..., after one untimed run of each), SETUP (a
 *       /bin/sh command, no library preloaded) before every run. Prints
 *       the median CPU seconds (user + system, the command and every
 *       child it waited for, from wait4) of A and of B, and the median,
 *       smallest and largest of the ratios A/B, pair by pair:
 *           cpu A 0.1234 B 0.1200 ratio 1.0283 (0.9811 .. 1.0712) n 15
 *   pairtime -r LIB_A LIB_B -- COMMAND [ARG...]
 *       the resident memory (KiB) of COMMAND 300 ms after its start with
 *       each library, the median of 11 starts each: VmRSS, and its
 *       part the process wrote (memory of its own, not page cache):
 *           rss A 1904 B 1836 diff 68 private A 240 B 232 diff 8
 *
 * Pairing keeps the ratio honest on a machine whose speed drifts: each
 * ratio sets two runs made one after the other against each other.
 * Exit 0, or 1 with one line when a run cannot be made or fails.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 200

static const char *setup_cmd;

static void die(const char *what)
{
	fprintf(stderr, "pairtime: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* cmd with LD_PRELOAD=lib, started; its pid */
static pid_t start(const char *lib, char **cmd)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		/* (what the command prints is not the table's) */
		if (null < 0 || dup2(null, 1) < 0 || setenv("LD_PRELOAD", lib, 1))
			_exit(127);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	return pid;
}

/* one timed run: the CPU seconds of cmd under lib */
static double run(const char *lib, char **cmd)
{
	struct rusage ru;
	pid_t pid;
	int st;

	if (setup_cmd && system(setup_cmd) != 0) {
		fprintf(stderr, "pairtime: setup failed: %s\n", setup_cmd);
		exit(1);
	}
	pid = start(lib, cmd);
	if (wait4(pid, &st, 0, &ru) != pid)
		die("wait4");
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "pairtime: %s failed (status %d) under %s\n",
		        cmd[0], st, lib);
		exit(1);
	}
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void cpu(int runs, const char *a, const char *b, char **cmd)
{
	double ta[MAX_RUNS], tb[MAX_RUNS], q[MAX_RUNS], m;
	int i;

	run(a, cmd);
	run(b, cmd);
	for (i = 0; i < runs; i++) {
		ta[i] = run(a, cmd);
		tb[i] = run(b, cmd);
		q[i] = tb[i] > 0 ? ta[i] / tb[i] : 1;
	}
	m = median(q, runs);
	printf("cpu A %.4f B %.4f ratio %.4f (%.4f .. %.4f) n %d\n",
	       median(ta, runs), median(tb, runs), m, q[0], q[runs - 1], runs);
}

/* what a process's memory is made of: VmRSS of /proc/PID/status, and
 * the part of it written by the process (Private_Dirty of smaps_rollup:
 * the pages no other process shares) */
struct mem {
	double rss, priv;
};

static double field(const char *path, const char *name)
{
	char line[256];
	size_t n = strlen(name);
	double kib = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, name, n) && strchr(line, ':'))
			kib = (kib < 0 ? 0 : kib) + atof(strchr(line, ':') + 1);
	fclose(f);
	return kib;
}

/* cmd's memory under lib, 300 ms after its start */
static struct mem mem_of(const char *lib, char **cmd)
{
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	char path[64];
	struct mem m;
	pid_t pid = start(lib, cmd);

	nanosleep(&ts, NULL);
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	m.rss = field(path, "VmRSS:");
	snprintf(path, sizeof path, "/proc/%d/smaps_rollup", (int)pid);
	m.priv = field(path, "Private_Dirty:");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (m.rss < 0 || m.priv < 0) {
		fprintf(stderr, "pairtime: no VmRSS or smaps_rollup for %s "
		        "under %s\n", cmd[0], lib);
		exit(1);
	}
	return m;
}

#define MEM_RUNS 11

static void memory(const char *a, const char *b, char **cmd)
{
	double ra[MEM_RUNS], rb[MEM_RUNS], pa[MEM_RUNS], pb[MEM_RUNS];
	double ma, mb, qa, qb;
	int i;

	for (i = 0; i < MEM_RUNS; i++) {
		struct mem x = mem_of(a, cmd), y = mem_of(b, cmd);
		ra[i] = x.rss;
		pa[i] = x.priv;
		rb[i] = y.rss;
		pb[i] = y.priv;
	}
	ma = median(ra, MEM_RUNS);
	mb = median(rb, MEM_RUNS);
	qa = median(pa, MEM_RUNS);
	qb = median(pb, MEM_RUNS);
	printf("rss A %.0f B %.0f diff %.0f private A %.0f B %.0f diff %.0f\n",
	       ma, mb, ma - mb, qa, qb, qa - qb);
}

int main(int argc, char **argv)
{
	int opt, runs = 15, mem = 0;

	while ((opt = getopt(argc, argv, "+n:s:r")) != -1) {
		if (opt == 'n')
			runs = atoi(optarg);
		else if (opt == 's')
			setup_cmd = optarg;
		else if (opt == 'r')
			mem = 1;
		else
			return 2;
	}
	if (runs < 1 || runs > MAX_RUNS || argc - optind < 4 ||
	    strcmp(argv[optind + 2], "--")) {
		fprintf(stderr, "usage: pairtime [-n RUNS] [-s SETUP] [-r] "
		        "LIB_A LIB_B -- COMMAND [ARG...]\n");
		return 2;
	}
	if (mem)
		memory(argv[optind], argv[optind + 1], argv + optind + 3);
	else
		cpu(runs, argv[optind], argv[optind + 1], argv + optind + 3);
	return 0;
}
