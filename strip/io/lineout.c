/* Text a line at a time (lineout.h). */
#include "lineout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void io_put(struct io_line *l, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		l->len += (size_t)k < sizeof l->buf - l->len
		          ? (size_t)k : sizeof l->buf - l->len - 1;
}

void io_flush(struct io_line *l)
{
	if (!l->err && l->len)
		l->err = l->out(l->user, l->buf, l->len);
	l->len = 0;
}

void io_rule(struct io_line *l)
{
	size_t w = l->len ? l->len - 1 : 0;

	if (w > sizeof l->buf - l->len - 2)
		w = sizeof l->buf - l->len - 2;
	memset(l->buf + l->len, '-', w);
	l->len += w;
	io_put(l, "\n");
	io_flush(l);
}

void io_json_string(struct io_line *l, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k, i;

	io_put(l, "\"");
	while (*p) {
		k = 1;
		if (*p >= 0xC2 && *p <= 0xF4)
			for (k = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : 2, i = 1; i < k; i++)
				if ((p[i] & 0xC0) != 0x80)
					k = 0;  /* the loop ends: p[i] is no 10xxxxxx */
		if (*p == '"' || *p == '\\')
			io_put(l, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7F || (*p >= 0x80 && k < 2))
			io_put(l, "\\u%04x", *p), k = 1;
		else
			io_put(l, "%.*s", (int)k, (const char *)p);
		p += k ? k : 1;
	}
	io_put(l, "\"");
}
