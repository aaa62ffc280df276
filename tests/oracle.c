/*
 * oracle.c - independent, deliberately simple reference implementation of
 * HPROF primitive-array stripping, used as a test oracle.
 *
 * It reads the whole input into memory and walks it with a bounds-checked
 * cursor.  No streaming, no state machine.
 *
 *   oracle zero IN OUT   copy IN, zeroing every PRIMITIVE_ARRAY_DUMP (0x23)
 *                        element byte (same size, same structure)
 *   oracle strip IN OUT  0x23 -> 0xC3 without element bytes; heap record
 *                        (0x0C / 0x1C) lengths reduced accordingly
 *   oracle expect IN     print "size N elems E arrays A"
 *   oracle count IN      print "p23 N c3 M"
 *   oracle objects IN CUT  print "objects N": the instance and array dumps
 *                        (0x21, 0x22, 0x23, 0xC3) that end at or before
 *                        offset CUT and whose class dump does too (for a
 *                        primitive array: whose class is named), in the
 *                        first heap dump of the file: what a viewer shows
 *                        of a prefix of CUT bytes that --salvage closed
 *   oracle flat IN OUT   the records other than heap records and
 *                        HEAP_DUMP_END, then the bodies of all heap records
 *                        (0x0C / 0x1C) concatenated: equal for two dumps
 *                        that differ only in how the heap is cut into
 *                        records (a streamed output and a file's)
 *
 * Any malformed input: one-line message naming the offset, exit 1.
 *
 * Built with -DORACLE_LIB it is a library instead (no main): oracle_walk()
 * in oracle.h runs the same walker over a buffer, for the fuzz targets.
 *
 * C11, libc only.
 */
#ifdef ORACLE_LIB
#include "fuzz/oracle.h"
#include <setjmp.h>
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* errors                                                             */

static const char *g_prog = "oracle";

#ifdef ORACLE_LIB
static jmp_buf g_jmp;          /* where bad() returns to */
static uint64_t g_err_off;
static const char *g_err_what;
#endif

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", g_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void bad(uint64_t off, const char *what)
{
#ifdef ORACLE_LIB
    g_err_off = off;
    g_err_what = what;
    longjmp(g_jmp, 1);
#endif
    die("malformed input at offset %llu: %s", (unsigned long long)off, what);
}

/* ------------------------------------------------------------------ */
/* input cursor                                                       */

static unsigned char *g_buf; /* whole input file */
static uint64_t g_size;      /* its size */
static unsigned g_idsize;    /* 4 or 8 */

/* Fails unless n bytes are available at pos before limit. */
static void need(uint64_t pos, uint64_t n, uint64_t limit, const char *what)
{
    if (pos > limit || n > limit - pos)
        bad(pos, what);
}

static uint64_t rd(uint64_t pos, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = (v << 8) | g_buf[pos + i];
    return v;
}

/* Size of a value of basic type t, or 0 if t is not a valid basic type. */
static unsigned type_size(unsigned t)
{
    switch (t) {
    case 2: return g_idsize;  /* object */
    case 4: return 1;         /* boolean */
    case 5: return 2;         /* char */
    case 6: return 4;         /* float */
    case 7: return 8;         /* double */
    case 8: return 1;         /* byte */
    case 9: return 2;         /* short */
    case 10: return 4;        /* int */
    case 11: return 8;        /* long */
    default: return 0;
    }
}

/* ------------------------------------------------------------------ */
/* output buffer                                                      */

static unsigned char *g_out;
static uint64_t g_outlen, g_outcap;

static void out_bytes(const unsigned char *p, uint64_t n)
{
    if (g_outlen + n > g_outcap) {
        uint64_t cap = g_outcap ? g_outcap : 4096;
        while (cap < g_outlen + n)
            cap *= 2;
        unsigned char *nb = realloc(g_out, (size_t)cap);
        if (!nb)
            die("out of memory");
        g_out = nb;
        g_outcap = cap;
    }
    if (n)
        memcpy(g_out + g_outlen, p, (size_t)n);
    g_outlen += n;
}

static void out_u1(unsigned v)
{
    unsigned char b = (unsigned char)v;
    out_bytes(&b, 1);
}

