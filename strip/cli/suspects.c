/*
 * hprofstrip --suspects: the command line of the leak analysis
 * (strip/analyze/suspects.h). It opens IN as the other modes do (a file,
 * a pipe, compressed or not), the report's output and --dominator-tree's
 * through out.h (a temporary file renamed on success, IN's permission
 * bits), and gives the analysis a way to read IN again for the field
 * names of its paths (a file: seeked back; compressed: decompressed
 * again; a pipe: not at all).
 */
#include "cli.h"
#include "decomp.h"
#include "out.h"
#include "suspects.h"
#include "../analyze/suspects.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct sargs {
	const char *in, *out, *tree;
	int json, strong, redacted, salvage, verbosity, background, private_;
	unsigned top;
	uint64_t max_memory;
};

static int usage_error(const struct cli_tool *t, int verbosity,
                       const char *what, const char *a)
{
	if (verbosity) {
		cli_say("%s: --suspects: %s%s%s\n", t->name, what,
		        a ? " " : "", a ? a : "");
		fprintf(stderr, "Try '%s --suspects --help'.\n", t->name);
	}
	return EXIT_USAGE;
}

/* "64M", "2G", "1500000": bytes; 0 if not a size */
static uint64_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	uint64_t m = 1;

	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return 0;
	switch (*end) {
	case 'k': case 'K': m = 1ull << 10; end++; break;
	case 'm': case 'M': m = 1ull << 20; end++; break;
	case 'g': case 'G': m = 1ull << 30; end++; break;
	case 't': case 'T': m = 1ull << 40; end++; break;
	}
	if ((*end == 'i' || *end == 'B') && m > 1)
		end += *end == 'i' && end[1] == 'B' ? 2 : 1;
	if (*end || v > UINT64_MAX / m)
		return 0;
	return v * m;
}

/* -1 to go on, else the exit code */
static int parse(const struct cli_tool *t, struct sargs *a, int argc,
                 char **argv)
{
	int i, v, opts = 1;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (opts && !strcmp(s, "--")) {
			opts = 0;
		} else if (opts && (!strcmp(s, "-h") || !strcmp(s, "--help"))) {
			fputs(t->suspects_usage, stdout);
			return EXIT_OK;
		} else if (opts && (!strcmp(s, "-V") || !strcmp(s, "--version"))) {
			printf("%s %s\n", t->name, HS_VERSION);
			return EXIT_OK;
		} else if (opts && !strcmp(s, "--suspects")) {
		} else if (opts && !strcmp(s, "--json")) {
			a->json = 1;
		} else if (opts && !strcmp(s, "--strong")) {
			a->strong = 1;
		} else if (opts && !strcmp(s, "--background")) {
			a->background = 1;
		} else if (opts && !strcmp(s, "--private")) {
			a->private_ = 1;
		} else if (opts && !strcmp(s, "--redacted")) {
			a->redacted = 1;
		} else if (opts && !strcmp(s, "--salvage")) {
			a->salvage = 1;
		} else if (opts && cli_vq(s, &v)) {
			while (v-- > 0)
				a->verbosity += a->verbosity > 0;
			if (strchr(s, 'q'))
				a->verbosity = 0;
		} else if (opts && !strcmp(s, "--top")) {
			char *end;
			unsigned long v;
			if (++i == argc)
				return usage_error(t, a->verbosity, "--top needs "
				                   "a number", NULL);
			errno = 0;
			v = strtoul(argv[i], &end, 10);
			if (errno || *end || !*argv[i] || argv[i][0] == '-' ||
			    v > 100000)
				return usage_error(t, a->verbosity, "--top takes "
				                   "0 to 100000, not", argv[i]);
			a->top = (unsigned)v;
		} else if (opts && !strcmp(s, "--max-memory")) {
			if (++i == argc || !(a->max_memory = parse_size(argv[i])))
				return usage_error(t, a->verbosity, "--max-memory "
				                   "takes a size (64M, 2G), not",
				                   i < argc ? argv[i] : "nothing");
		} else if (opts && !strcmp(s, "--dominator-tree")) {
			if (++i == argc)
				return usage_error(t, a->verbosity,
				                   "--dominator-tree needs a file "
				                   "name", NULL);
			a->tree = argv[i];
		} else if (opts && !strcmp(s, "-o")) {
			if (++i == argc)
				return usage_error(t, a->verbosity, "-o needs a "
				                   "file name", NULL);
			a->out = argv[i];
		} else if (opts && s[0] == '-' && s[1] == 'o' && s[2]) {
			a->out = s + 2;
		} else if (opts && s[0] == '-' && s[1]) {
			return usage_error(t, a->verbosity, "unsupported option",
			                   s);
		} else if (!a->in) {
			a->in = s;
		} else {
			return usage_error(t, a->verbosity, "unexpected argument",
			                   s);
		}
	}
	if (a->out && !strcmp(a->out, "-"))
		a->out = NULL;
	if (a->private_ && !a->out)
		return usage_error(t, a->verbosity, "--private needs -o FILE",
		                   NULL);
	if (a->tree && !strcmp(a->tree, "-") && !a->out)
		return usage_error(t, a->verbosity, "--dominator-tree - (stdout) "
		                   "needs -o FILE for the report", NULL);
	return -1;
}

