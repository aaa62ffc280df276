/*
 * namerule: the names level's rule (hs_name_kept, strip/engine/names.c)
 * over a table of texts, each kept or tokenized:
 *
 *   namerule           checks each text as the engine sees it: its first
 *                      256 bytes, whole when it has no more; prints one
 *                      line per failed text and "namerule: N passed, N
 *                      failed"; exit 1 on a failure
 *   namerule -w FILE   writes the table as an HPROF dump (JAVA PROFILE
 *                      1.0.2, 8-byte ids) of STRING records, ids 1..N in
 *                      the table's order, and nothing else: hprofstrip
 *                      --redact=names of it must pass redactcheck --names,
 *                      whose rule is a copy of its own (bats/redact.bats)
 *
 * The table: the runtime's names and descriptors, which stay, and texts
 * that start or look like them, which are tokens: markup, '=', ':', ';',
 * spaces, tabs, newlines, an application class in a descriptor, a text
 * past the 256 bytes the engine decides on.
 */
#include "../strip/engine/hprof.h"

#include <stdio.h>
#include <string.h>

#define HEAD 256

struct row {
	int kept;
	const char *text;
	size_t len; /* 0: strlen(text) */
};

static const struct row rows[] = {
	/* class names, HotSpot's and ART's, hidden and synthetic */
	{ 1, "java/lang/String", 0 },
	{ 1, "java.lang.String", 0 },
	{ 1, "java/lang/Thread$State", 0 },
	{ 1, "com/sun/crypto/provider/AESCrypt", 0 },
	{ 1, "org.w3c.dom.Node", 0 },
	{ 1, "java/lang/invoke/LambdaForm$MH+0x0000000800c01000", 0 },
	{ 1, "java/lang/invoke/LambdaForm$MH/0x0000000800c01000", 0 },
	{ 1, "java.lang.String-IA", 0 },
	/* descriptors */
	{ 1, "Ljava/lang/String;", 0 },
	{ 1, "[Ljava/lang/Object;", 0 },
	{ 1, "[[I", 0 },
	{ 1, "I", 0 },
	{ 1, "(Ljava/lang/String;I)V", 0 },
	{ 1, "()V", 0 },
	{ 1, "(J)Ljava/lang/ref/Reference;", 0 },
	{ 1, "([BII)[B", 0 },
	/* ART's */
	{ 1, "int", 0 },
	{ 1, "void", 0 },
	{ 1, "int[]", 0 },
	{ 1, "java.lang.String[]", 0 },
	{ 1, "java.lang.Object[][]", 0 },
	/* the list */
	{ 1, "<init>", 0 },
	{ 1, "<clinit>", 0 },
	{ 1, "<resolved_references>", 0 },
	{ 1, "<init_lock>", 0 },
	{ 1, "<ILLEGAL>", 0 },
	{ 1, "shadow$_klass_", 0 },
	{ 1, "$classOverhead", 0 },
	{ 1, "value", 0 },
	{ 1, "capacity", 0 },
	{ 1, "mWidth", 0 },
	{ 1, "mHeight", 0 },
	/* literals that start as the runtime's names do */
	{ 0, "<apiKey>XmlSecretJ0</apiKey>", 0 },
	{ 0, "javax.net.ssl.keyStorePassword=S3cr3tPW", 0 },
	{ 0, "java.security.auth.login.config=/etc/x.conf;user=admin;"
	     "password=LongSecretM3xxxxxxxx", 0 },
	{ 0, "java.lang.String=secret", 0 },
	{ 0, "<a>secret</a>", 0 },
	{ 0, "<Secret>", 0 },
	{ 0, "shadow$secretpw", 0 },
	{ 0, "Ljava/lang/Secret PW;", 0 },
	{ 0, "(Lcom/acme/Secret;)V", 0 },
	{ 0, "java/util/Map;password=x", 0 },
	{ 0, "sun.misc.Secret: xyz", 0 },
	{ 0, "java.lang.Object\tsecret", 0 },
	{ 0, "java.lang.Object\nsecret", 0 },
	{ 0, "java.lang.Object secret", 0 },
	{ 0, "sun/misc/Unsafe\0secret", 22 },
	{ 0, "java/lang/Stringsecr\xc3\xa9t", 0 },
	/* not quite a name */
	{ 0, "java.", 0 },
	{ 0, "java/lang/", 0 },
	{ 0, "java/lang//String", 0 },
	{ 0, "java/lang.String", 0 },
	{ 0, "javafx/scene/Node", 0 },
	{ 0, "com/acme/Customer", 0 },
	{ 0, "java/lang/Secret-PW", 0 },
	{ 0, "java/lang/String+0xZZ", 0 },
	{ 0, "java/lang/String+0x", 0 },
	{ 0, "java.lang.String-IA-IA", 0 },
	{ 0, "[Lcom/acme/Customer;", 0 },
	{ 0, "Lcom/acme/Customer;", 0 },
	{ 0, "[Ljava/lang/String;secret", 0 },
	{ 0, "[Ljava/lang/String", 0 },
	{ 0, "[Ljava/util/Map$Entry<TK;TV;>;", 0 },
	{ 0, "(Ljava/lang/String;)", 0 },
	{ 0, "(Ljava/lang/String;)VV", 0 },
	{ 0, "(V)V", 0 },
	/* a descriptor, then other text */
	{ 0, "(I)Jdb.password=Hunter2Secret", 0 },
	{ 0, "()Vsecret", 0 },
	{ 0, "(Ljava/lang/String;)V password", 0 },
	{ 0, "(J)Ljava/lang/ref/Reference;x", 0 },
	{ 0, "([BII)[Bsecret", 0 },
	{ 0, "(I)J(I)J", 0 },
	{ 0, "java.lang.String[]secret", 0 },
	{ 0, "void[]", 0 },
	{ 0, "byte[", 0 },
	{ 0, "<init>secret", 0 },
	{ 0, "valuesecret", 0 },
	{ 0, "Signal Dispatcher", 0 },
};

