/*
 * Control characters in messages, escaped as ls -b does, for the tools'
 * messages (strip/cli/out.c: cli_say) and the shim's (preload/say.c): a
 * file name with a newline stays on its message's one line. \a \b \t \n
 * \v \f \r as those letters, a backslash doubled, any other byte below
 * 0x20 and 0x7f as \ooo (three octal digits); every other byte (UTF-8
 * too) as it is.
 */
#ifndef HPROFSTRIP_ESCAPE_H
#define HPROFSTRIP_ESCAPE_H

#include <stddef.h>

/* The n bytes at in, escaped into out (cap bytes, NUL-terminated): their
 * length, cut before the first escape that would not fit. */
static inline size_t io_escape(char *out, size_t cap, const char *in,
                               size_t n)
{
	static const char letter[] = "abtnvfr";  /* for 7 (\a) to 13 (\r) */
	size_t i, k = 0;

	if (!cap)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)in[i];
		char e[4];
		size_t m = 0, j;

		if (c == '\\') {
			e[m++] = '\\';
			e[m++] = '\\';
		} else if (c >= 7 && c <= 13) {
			e[m++] = '\\';
			e[m++] = letter[c - 7];
		} else if (c < 0x20 || c == 0x7f) {
			e[m++] = '\\';
			e[m++] = (char)('0' + (c >> 6));
			e[m++] = (char)('0' + (c >> 3 & 7));
			e[m++] = (char)('0' + (c & 7));
		} else {
			e[m++] = (char)c;
		}
		if (k + m >= cap)
			break;
		for (j = 0; j < m; j++)
			out[k++] = e[j];
	}
	out[k] = 0;
	return k;
}

#endif
