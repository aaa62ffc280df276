/*
 * libhprofstrip.a from C, without LD_PRELOAD, as an app's PLT hook uses
 * it: examples/android/hook-example.c, unchanged, over a stand-in for
 * bytehook whose "PLT" is a table here. The program plays libart.so: its
 * calls go through the table, so through the example's hooks, which call
 * the API and the real libc functions (bats/embed.bats).
 *
 *   embedtest art IN OUT    ART's pattern: open (OUT announced with
 *                           hook_example_expect, so hst_begin), dup, close
 *                           the original, the header in one write, then
 *                           one whole top-level record per write, close
 *   embedtest jdk17 IN OUT  JDK 11+'s: open (hst_opened: OUT's name
 *                           decides), writes of 1 MiB, close
 *   embedtest version       hst_api_version() == HPROFSTRIP_API_VERSION
 */
#define HOST_TEST 1
#include "../examples/android/hook-example.c"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* ---- the stand-in's PLT ------------------------------------------------- */

struct plt {
	const char *sym;
	void *real;   /* libc's: what bytehook calls the previous function */
	void *proxy;  /* the hook, once installed */
};

static struct plt plt[] = {
	{ "open", (void *)open, NULL },
	{ "dup", (void *)dup, NULL },
	{ "write", (void *)write, NULL },
	{ "close", (void *)close, NULL },
};
#define NPLT (sizeof plt / sizeof plt[0])

bytehook_stub_t bytehook_hook_single(const char *caller_path_name,
                                     const char *callee_path_name,
                                     const char *sym_name, void *new_func,
                                     bytehook_hooked_t hooked,
                                     void *hooked_arg)
{
	unsigned i;

	(void)callee_path_name;
	(void)hooked;
	(void)hooked_arg;
	if (strcmp(caller_path_name, "libart.so"))
		return NULL;
	for (i = 0; i < NPLT; i++)
		if (!strcmp(plt[i].sym, sym_name)) {
			plt[i].proxy = new_func;
			return &plt[i];
		}
	return NULL;
}

void *bytehook_get_prev_func(void *func)
{
	unsigned i;

	for (i = 0; i < NPLT; i++)
		if (plt[i].proxy == func)
			return plt[i].real;
	abort();
}

/* What "libart.so" calls: the hook if one is installed, else libc. */
static void *art(const char *sym)
{
	unsigned i;

	for (i = 0; i < NPLT; i++)
		if (!strcmp(plt[i].sym, sym))
			return plt[i].proxy ? plt[i].proxy : plt[i].real;
	abort();
}

#define ART_OPEN ((open_t)art("open"))
#define ART_DUP ((dup_t)art("dup"))
#define ART_WRITE ((write_t)art("write"))
#define ART_CLOSE ((close_t)art("close"))

/* ---- the replay --------------------------------------------------------- */

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;
	unsigned char *p;

	if (!f || fstat(fileno(f), &sb))
		die(path);
	p = malloc(sb.st_size ? (size_t)sb.st_size : 1);
	if (!p || fread(p, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size)
		die(path);
	fclose(f);
	*len = (size_t)sb.st_size;
	return p;
}

static void put(int fd, const unsigned char *p, size_t n)
{
	ssize_t r = ART_WRITE(fd, p, n);

	if (r < 0 || (size_t)r != n) {
		fprintf(stderr, "embedtest: write of %zu bytes returned %zd\n", n, r);
		exit(1);
	}
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static size_t header_len(const unsigned char *p, size_t n)
{
	const unsigned char *z = memchr(p, 0, n);

	if (!z || (size_t)(z - p) + 1 + 12 > n) {
		fprintf(stderr, "embedtest: not an HPROF dump\n");
		exit(1);
	}
	return (size_t)(z - p) + 1 + 12;
}

static void replay_art(const unsigned char *p, size_t n, const char *out)
{
	size_t off, len;
	int fd, d;

	hook_example_expect(out);
	fd = ART_OPEN(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		die(out);
	d = ART_DUP(fd);
	if (d < 0 || ART_CLOSE(fd))
		die("dup, close");
	off = header_len(p, n);
	put(d, p, off);
	while (off < n) {
		len = n - off < 9 ? n - off : 9 + (size_t)be32(p + off + 5);
		if (len > n - off)
			len = n - off;
		put(d, p + off, len);
		off += len;
	}
	if (ART_CLOSE(d))
		die("close");
}

static void replay_jdk17(const unsigned char *p, size_t n, const char *out)
{
	size_t off, len;
	int fd = ART_OPEN(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		die(out);
	for (off = 0; off < n; off += len) {
		len = n - off < (1u << 20) ? n - off : 1u << 20;
		put(fd, p + off, len);
	}
	if (ART_CLOSE(fd))
		die("close");
}

int main(int argc, char **argv)
{
	unsigned char *p;
	size_t n;

	if (argc == 2 && !strcmp(argv[1], "version")) {
		printf("%d\n", hst_api_version());
		return hst_api_version() == HPROFSTRIP_API_VERSION ? 0 : 1;
	}
	if (argc != 4 || (strcmp(argv[1], "art") && strcmp(argv[1], "jdk17"))) {
		fprintf(stderr, "usage: embedtest art|jdk17 IN OUT | version\n");
		return 2;
	}
	if (hook_example_install())
		return 1;
	p = slurp(argv[2], &n);
	if (!strcmp(argv[1], "art"))
		replay_art(p, n, argv[3]);
	else
		replay_jdk17(p, n, argv[3]);
	free(p);
	return 0;
}