static void put_u4_at(uint64_t pos, uint32_t v)
{
    g_out[pos + 0] = (unsigned char)(v >> 24);
    g_out[pos + 1] = (unsigned char)(v >> 16);
    g_out[pos + 2] = (unsigned char)(v >> 8);
    g_out[pos + 3] = (unsigned char)v;
}

/* ------------------------------------------------------------------ */
/* statistics / mode                                                  */

enum mode { M_ZERO, M_STRIP, M_EXPECT, M_COUNT, M_OFFSETS, M_FLAT };

/* M_FLAT: the heap record bodies, in order, appended after the walk */
static uint64_t (*g_flat)[2];
static size_t g_nflat, g_capflat;

static void flat_heap(uint64_t body, uint64_t len)
{
    if (g_nflat == g_capflat) {
        g_capflat = g_capflat ? 2 * g_capflat : 64;
        g_flat = realloc(g_flat, g_capflat * sizeof *g_flat);
        if (!g_flat)
            die("out of memory");
    }
    g_flat[g_nflat][0] = body;
    g_flat[g_nflat][1] = len;
    g_nflat++;
}

static enum mode g_mode;
static uint64_t g_elems;  /* element bytes of all 0x23 arrays */
static uint64_t g_n23;    /* number of 0x23 sub-records */
static uint64_t g_nc3;    /* number of 0xC3 sub-records */
static uint64_t g_c3_elems; /* element bytes the 0xC3 sub-records stand for */
static uint64_t g_sub_count[256]; /* heap sub-records by tag */
/* offsets: a byte inside the first of each structure (0: none seen) */
static uint64_t g_at_sub_hdr, g_at_elems, g_at_class_fields, g_hdr_len;
static uint64_t g_at_heap_hdr;     /* inside the first heap record header */
static uint64_t g_first_object_end; /* end of the first instance or
                                       array dump */
static uint64_t g_cut = UINT64_MAX; /* objects: count those ending by here */
static uint64_t g_objects;

/*
 * objects: what a viewer can show of a prefix. VisualVM's heap library
 * counts an instance or an array only when its class is dumped too (a
 * primitive array's class is the one named "[I", "int[]" ...), so an
 * object counts when it and its class dump both end by g_cut. The first
 * walk (g_collect) learns the class dumps' ends and the array classes.
 */
#define CLASS_SLOTS (1u << 20)
static int g_collect;
static uint64_t (*g_class)[2];     /* class id + 1, end of its dump */
static uint64_t g_prim_class[12];  /* primitive array class ids by type */
static uint64_t g_prim_name[12];   /* their name string ids + 1 */

static uint64_t *class_slot(uint64_t id)
{
    uint64_t h = (id * 0x9E3779B97F4A7C15ull) >> 44;

    if (!g_class && !(g_class = calloc(CLASS_SLOTS, sizeof *g_class)))
        die("out of memory");
    while (g_class[h][0] && g_class[h][0] != id + 1)
        h = (h + 1) & (CLASS_SLOTS - 1);
    return g_class[h];
}

static int class_by(uint64_t id)
{
    uint64_t *e = class_slot(id);
    return e[0] && e[1] <= g_cut;
}

static void class_dumped(uint64_t id, uint64_t end)
{
    uint64_t *e = class_slot(id);
    if (!e[0]) {  /* the first dump of it (a file may hold two dumps) */
        e[0] = id + 1;
        e[1] = end;
    }
}

/* a STRING record naming a primitive array class: its type, else 0 */
static unsigned prim_name(const unsigned char *s, uint64_t n)
{
    static const char *const names[12][2] = {
        [4] = { "[Z", "boolean[]" }, [5] = { "[C", "char[]" },
        [6] = { "[F", "float[]" }, [7] = { "[D", "double[]" },
        [8] = { "[B", "byte[]" }, [9] = { "[S", "short[]" },
        [10] = { "[I", "int[]" }, [11] = { "[J", "long[]" } };
    for (unsigned t = 4; t < 12; t++)
        for (unsigned k = 0; k < 2; k++)
            if (strlen(names[t][k]) == n && !memcmp(s, names[t][k], n))
                return t;
    return 0;
}

static int g_dump_ended;  /* a HEAP_DUMP_END came: viewers read one dump */

static void object_done(uint64_t end, uint64_t class_id)
{
    if (!g_collect && !g_dump_ended && end <= g_cut && class_by(class_id))
        g_objects++;
}

