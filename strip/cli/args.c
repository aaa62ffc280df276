/* The tools' command line: see args.h. */
#include "args.h"
#include "out.h"
#include "../io/levels.h"

#include <stdio.h>
#include <string.h>

/* A usage error (fmt with a), said with a hint to --help unless quiet. */
static int usage_error(const struct args *args, const char *fmt,
                       const char *a)
{
	const struct cli_tool *t = args->tool;
	char msg[4096];

	if (!args->verbosity)
		return EXIT_USAGE;
	snprintf(msg, sizeof msg, fmt, a);
	cli_say("%s: %s\n", t->name, msg);
	fprintf(stderr, "Try '%s --help'.\n", t->name);
	return EXIT_USAGE;
}

int cli_vq(const char *s, int *v)
{
	size_t n = strlen(s);
	size_t i;

	if (n < 2 || s[0] != '-' || strspn(s + 1, "vq") != n - 1)
		return 0;
	for (*v = 0, i = 1; i < n; i++)
		*v += s[i] == 'v';
	return 1;
}

int cli_quiet(int argc, char **argv)
{
	int i, v;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (cli_vq(argv[i], &v) && strchr(argv[i], 'q'))
			return 1;
		if (!strcmp(argv[i], "-o"))
			i++;
	}
	return 0;
}

/* Is word among the arguments before any "--"? */
static int has_option(int argc, char **argv, const char *word)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], word))
			return 1;
	}
	return 0;
}

int args_info_mode(const struct cli_tool *tool, int argc, char **argv)
{
	return tool->info_usage && has_option(argc, argv, "--info");
}

int args_suspects_mode(int argc, char **argv)
{
	return has_option(argc, argv, "--suspects");
}

int args_histo_mode(const struct cli_tool *tool, int argc, char **argv)
{
	return tool->histo_usage && !args_info_mode(tool, argc, argv) &&
	       has_option(argc, argv, "--histo");
}

