/*
 * oracle.c - independent, deliberately simple reference implementation of
 * HPROF primitive-array stripping, used as a test oracle.
 *
 * It reads the whole input into memory and walks it with the test side's
 * bounds-checked walker (walk.h).  No streaming, no state machine.
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
 * in oracle.h runs the same walk over a buffer, for the fuzz targets.
 *
 * C11, libc only; with tests/walk.c, nothing from strip/.
 */
#ifdef ORACLE_LIB
#include "fuzz/oracle.h"
#include <setjmp.h>
#endif
#include "walk.h"

#include <errno.h>
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

static struct walk g_w;      /* the walk over the input */

/* The walk found a problem: its offset, in the walker's words. */
static void bad(void)
{
    uint64_t off = g_w.err_at;
    const char *what = walk_strerror(g_w.err);
#ifdef ORACLE_LIB
    g_err_off = off;
    g_err_what = what;
    longjmp(g_jmp, 1);
#endif
    die("malformed input at offset %llu: %s", (unsigned long long)off, what);
}

/* ------------------------------------------------------------------ */
/* input and output                                                   */

static const unsigned char *g_buf; /* whole input file */
static uint64_t g_size;      /* its size */
static unsigned g_idsize;    /* 4 or 8 */

static void oom(void)
{
    die("out of memory");
}

static struct walk_out g_out = { NULL, 0, 0, oom };