struct again {
	struct decomp *dc;
	const char *name, *prog;
	int verbosity;
	int first_failed;      /* the first pass's decompressor failed */
	int first_cut;         /* ... saying its input was cut short */
	char first_msg[512];
};

/* the input from its start again: a file seeked back, a compressed file
 * decompressed again */
static int read_again(void *user, struct heap_src *src)
{
	struct again *g = user;
	struct decomp *d = g->dc;

	if (!d->seekable)
		return -1;
	if (d->prog) {
		/* the first pass's decompressor has its word first */
		if (decomp_finish(d, 0)) {
			g->first_failed = 1;
			g->first_cut = d->cut;
			snprintf(g->first_msg, sizeof g->first_msg, "%s", d->msg);
		}
		if (decomp_start(d))
			return -1;
		src->fd = d->fd;
	} else {
		if (lseek(d->in_fd, d->start, SEEK_SET) < 0)
			return -1;
		src->fd = d->in_fd;
	}
	src->head = NULL;
	src->head_len = 0;
	return 0;
}

/* where the arrays' files go past --max-memory: beside the output */
static void dir_of(const char *path, char *buf, size_t cap)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *tmp = getenv("TMPDIR");

	if (!path || !strcmp(path, "-"))
		snprintf(buf, cap, "%s", tmp && *tmp ? tmp : "/tmp");
	else if (!slash)
		snprintf(buf, cap, ".");
	else if (slash == path)
		snprintf(buf, cap, "/");
	else
		snprintf(buf, cap, "%.*s", (int)(slash - path), path);
}

/* --background: what the shim starts after a dump stays out of the way:
 * the lowest CPU and I/O priority, the first the kernel's OOM killer
 * takes, and no end when its terminal's session does */