/* A primitive array: its class is named (LOAD_CLASS) before the cut, and
 * --salvage completes a class dump the cut left out. */
static void prim_done(uint64_t end, unsigned t)
{
    if (!g_collect && !g_dump_ended && end <= g_cut && t < 12 &&
        g_prim_class[t])
        g_objects++;
}

/* ------------------------------------------------------------------ */
/* heap dump sub-records                                              */

/*
 * Length (after the tag byte) of a sub-record with a fixed layout, or 0 if
 * the tag has a variable layout or is unknown.
 */
static uint64_t fixed_len(unsigned tag)
{
    uint64_t id = g_idsize;
    switch (tag) {
    case 0xFF: return id;             /* ROOT_UNKNOWN */
    case 0x01: return id + id;        /* ROOT_JNI_GLOBAL */
    case 0x02: return id + 4 + 4;     /* ROOT_JNI_LOCAL */
    case 0x03: return id + 4 + 4;     /* ROOT_JAVA_FRAME */
    case 0x04: return id + 4;         /* ROOT_NATIVE_STACK */
    case 0x05: return id;             /* ROOT_STICKY_CLASS */
    case 0x06: return id + 4;         /* ROOT_THREAD_BLOCK */
    case 0x07: return id;             /* ROOT_MONITOR_USED */
    case 0x08: return id + 4 + 4;     /* ROOT_THREAD_OBJECT */
    case 0x89: return id;             /* ROOT_INTERNED_STRING */
    case 0x8A: return id;             /* ROOT_FINALIZING */
    case 0x8B: return id;             /* ROOT_DEBUGGER */
    case 0x8C: return id;             /* ROOT_REFERENCE_CLEANUP */
    case 0x8D: return id;             /* ROOT_VM_INTERNAL */
    case 0x8E: return id + 4 + 4;     /* ROOT_JNI_MONITOR */
    case 0x90: return id;             /* UNREACHABLE */
    case 0xFE: return 4 + id;         /* HEAP_DUMP_INFO */
    case 0xC3: return id + 4 + 4 + 1; /* PRIMITIVE_ARRAY_NODATA */
    default: return 0;
    }
}

/* Length (after the tag byte) of a CLASS_DUMP starting at p (after tag). */
static uint64_t class_dump_len(uint64_t start, uint64_t end)
{
    uint64_t id = g_idsize;
    uint64_t p = start;
    unsigned t, sz;

    /* class, stack serial, super, loader, signers, prot domain,
       2 reserved, instance size */
    need(p, 7 * id + 4 + 4, end, "truncated CLASS_DUMP header");
    p += 7 * id + 4 + 4;

    need(p, 2, end, "truncated CLASS_DUMP constant pool count");
    uint64_t n = rd(p, 2);
    p += 2;
    for (uint64_t i = 0; i < n; i++) {
        need(p, 3, end, "truncated CLASS_DUMP constant pool entry");
        t = (unsigned)rd(p + 2, 1);
        sz = type_size(t);
        if (!sz)
            bad(p + 2, "bad basic type in CLASS_DUMP constant pool");
        p += 3;
        need(p, sz, end, "truncated CLASS_DUMP constant pool value");
        p += sz;
    }

    need(p, 2, end, "truncated CLASS_DUMP static field count");
    n = rd(p, 2);
    p += 2;
    for (uint64_t i = 0; i < n; i++) {
        need(p, id + 1, end, "truncated CLASS_DUMP static field");
        t = (unsigned)rd(p + id, 1);
        sz = type_size(t);
        if (!sz)
            bad(p + id, "bad basic type in CLASS_DUMP static field");
        p += id + 1;
        need(p, sz, end, "truncated CLASS_DUMP static field value");
        p += sz;
    }

    need(p, 2, end, "truncated CLASS_DUMP instance field count");
    n = rd(p, 2);
    p += 2;
    for (uint64_t i = 0; i < n; i++) {
        need(p, id + 1, end, "truncated CLASS_DUMP instance field");
        t = (unsigned)rd(p + id, 1);
        if (!type_size(t))
            bad(p + id, "bad basic type in CLASS_DUMP instance field");
        p += id + 1;
    }
    return p - start;
}