static void put_u4_at(uint64_t pos, uint32_t v)
{
    g_out.b[pos + 0] = (unsigned char)(v >> 24);
    g_out.b[pos + 1] = (unsigned char)(v >> 16);
    g_out.b[pos + 2] = (unsigned char)(v >> 8);
    g_out.b[pos + 3] = (unsigned char)v;
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
 * Walk the body [start, end) of a HEAP_DUMP / HEAP_DUMP_SEGMENT record.
 * Sub-records must tile the body exactly.  In M_STRIP mode the transformed
 * body is appended to the output; in M_ZERO mode element bytes are zeroed
 * in the output copy (which is the input copied verbatim at offset 0).
 * Returns the number of element bytes in this body.
 */
static uint64_t walk_heap(uint64_t start, uint64_t end)
{
    uint64_t id = g_idsize;
    uint64_t removed = 0;
    uint64_t p;
    struct walk_sub s;
    int rc;

    for (p = start; (rc = walk_sub(&g_w, p, end, &s)) > 0; p = s.end) {
        uint64_t q = s.off + 1;       /* after the tag */

        g_sub_count[s.tag]++;
        if (s.tag == 0x23) {          /* PRIMITIVE_ARRAY_DUMP */
            uint64_t hdr = s.data - q;
            uint64_t data = s.end - s.data;
            if (!g_at_elems && data > 2)
                g_at_elems = s.data + data / 2;
            g_n23++;
            prim_done(s.end, s.type);
            if (!g_first_object_end)
                g_first_object_end = s.end;
            g_elems += data;
            removed += data;
            if (g_mode == M_ZERO) {
                memset(g_out.b + s.data, 0, (size_t)data);
            } else if (g_mode == M_STRIP) {
                walk_put_be(&g_out, 0xC3, 1);
                walk_put(&g_out, g_buf + q, hdr);
            }
            continue;
        }
        if (s.tag == 0x20 && !g_at_class_fields &&
            s.end - q > 7 * id + 4 + 4 + 2 + 1)
            g_at_class_fields = q + 7 * id + 4 + 4 + 2 + 1;
        if (s.tag == 0x21 && !g_at_sub_hdr)
            g_at_sub_hdr = q + 3;
        if (s.tag == 0xC3) {
            g_nc3++;
            prim_done(s.end, s.type);
            g_c3_elems += s.count * (uint64_t)walk_type_size(&g_w, s.type);
        }
        if (!g_first_object_end &&
            (s.tag == 0x21 || s.tag == 0x22 || s.tag == 0xC3))
            g_first_object_end = s.end;
        if (s.tag == 0x21 || s.tag == 0x22)
            object_done(s.end, s.cls);
        else if (s.tag == 0x20 && g_collect)
            class_dumped(s.id, s.end);
        if (g_mode == M_STRIP)
            walk_put(&g_out, g_buf + s.off, s.end - s.off);
    }
    if (rc < 0) {
        g_sub_count[g_buf[p]]++;      /* counted, as far as it came */
        bad();
    }
    return removed;
}

/* ------------------------------------------------------------------ */
/* top level                                                          */

static void walk_file(void)
{
    struct walk_rec r;
    uint64_t p;
    int rc;

    if (walk_header(&g_w, g_buf, g_size, 0))
        bad();
    g_idsize = g_w.idsize;
    g_hdr_len = g_w.first;

    if (g_mode == M_STRIP)
        walk_put(&g_out, g_buf, g_hdr_len);

    /* records: u1 tag, u4 time, u4 length, body */
    for (p = g_hdr_len; (rc = walk_record(&g_w, p, &r)) > 0; p = r.end) {
        unsigned tag = r.tag;
        uint64_t body = r.body, len = r.len;
        if (!g_at_heap_hdr && walk_heap_tag(tag))
            g_at_heap_hdr = r.off + 4;
        if (tag == 0x2C && g_cut != UINT64_MAX && !g_collect && r.off < g_cut)
            g_dump_ended = 1;
        if (g_collect && tag == 0x01 && len > g_idsize) {
            unsigned t = prim_name(g_buf + body + g_idsize, len - g_idsize);
            if (t)
                g_prim_name[t] = walk_id(&g_w, body) + 1;
        }
        if (g_collect && tag == 0x02 && len >= 8 + 2 * (uint64_t)g_idsize)
            for (unsigned t = 4; t < 12; t++)
                if (g_prim_name[t] == walk_id(&g_w, body + 8 + g_idsize) + 1)
                    g_prim_class[t] = walk_id(&g_w, body + 4);

        if (g_mode == M_FLAT) {
            if (walk_heap_tag(tag)) {
                walk_heap(body, r.end);
                flat_heap(body, len);
            } else if (tag != 0x2C) {
                walk_put(&g_out, g_buf + r.off, 9 + len);
            }
        } else if (walk_heap_tag(tag)) {
            uint64_t lenpos = g_out.len + 5;
            if (g_mode == M_STRIP)
                walk_put(&g_out, g_buf + r.off, 9);
            uint64_t removed = walk_heap(body, r.end);
            if (g_mode == M_STRIP)
                put_u4_at(lenpos, (uint32_t)(len - removed));
        } else if (g_mode == M_STRIP) {
            walk_put(&g_out, g_buf + r.off, 9 + len);
        }
    }
    if (rc < 0)
        bad();
}

#ifndef ORACLE_LIB
static struct walk_file g_file;

static void read_file(const char *path)
{
    int rc = walk_load(&g_file, path);

    if (rc == -1)
        die("cannot open %s", path);
    if (rc && errno == ENOMEM)
        die("out of memory");
    if (rc)
        die("read error on %s", path);
    g_buf = g_file.b;
    g_size = g_file.size;
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

    if (g_mode == M_ZERO)
        walk_put(&g_out, g_buf, (size_t)g_size);

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
            walk_put(&g_out, g_buf + g_flat[i][0], g_flat[i][1]);
        /* fall through */
    case M_ZERO:
    case M_STRIP:
        write_file(argv[3], g_out.b, g_out.len);
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
    walk_unload(&g_file);
    free(g_out.b);
    return 0;
}
#endif /* !ORACLE_LIB */

#ifdef ORACLE_LIB
int oracle_walk(enum oracle_mode mode, const void *in, size_t len,
                struct oracle_result *r)
{
    free(g_out.b);
    g_out.b = NULL;
    g_out.len = g_out.cap = 0;
    g_buf = in;
    g_size = len;
    g_idsize = 0;
    g_elems = g_n23 = g_nc3 = g_c3_elems = 0;
    memset(g_sub_count, 0, sizeof g_sub_count);
    g_at_sub_hdr = g_at_elems = g_at_class_fields = g_hdr_len = 0;
    g_mode = mode == ORACLE_ZERO ? M_ZERO
           : mode == ORACLE_STRIP ? M_STRIP : M_COUNT;
    if (g_mode == M_ZERO)
        walk_put(&g_out, in, len);
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
    r->out = g_out.b;
    r->out_len = g_out.len;
    g_buf = NULL;
    return r->ok ? 0 : -1;
}
#endif