/* The options --histo takes besides -h, -v, -q and --salvage. */
static int histo_takes(const char *s)
{
	static const char *const words[] = {
		"--histo", "--json", "--baseline", "--app-only", "-V",
		"--version", NULL
	};
	int i;

	for (i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return 1;
	return s[1] == 'o';  /* -o FILE, -oFILE */
}

/* --redact=WORD: the level it names (levels.h), the last given winning;
 * -1 for a word that names none. */
static int redact_level(struct args *a, const char *word)
{
	int level = io_redact_level(word);

	if (level == IO_LEVEL_UNKNOWN)
		return -1;
	a->flags &= ~(unsigned)(HS_REDACT | HS_REDACT_NAMES);
	if (level >= IO_LEVEL_VALUES)
		a->flags |= HS_REDACT;
	if (level == IO_LEVEL_NAMES)
		a->flags |= HS_REDACT_NAMES;
	return 0;
}

int args_parse(struct args *a, int argc, char **argv)
{
	const struct cli_tool *tool = a->tool;
	int i, v, opts = 1;

	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (opts && !strcmp(s, "--")) {
			opts = 0;
		} else if (opts && (!strcmp(s, "-h") || !strcmp(s, "--help"))) {
			fputs(a->info ? tool->info_usage : a->histo
			      ? tool->histo_usage : tool->usage, stdout);
			return EXIT_OK;
		} else if (opts && cli_vq(s, &v)) {
			/* -q: seen by cli_quiet; -v under --info: accepted,
			 * changes nothing */
			while (v-- > 0)
				a->verbosity += a->verbosity > 0 && !a->info;
		} else if (opts && a->info && !strcmp(s, "--info")) {
			/* the mode itself */
		} else if (opts && (a->info || a->histo) && !strcmp(s, "--json")) {
			a->json = 1;
		} else if (opts && !strcmp(s, "--json")) {
			return usage_error(a, "--json goes with --info, --histo "
			                   "or --suspects%s", "");
		} else if (opts && !strcmp(s, "--salvage")) {
			a->flags |= HS_SALVAGE;
		} else if (opts && a->info && s[0] == '-' && s[1] &&
		           s[1] != 'o') {
			return usage_error(a, "--info: unsupported option '%s'", s);
		} else if (opts && a->histo && s[0] == '-' && s[1] &&
		           !histo_takes(s)) {
			return usage_error(a, "--histo: unsupported option '%s'", s);
		} else if (opts && a->histo && !strcmp(s, "--histo")) {
			/* the mode itself */
		} else if (opts && tool->histo_usage && !strcmp(s, "--baseline")) {
			if (!a->histo)
				return usage_error(a, "--baseline goes with "
				                   "--histo%s", "");
			if (++i == argc)
				return usage_error(a, "--baseline needs a "
				                   "histogram or dump%s", "");
			if (a->baseline)
				return usage_error(a, "--baseline given twice%s",
				                   "");
			a->baseline = argv[i];
		} else if (opts && !a->info && !strcmp(s, "--stream")) {
			a->stream = 1;
		} else if (opts && tool->redacts && !strcmp(s, "--redact")) {
			a->flags |= HS_REDACT;
		} else if (opts && tool->redacts && !strncmp(s, "--redact=", 9)) {
			if (redact_level(a, s + 9))
				return usage_error(a, "--redact: unknown level '%s' "
				                   "(the levels: values, names)",
				                   s + 9);
		} else if (opts && tool->redacts && !strcmp(s, "--names-map")) {
			if (++i == argc)
				return usage_error(a, "--names-map needs a file "
				                   "name%s", "");
			if (a->map_path)
				return usage_error(a, "--names-map given twice%s",
				                   "");
			a->map_path = argv[i];
		} else if (opts && tool->unredacts && !strcmp(s, "--unredact")) {
			if (++i == argc)
				return usage_error(a, "--unredact needs a names "
				                   "map%s", "");
			if (a->unredact)
				return usage_error(a, "--unredact given twice%s",
				                   "");
			a->unredact = argv[i];
			a->flags |= HS_UNREDACT;
		} else if (opts && (!strcmp(s, "-V") || !strcmp(s, "--version"))) {
			printf("%s %s\n", tool->name, HS_VERSION);
			return EXIT_OK;
		} else if (opts && s[0] == '-' && s[1] == 'o') {
			if (!s[2] && ++i == argc)
				return usage_error(a, "-o needs a file name%s", "");
			if (a->out_path)
				return usage_error(a, "-o given twice (one output "
				                   "a run)%s", "");
			a->out_path = s[2] ? s + 2 : argv[i];
		} else if (opts && s[0] == '-' && s[1]) {
			const struct cli_option *o = tool->options;

			while (o && o->name && strcmp(o->name, s))
				o++;
			if (!o || !o->name)
				return usage_error(a, "unknown option '%s'", s);
			a->flags |= o->flags;
		} else if (!a->in_path) {
			a->in_path = s;
		} else {
			return usage_error(a, "unexpected argument '%s'", s);
		}
	}
	if (a->baseline && !strcmp(a->baseline, "-") &&
	    (!a->in_path || !strcmp(a->in_path, "-")))
		return usage_error(a, "--baseline and IN cannot both be "
		                   "stdin%s", "");
	if ((a->flags & HS_REDACT) && (a->flags & HS_KEEP_STRINGS))
		return usage_error(a, "--redact and --keep-strings cannot be "
		                   "combined: redaction removes what Strings "
		                   "hold%s", "");
	if ((a->flags & HS_REDACT) && (a->flags & HS_KEEP_BITMAPS))
		return usage_error(a, "--redact and --keep-bitmaps cannot be "
		                   "combined: redaction removes what bitmaps "
		                   "hold (pictures are user data)%s", "");
	if (a->map_path && !(a->flags & HS_REDACT_NAMES))
		return usage_error(a, "--names-map goes with --redact=names%s",
		                   "");
	if ((a->flags & HS_REDACT_NAMES) && !a->map_path &&
	    (!a->out_path || !strcmp(a->out_path, "-")))
		return usage_error(a, "--redact=names to stdout needs "
		                   "--names-map FILE, where the original names "
		                   "go%s", "");
	return -1;
}