/*
 * Walk the body [start, end) of a HEAP_DUMP / HEAP_DUMP_SEGMENT record.
 * Sub-records must tile the body exactly.  In M_STRIP mode the transformed
 * body is appended to the output; in M_ZERO mode element bytes are zeroed
 * in the output copy (which is the input copied verbatim at offset 0).
 * Returns the number of element bytes in this body.
 */
static uint64_t walk_heap(uint64_t start, uint64_t end)
{
    uint64_t id = g_idsize;
    uint64_t p = start;
    uint64_t removed = 0;

    while (p < end) {
        uint64_t sub = p;             /* offset of the tag byte */
        unsigned tag = g_buf[p];
        uint64_t q = p + 1;           /* after the tag */
        uint64_t len;                 /* length after the tag */

        g_sub_count[tag]++;

        if (tag == 0x20) {
            len = class_dump_len(q, end);
            if (!g_at_class_fields && len > 7 * id + 4 + 4 + 2 + 1)
                g_at_class_fields = q + 7 * id + 4 + 4 + 2 + 1;
        } else if (tag == 0x21) {     /* INSTANCE_DUMP */
            need(q, id + 4 + id + 4, end, "truncated INSTANCE_DUMP header");
            uint64_t n = rd(q + id + 4 + id, 4);
            len = id + 4 + id + 4;
            if (!g_at_sub_hdr)
                g_at_sub_hdr = q + 3;
            need(q + len, n, end, "truncated INSTANCE_DUMP data");
            len += n;
        } else if (tag == 0x22) {     /* OBJ_ARRAY_DUMP */
            need(q, id + 4 + 4 + id, end, "truncated OBJ_ARRAY_DUMP header");
            uint64_t n = rd(q + id + 4, 4);
            len = id + 4 + 4 + id;
            need(q + len, n * id, end, "truncated OBJ_ARRAY_DUMP data");
            len += n * id;
        } else if (tag == 0x23) {     /* PRIMITIVE_ARRAY_DUMP */
            uint64_t hdr = id + 4 + 4 + 1;
            need(q, hdr, end, "truncated PRIMITIVE_ARRAY_DUMP header");
            uint64_t n = rd(q + id + 4, 4);
            unsigned t = (unsigned)rd(q + id + 4 + 4, 1);
            unsigned sz = (t == 2) ? 0 : type_size(t);
            if (!sz)
                bad(q + id + 4 + 4, "bad element type in PRIMITIVE_ARRAY_DUMP");
            uint64_t data = n * sz;
            if (!g_at_elems && data > 2)
                g_at_elems = q + hdr + data / 2;
            need(q + hdr, data, end, "truncated PRIMITIVE_ARRAY_DUMP data");
            len = hdr + data;
            g_n23++;
            prim_done(q + len, t);
            if (!g_first_object_end)
                g_first_object_end = q + len;
            g_elems += data;
            removed += data;
            if (g_mode == M_ZERO) {
                memset(g_out + q + hdr, 0, (size_t)data);
            } else if (g_mode == M_STRIP) {
                out_u1(0xC3);
                out_bytes(g_buf + q, hdr);
            }
            p = q + len;
            continue;
        } else {
            len = fixed_len(tag);
            if (!len)
                bad(sub, "unknown heap dump sub-record tag");
            need(q, len, end, "truncated heap dump sub-record");
            if (tag == 0xC3) {
                unsigned t = (unsigned)rd(q + id + 4 + 4, 1);
                g_nc3++;
                prim_done(q + len, t);
                g_c3_elems += rd(q + id + 4, 4) *
                              type_size((unsigned)rd(q + id + 4 + 4, 1));
            }
        }

        if (!g_first_object_end && (tag == 0x21 || tag == 0x22 || tag == 0xC3))
            g_first_object_end = q + len;
        if (tag == 0x21)
            object_done(q + len, rd(q + id + 4, id));
        else if (tag == 0x22)
            object_done(q + len, rd(q + id + 4 + 4, id));
        else if (tag == 0x20 && g_collect)
            class_dumped(rd(q, id), q + len);
        if (g_mode == M_STRIP)
            out_bytes(g_buf + sub, 1 + len);
        p = q + len;
    }
    return removed;
}

/* ------------------------------------------------------------------ */
/* top level                                                          */

