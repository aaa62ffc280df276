/* The names map for the tools: see names.h. */
#include "names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Is path the file of fd, or the file at other (NULL: none)? */
static int same_as(const char *path, int fd, const char *other)
{
	struct stat a, b;

	if (stat(path, &a))
		return other && !strcmp(path, other);
	if (fd >= 0 && !fstat(fd, &b) && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		return 1;
	return other && (!strcmp(path, other) ||
	                 (!stat(other, &b) && a.st_dev == b.st_dev &&
	                  a.st_ino == b.st_ino));
}

int names_start(const struct args *a, int in_fd, const char *out_path,
                struct names_io *n, struct hs_config *cfg)
{
	static unsigned char map_buf[256u << 10];
	const char *name = a->tool->name;
	char err[256];

	memset(n, 0, sizeof *n);
	if (a->flags & HS_UNREDACT) {
		if (io_map_load(&n->rd, a->unredact, err, sizeof err)) {
			if (a->verbosity)
				cli_say("%s: %s: %s\n", name, a->unredact,
				        err);
			io_map_free(&n->rd);
			return -1;
		}
		n->names.rename = io_map_rename;
		n->names.user = &n->rd;
		cfg->names = &n->names;
		return 0;
	}
	if (!(a->flags & HS_REDACT_NAMES))
		return 0;
	if (io_names_key(getenv("HPROFSTRIP_NAMES_KEY"), n->names.key) < 0) {
		if (a->verbosity)
			cli_say("%s: HPROFSTRIP_NAMES_KEY: not 32 hex "
			        "digits\n", name);
		return -2;
	}
	snprintf(n->path, sizeof n->path, "%s%s",
	         a->map_path ? a->map_path : out_path,
	         a->map_path ? "" : ".names");
	/* never over the dump read or written */
	if (same_as(n->path, in_fd, out_path)) {
		if (a->verbosity)
			cli_say("%s: %s: the names map would be the input "
			        "or the output file\n", name, n->path);
		return -2;
	}
	/* the names are the owner's alone: 0600, whatever the input's */
	if (out_open_buf(&n->mo, n->path, name, 0600, !a->verbosity, map_buf,
	                 sizeof map_buf))
		return -1;
	n->open = 1;
	n->map.ob = &n->mo.ob;
	n->names.original = io_map_original;
	n->names.user = &n->map;
	cfg->names = &n->names;
	return 0;
}

int names_restart(struct names_io *n)
{
	if (!n->open)
		return 0;
	memset(&n->map, 0, sizeof n->map);
	n->map.ob = &n->mo.ob;
	return out_truncate(&n->mo, 0);
}

int names_end(struct names_io *n, const struct hs_state *st, int ok)
{
	int rc = 0;

	if (n->open && ok) {
		uint64_t cut = io_map_end(&n->map, st->idsize, st->timestamp);
		/* a text cut short (--salvage) */
		if (cut != UINT64_MAX && out_truncate(&n->mo, cut)) {
			out_report(&n->mo);
			out_abort(&n->mo);
			rc = -1;
		} else {
			rc = out_commit(&n->mo);
		}
	} else if (n->open) {
		out_abort(&n->mo);
	}
	io_map_free(&n->rd);
	n->open = 0;
	return rc;
}
