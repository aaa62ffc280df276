/*
 * The redaction level words, read once for every front end: the tools'
 * --redact=WORD (strip/cli/cli.c), the launcher's (preload/hprofstrip-run.c)
 * and the shim's HPROFSTRIP_REDACT (preload/policy.c). A word is read
 * whatever its case, white space around it (spaces, tabs, line ends: an
 * environment file written on Windows ends its words in \r) left out:
 *   values, 1, yes, true, on    the values level
 *   names                       the names level
 *   0, no, false, off           no redaction
 */
#ifndef HPROFSTRIP_LEVELS_H
#define HPROFSTRIP_LEVELS_H

#include <string.h>
#include <strings.h>

enum { IO_LEVEL_UNKNOWN = -1, IO_LEVEL_OFF, IO_LEVEL_VALUES, IO_LEVEL_NAMES };

/* The level word w names, or IO_LEVEL_UNKNOWN. */
static inline int io_redact_level(const char *w)
{
	static const struct { const char *word; int level; } words[] = {
		{ "values", IO_LEVEL_VALUES }, { "names", IO_LEVEL_NAMES },
		{ "1", IO_LEVEL_VALUES }, { "yes", IO_LEVEL_VALUES },
		{ "true", IO_LEVEL_VALUES }, { "on", IO_LEVEL_VALUES },
		{ "0", IO_LEVEL_OFF }, { "no", IO_LEVEL_OFF },
		{ "false", IO_LEVEL_OFF }, { "off", IO_LEVEL_OFF },
	};
	static const char blank[] = " \t\r\n\v\f";
	size_t i, n;

	w += strspn(w, blank);
	for (n = strlen(w); n && strchr(blank, w[n - 1]); n--)
		;
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i].word) == n &&
		    !strncasecmp(w, words[i].word, n))
			return words[i].level;
	return IO_LEVEL_UNKNOWN;
}

#endif