static size_t len_of(const struct row *r)
{
	return r->len ? r->len : strlen(r->text);
}

/* A runtime class name of n bytes: java/lang/ and letters. */
static void long_name(char *buf, size_t n)
{
	memcpy(buf, "java/lang/", 10);
	memset(buf + 10, 'x', n - 10);
}

/* The text as the engine decides on it: its head, whole or not. */
static int kept(const char *s, size_t n)
{
	return hs_name_kept(s, n < HEAD ? n : HEAD, n <= HEAD);
}

static int check(void)
{
	static char at_head[HEAD], past_head[HEAD + 1];
	unsigned pass = 0, fail = 0;
	size_t i;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		if (kept(r->text, len_of(r)) == r->kept) {
			pass++;
			continue;
		}
		fail++;
		printf("FAIL row %zu: `%s` %s, want %s\n", i + 1, r->text,
		       r->kept ? "tokenized" : "kept",
		       r->kept ? "kept" : "tokenized");
	}
	/* a class name of the head's length stays; one byte more, decided
	 * on its head, is a token (fail closed) */
	long_name(at_head, sizeof at_head);
	long_name(past_head, sizeof past_head);
	if (kept(at_head, sizeof at_head)) {
		pass++;
	} else {
		fail++;
		printf("FAIL: a runtime class name of %d bytes tokenized, "
		       "want kept\n", HEAD);
	}
	if (!kept(past_head, sizeof past_head)) {
		pass++;
	} else {
		fail++;
		printf("FAIL: a runtime class name of %d bytes kept, want "
		       "tokenized: it was decided on its head\n", HEAD + 1);
	}
	printf("namerule: %u passed, %u failed\n", pass, fail);
	return fail != 0;
}

static void put_be(unsigned char *p, unsigned long long v, int n)
{
	while (n--)
		*p++ = (unsigned char)(v >> (8 * n));
}

static int record(FILE *f, unsigned long long id, const char *s, size_t n)
{
	unsigned char h[9 + 8];

	h[0] = 0x01;
	put_be(h + 1, 0, 4);
	put_be(h + 5, 8 + n, 4);
	put_be(h + 9, id, 8);
	return fwrite(h, 1, sizeof h, f) != sizeof h ||
	       fwrite(s, 1, n, f) != n;
}

static int write_dump(const char *path)
{
	static char at_head[HEAD], past_head[HEAD + 1];
	static const char hdr[] = "JAVA PROFILE 1.0.2";
	unsigned char tail[12] = { 0, 0, 0, 8 };
	FILE *f = fopen(path, "wb");
	size_t i;
	int bad;

	if (!f) {
		perror(path);
		return 2;
	}
	bad = fwrite(hdr, 1, sizeof hdr, f) != sizeof hdr ||
	      fwrite(tail, 1, sizeof tail, f) != sizeof tail;
	for (i = 0; i < sizeof rows / sizeof rows[0] && !bad; i++)
		bad = record(f, i + 1, rows[i].text, len_of(&rows[i]));
	long_name(at_head, sizeof at_head);
	long_name(past_head, sizeof past_head);
	bad = bad || record(f, i + 1, at_head, sizeof at_head) ||
	      record(f, i + 2, past_head, sizeof past_head);
	if (fclose(f) || bad) {
		perror(path);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return check();
	if (argc == 3 && !strcmp(argv[1], "-w"))
		return write_dump(argv[2]);
	fprintf(stderr, "usage: namerule [-w FILE]\n");
	return 2;
}