static void walk_file(void)
{
    uint64_t p = 0;

    /* header: NUL-terminated version string, u4 id size, u8 timestamp */
    const unsigned char *nul = memchr(g_buf, 0, (size_t)g_size);
    if (!nul)
        bad(0, "header string not NUL-terminated");
    uint64_t slen = (uint64_t)(nul - g_buf);
    if (!(slen == 18 && memcmp(g_buf, "JAVA PROFILE 1.0.", 17) == 0 &&
          g_buf[17] >= '1' && g_buf[17] <= '3'))
        bad(0, "unrecognised header string");
    p = slen + 1;
    need(p, 4 + 8, g_size, "truncated header");
    uint64_t ids = rd(p, 4);
    if (ids != 4 && ids != 8)
        bad(p, "identifier size is not 4 or 8");
    g_idsize = (unsigned)ids;
    p += 4 + 8;
    g_hdr_len = p;

    if (g_mode == M_STRIP)
        out_bytes(g_buf, p);

    /* records: u1 tag, u4 time, u4 length, body */
    while (p < g_size) {
        uint64_t rec = p;
        need(p, 9, g_size, "truncated record header");
        unsigned tag = g_buf[p];
        uint64_t len = rd(p + 5, 4);
        uint64_t body = p + 9;
        need(body, len, g_size, "record body extends past end of file");
        if (!g_at_heap_hdr && (tag == 0x0C || tag == 0x1C))
            g_at_heap_hdr = rec + 4;
        if (tag == 0x2C && g_cut != UINT64_MAX && !g_collect && rec < g_cut)
            g_dump_ended = 1;
        if (g_collect && tag == 0x01 && len > g_idsize) {
            unsigned t = prim_name(g_buf + body + g_idsize, len - g_idsize);
            if (t)
                g_prim_name[t] = rd(body, g_idsize) + 1;
        }
        if (g_collect && tag == 0x02 && len >= 8 + 2 * (uint64_t)g_idsize)
            for (unsigned t = 4; t < 12; t++)
                if (g_prim_name[t] == rd(body + 8 + g_idsize, g_idsize) + 1)
                    g_prim_class[t] = rd(body + 4, g_idsize);

        if (g_mode == M_FLAT) {
            if (tag == 0x0C || tag == 0x1C) {
                walk_heap(body, body + len);
                flat_heap(body, len);
            } else if (tag != 0x2C) {
                out_bytes(g_buf + rec, 9 + len);
            }
        } else if (tag == 0x0C || tag == 0x1C) {
            uint64_t lenpos = g_outlen + 5;
            if (g_mode == M_STRIP)
                out_bytes(g_buf + rec, 9);
            uint64_t removed = walk_heap(body, body + len);
            if (g_mode == M_STRIP)
                put_u4_at(lenpos, (uint32_t)(len - removed));
        } else if (g_mode == M_STRIP) {
            out_bytes(g_buf + rec, 9 + len);
        }
        p = body + len;
    }
}

#ifndef ORACLE_LIB
static void read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open %s", path);
    size_t cap = 1 << 20, len = 0;
    unsigned char *b = malloc(cap);
    if (!b)
        die("out of memory");
    for (;;) {
        if (len == cap) {
            cap *= 2;
            unsigned char *nb = realloc(b, cap);
            if (!nb)
                die("out of memory");
            b = nb;
        }
        size_t n = fread(b + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(f))
        die("read error on %s", path);
    fclose(f);
    g_buf = b;
    g_size = len;
}