static void background(void)
{
	int fd;

	if (setpriority(PRIO_PROCESS, 0, 19)) {
		/* at the priority it has */
	}
#ifdef SYS_ioprio_set
	/* IOPRIO_WHO_PROCESS, this one, IOPRIO_CLASS_IDLE */
	syscall(SYS_ioprio_set, 1, 0, 3 << 13);
#endif
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1000", 4) != 4) {
			/* the score it has */
		}
		close(fd);
	}
	signal(SIGHUP, SIG_IGN);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cli_suspects(const struct cli_tool *t, int argc, char **argv)
{
	struct sargs a;
	struct suspects_opt o;
	struct suspects_io io;
	struct suspects_result res;
	struct heap_src src;
	struct decomp dc;
	struct again g;
	struct out out, tree;
	struct stat sb;
	char dir[4096];
	int fd = 0, rc, tree_open = 0;
	unsigned mode;
	double t0 = now();

	memset(&a, 0, sizeof a);
	a.verbosity = !cli_quiet(argc, argv);
	a.top = 10;
	if ((rc = parse(t, &a, argc, argv)) >= 0)
		return rc;
	if (a.background)
		background();
	if (a.private_ && !lstat(a.out, &sb)) {
		if (a.verbosity)
			cli_say("%s: %s: exists already; left as it is\n",
			        t->name, a.out);
		return EXIT_BAD_INPUT;
	}
	memset(&o, 0, sizeof o);
	o.prog = t->name;
	o.name = a.in && strcmp(a.in, "-") ? a.in : "stdin";
	if (a.in && strcmp(a.in, "-")) {
		fd = open(a.in, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (a.verbosity)
				cli_say("%s: %s: %s\n", t->name, a.in,
				        strerror(errno));
			return EXIT_BAD_INPUT;
		}
	}
	mode = !fstat(fd, &sb) && S_ISREG(sb.st_mode) ? sb.st_mode & 0777 : 0600;
	if (decomp_sniff(&dc, fd)) {
		if (a.verbosity)
			cli_say("%s: %s: read: %s\n", t->name, o.name,
			        strerror(errno));
		rc = EXIT_BAD_INPUT;
		goto close_in;
	}
	if (dc.prog && decomp_start(&dc)) {
		if (a.verbosity)
			cli_say("%s: %s: %s\n", t->name, o.name, dc.msg);
		rc = EXIT_BAD_INPUT;
		goto close_in;
	}
	if (out_open(&out, a.out, t->name, a.private_ ? 0600 : mode,
	             !a.verbosity)) {
		rc = EXIT_BAD_INPUT;
		goto close_in;
	}
	out.text = 1;
	out.private_ = a.private_;
	if (a.tree) {
		static unsigned char tree_buf[1 << 16];
		if (out_open_buf(&tree, strcmp(a.tree, "-") ? a.tree : NULL,
		                 t->name, mode, !a.verbosity, tree_buf,
		                 sizeof tree_buf)) {
			out_abort(&out);
			rc = EXIT_BAD_INPUT;
			goto close_in;
		}
		tree_open = 1;
		tree.text = 1;
	}
	/* beside the report, the tree, or a file input */
	dir_of(a.out ? a.out : a.tree && strcmp(a.tree, "-") ? a.tree
	       : dc.seekable ? a.in : NULL, dir, sizeof dir);
	o.json = a.json;
	o.top = a.top;
	o.strong = a.strong;
	o.redacted = a.redacted;
	o.salvage = a.salvage;
	o.verbosity = a.verbosity;
	o.max_memory = a.max_memory;
	o.tmp_dir = dir;
	o.tree = tree_open;
	memset(&io, 0, sizeof io);
	io.out = out_write;
	io.user = &out;
	io.tree_out = out_write;
	io.tree_user = &tree;
	memset(&g, 0, sizeof g);
	g.dc = &dc;
	g.name = o.name;
	g.prog = t->name;
	g.verbosity = a.verbosity;
	io.again = dc.seekable ? read_again : NULL;
	io.again_user = &g;
	src.fd = dc.prog ? dc.fd : fd;
	src.head = dc.head;
	src.head_len = dc.prog ? 0 : dc.head_len;
	rc = suspects_run(&o, &src, &io, &res);
	/* a compressed input: its decompressor's word on it (the first
	   pass's, when the input was decompressed again for the paths) */
	if (rc == 0 && g.first_failed && !(a.salvage && g.first_cut)) {
		if (a.verbosity)
			cli_say("%s: %s: %s\n", t->name, o.name, g.first_msg);
		rc = -2;
	}
	if (dc.prog && decomp_finish(&dc, rc != 0) && rc == 0 &&
	    !(a.salvage && dc.cut)) {
		if (a.verbosity)
			cli_say("%s: %s: %s\n", t->name, o.name, dc.msg);
		rc = -2;
	}
	if (rc == -1 && a.verbosity) {
		if (res.bad)
			cli_say("%s: %s: offset %llu: %s\n", t->name, o.name,
			        (unsigned long long)res.err_off, res.msg);
		else if (res.err == ENOMEM)
			cli_say("%s: %s: --suspects: out of memory with %llu "
			        "MiB held (--max-memory SIZE puts what is past "
			        "it in files)\n", t->name, o.name,
			        (unsigned long long)(res.peak >> 20));
		else if (out.err || (tree_open && tree.err))
			;  /* out_commit's or out_report's words below */
		else
			cli_say("%s: %s: --suspects: %s\n", t->name, o.name,
			        strerror(res.err ? res.err : EIO));
	}
	if (rc == 0 && tree_open && out_commit(&tree))
		rc = -2;
	if (rc == 0 && out_commit(&out))
		rc = -2;
	if (rc) {
		if (out.err)
			out_report(&out);
		if (tree_open && tree.err)
			out_report(&tree);
		out_abort(&out);
		if (tree_open)
			out_abort(&tree);
	}
	if (rc == 0 && res.cut && a.verbosity)
		cli_say("%s: %s: a dump cut at offset %llu: the analysis is of "
		        "the objects before it\n", t->name, o.name,
		        (unsigned long long)res.cut_off);
	if (rc == 0 && a.verbosity >= 2) {
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		cli_say("%s: %s: %llu objects, %llu reachable, %llu references; "
		        "arrays held %llu KiB at most (%llu KiB in files), max RSS "
		        "%ld KiB (%.1f bytes an object); %.2f s (read %.2f, ids "
		        "%.2f, dominators %.2f, report %.2f)\n",
		        t->name, o.name, (unsigned long long)res.objects,
		        (unsigned long long)res.reachable,
		        (unsigned long long)res.references,
		        (unsigned long long)(res.peak >> 10),
		        (unsigned long long)(res.file_peak >> 10),
		        (long)ru.ru_maxrss, res.objects ? (double)ru.ru_maxrss *
		        1024 / (double)res.objects : 0, now() - t0, res.t_read,
		        res.t_resolve, res.t_dom, res.t_report);
	}
	rc = rc ? EXIT_BAD_INPUT : EXIT_OK;
close_in:
	decomp_finish(&dc, 1);
	if (fd > 0)
		close(fd);
	return rc;
}