static void write_file(const char *path, const unsigned char *p, uint64_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot create %s", path);
    if (n && fwrite(p, 1, (size_t)n, f) != n)
        die("write error on %s", path);
    if (fclose(f) != 0)
        die("write error on %s", path);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: %s zero IN OUT | strip IN OUT | expect IN | count IN | "
            "offsets IN | flat IN OUT | objects IN CUT\n",
            g_prog);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "zero") == 0 && argc == 4)
        g_mode = M_ZERO;
    else if (strcmp(cmd, "strip") == 0 && argc == 4)
        g_mode = M_STRIP;
    else if (strcmp(cmd, "expect") == 0 && argc == 3)
        g_mode = M_EXPECT;
    else if (strcmp(cmd, "count") == 0 && argc == 3)
        g_mode = M_COUNT;
    else if (strcmp(cmd, "offsets") == 0 && argc == 3)
        g_mode = M_OFFSETS;
    else if (strcmp(cmd, "flat") == 0 && argc == 4)
        g_mode = M_FLAT;
    else if (strcmp(cmd, "objects") == 0 && argc == 4) {
        char *end;
        g_mode = M_COUNT;
        g_cut = strtoull(argv[3], &end, 10);
        if (*end || end == argv[3])
            usage();
    }
    else
        usage();

    read_file(argv[2]);

    if (g_mode == M_ZERO) {
        g_out = malloc(g_size ? (size_t)g_size : 1);
        if (!g_out)
            die("out of memory");
        if (g_size)
            memcpy(g_out, g_buf, (size_t)g_size);
        g_outlen = g_outcap = g_size;
    }

    if (g_cut != UINT64_MAX) {  /* objects: learn the classes first */
        g_collect = 1;
        walk_file();
        g_collect = 0;
        memset(g_sub_count, 0, sizeof g_sub_count);
        g_n23 = g_nc3 = g_elems = g_c3_elems = 0;
    }
    walk_file();

    switch (g_mode) {
    case M_FLAT:
        for (size_t i = 0; i < g_nflat; i++)
            out_bytes(g_buf + g_flat[i][0], g_flat[i][1]);
        /* fall through */
    case M_ZERO:
    case M_STRIP:
        write_file(argv[3], g_out, g_outlen);
        break;
    case M_EXPECT:
        printf("size %llu elems %llu arrays %llu\n",
               (unsigned long long)(g_size - g_elems),
               (unsigned long long)g_elems, (unsigned long long)g_n23);
        break;
    case M_COUNT:
        if (g_cut != UINT64_MAX)
            printf("objects %llu\n", (unsigned long long)g_objects);
        else
            printf("p23 %llu c3 %llu\n", (unsigned long long)g_n23,
                   (unsigned long long)g_nc3);
        break;
    case M_OFFSETS:
        /* a byte inside the header, the first record header, the first
         * instance header, the first array's elements, the first class
         * dump's field table, the first heap record header: where
         * truncation tests cut; and where the first instance or array
         * dump ends: --salvage keeps nothing before */
        printf("header 10\nrecord-header %llu\nsub-header %llu\n"
               "elements %llu\nclass-fields %llu\nheap-record-header %llu\n"
               "first-object-end %llu\n",
               (unsigned long long)(g_hdr_len + 4),
               (unsigned long long)g_at_sub_hdr,
               (unsigned long long)g_at_elems,
               (unsigned long long)g_at_class_fields,
               (unsigned long long)g_at_heap_hdr,
               (unsigned long long)g_first_object_end);
        break;
    }
    free(g_buf);
    free(g_out);
    return 0;
}
#endif /* !ORACLE_LIB */

#ifdef ORACLE_LIB
int oracle_walk(enum oracle_mode mode, const void *in, size_t len,
                struct oracle_result *r)
{
    free(g_out);
    g_out = NULL;
    g_outlen = g_outcap = 0;
    g_buf = (unsigned char *)(uintptr_t)in; /* only read */
    g_size = len;
    g_idsize = 0;
    g_elems = g_n23 = g_nc3 = g_c3_elems = 0;
    memset(g_sub_count, 0, sizeof g_sub_count);
    g_at_sub_hdr = g_at_elems = g_at_class_fields = g_hdr_len = 0;
    g_mode = mode == ORACLE_ZERO ? M_ZERO
           : mode == ORACLE_STRIP ? M_STRIP : M_COUNT;
    if (g_mode == M_ZERO) {
        g_out = malloc(len ? len : 1);
        if (!g_out)
            die("out of memory");
        if (len)
            memcpy(g_out, in, len);
        g_outlen = g_outcap = len;
    }
    memset(r, 0, sizeof *r);
    if (setjmp(g_jmp) == 0) {
        walk_file();
        r->ok = 1;
    } else {
        r->err_off = g_err_off;
        r->err = g_err_what;
    }
    r->idsize = g_idsize;
    r->hdr_len = g_hdr_len;
    r->n23 = g_n23;
    r->nc3 = g_nc3;
    r->elems = g_elems;
    r->c3_elems = g_c3_elems;
    memcpy(r->sub_count, g_sub_count, sizeof r->sub_count);
    r->out = g_out;
    r->out_len = (size_t)g_outlen;
    g_buf = NULL;
    return r->ok ? 0 : -1;
}
#endif
