#!/usr/bin/env python3
"""make mutants: deliberate one-line bugs, each of which some test must catch.

For each mutant: copy the tracked tree into a scratch directory (with
../shared beside it, so the corpus is found), replace one exact piece of
text in one file (it must occur exactly once, and the tree must build: a
mutant that does not apply is an error, not a pass), build, and run the
whole test files of its area (AREAS: by the mutated file, plus any the
mutant names): every Bats file there, and the engine's split checks for
the engine. The mutant is caught when any of them fails; they run
cheapest first (as timed on the unmutated tree), and the run stops at the
first failing test. Before any mutant, every file of every area in play
runs whole on the unmutated tree: all must pass, or the run is void.
Prints one line per mutant and 'N caught, M survived' (exit 1 if any
survived or did not apply).

    tests/mutants.py [NAME-SUBSTRING...]     only the matching mutants

A development tool, not part of make check: it takes hours (each area's
files run until one fails; a survivor runs them all).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# ---- what runs ----------------------------------------------------------------
# A test is a Bats file's name (bats/NAME.bats, run whole) or a named
# command, run from the scratch tree with BUILD set.

def sh(name, script):
    """A named test: SCRIPT run by sh -c (from the scratch tree, BUILD set)."""
    return (name, ["sh", "-c", script])


# the engine's split invariance over every corpus dump, short
UNIT_ALL = sh("splitcheck: every corpus dump", """
    for f in ../shared/corpus/*/*.hprof; do
        "$BUILD/splitcheck" -p 32 -n 2 -s 1 "$f" || exit 1
    done""")

UNIT_JDK8 = sh("splitcheck: JDK 8, plain and -O", """
    f=../shared/corpus/hotspot/jdk8-u05-x64.hprof
    "$BUILD/splitcheck" -p 64 -n 4 -s 1 "$f" &&
        "$BUILD/splitcheck" -O -p 16 -n 2 -s 1 "$f"
    """)

# keep strings streamed from a pipe: no array kept that is not a String's
KEEP_PIPE = sh("strcheck: keep-strings from a pipe", """
    for f in ../shared/corpus/*/*.hprof; do
        cat "$f" | "$BUILD/hprofstrip" --keep-strings >k.hprof &&
            "$BUILD/strcheck" "$f" k.hprof >/dev/null || exit 1
    done
    rm -f k.hprof""")

# --stream: split invariance of a restore, which passes long runs
STREAM_RESTORE = sh("splitcheck: a streamed restore", """
    f=../shared/corpus/hotspot/jdk8-u05-x64.hprof
    "$BUILD/hprofstrip" -o s.hprof "$f" &&
        "$BUILD/splitcheck" -S -r -p 64 -n 4 -s 1 s.hprof
    r=$?; rm -f s.hprof; exit $r""")

# --salvage of every corpus dump cut at 97%, split-invariant
SALVAGE_SPLIT = sh("splitcheck: --salvage at 97%", """
    for f in ../shared/corpus/*/*.hprof; do
        s=$(stat -c %s "$f")
        "$BUILD/splitcheck" -V -c $((s * 97 / 100)) -p 8 -n 1 -s 1 "$f" \
            >/dev/null || exit 1
    done""")

# redaction: the independent redactcheck on every corpus dump, at both
# levels (a fixed key), split invariance with -R and -N, and a fallback
# under -R (its record's rest zeros)
REDACT_CHECK = sh("redactcheck: every corpus dump, values and names", """
    export HPROFSTRIP_NAMES_KEY=0123456789abcdef0123456789abcdef
    for f in ../shared/corpus/*/*.hprof; do
        "$BUILD/hprofstrip" --redact -o r.hprof "$f" &&
            "$BUILD/redactcheck" "$f" r.hprof >/dev/null &&
            "$BUILD/hprofstrip" --redact=names -o n.hprof "$f" &&
            "$BUILD/redactcheck" --names n.hprof.names "$f" n.hprof >/dev/null &&
            "$BUILD/splitcheck" -R -p 16 -n 2 -s 1 "$f" >/dev/null &&
            "$BUILD/splitcheck" -N -p 16 -n 2 -s 1 "$f" >/dev/null || exit 1
    done
    f=../shared/corpus/hotspot/jdk8-u05-x64.hprof
    o=$(( $("$BUILD/oracle" offsets "$f" | sed -n "s/^sub-header //p") - 4 ))
    "$BUILD/splitcheck" -R -F $o -p 16 -n 2 -s 1 "$f" >/dev/null
    r=$?; rm -f r.hprof n.hprof n.hprof.names; exit $r""")

# the histogram's text the same at every cut, over every corpus dump
HISTO_SPLIT = sh("splitcheck -H: the histogram at every cut", """
    for f in ../shared/corpus/*/*.hprof; do
        "$BUILD/splitcheck" -H -p 32 -n 2 -s 1 "$f" >/dev/null || exit 1
    done""")

# keep bitmaps: split invariance over every corpus dump (Dalvik's hold
# Bitmap.mBuffer arrays), alone and with strings, streamed; and the
# Dalvik dump's 26 mBuffer arrays kept from a file, 19 from a pipe (its
# order: 7 come before their Bitmap), as hprofstrip -v counts them (the
# pictures' bytes are judged by VisualVM in bats/bitmaps.bats)
BITMAP_SPLIT = sh("splitcheck -b: keep bitmaps at every cut; Dalvik's kept", """
    for f in ../shared/corpus/*/*.hprof; do
        "$BUILD/splitcheck" -b -p 32 -n 2 -s 1 "$f" >/dev/null &&
            "$BUILD/splitcheck" -b -k -S -p 16 -n 1 -s 1 "$f" >/dev/null ||
            exit 1
    done
    f=../shared/corpus/art/dalvik-api19-leak-service-binder.hprof
    "$BUILD/hprofstrip" -v --keep-bitmaps -o b.hprof "$f" 2>&1 |
        grep -q "26 arrays kept (309448 element bytes)" &&
        cat "$f" | "$BUILD/hprofstrip" -v --keep-bitmaps 2>&1 >b.hprof |
        grep -q "19 arrays kept (236744 element bytes)"
    r=$?; rm -f b.hprof; exit $r""")

# the engine's hold-back clamp (tests/holdtest.c)
HOLD = sh("holdtest", '"$BUILD/holdtest"')
MAPTEST = sh("maptest", '"$BUILD/maptest"')

# the layers' memory from the caller, checked by hs_init (tests/memtest.c)
MEM = ("memtest", ["sh", "-c", '"$BUILD/memtest"'])

# more than 1 MiB of dense value instances in one heap record
# (tests/dense-dump), redacted in one piece: offline (splitcheck -w) and
# under the shim in JDK 8's 8 MiB writes; redactcheck judges both
DENSE = sh("dense: redaction fed in one piece, offline and shim", """
    tests/dense-dump d.hprof && tests/dense-dump --jdk8 d8.hprof &&
        "$BUILD/splitcheck" -R -w d.hprof w.hprof &&
        "$BUILD/redactcheck" d.hprof w.hprof >/dev/null && rm -f s.hprof &&
        HPROFSTRIP_REDACT=values LD_PRELOAD="$BUILD/libhprofstrip.so" \
            "$BUILD/replay" jdk8 d8.hprof s.hprof 2>/dev/null &&
        "$BUILD/redactcheck" d8.hprof s.hprof >/dev/null
    r=$?; rm -f d.hprof d8.hprof w.hprof s.hprof; exit $r""")

# the shim's policy as plain C
POLICY = sh("policytest", '"$BUILD/policytest"')
# the libc layer's lookups, built as the shim is (optimized, no sanitizer)
LIBCRACE = sh("libcrace", 'make -s BUILD="$BUILD" "$BUILD/libcrace" && "$BUILD/libcrace"')

# the shim and tests/shimrace.c under ThreadSanitizer (issue 27): named
# by the mutants of the shim's synchronization only (a minute or two)
TSAN = sh("check-tsan: the shim under ThreadSanitizer",
         'make -s BUILD="$BUILD" check-tsan')

SHIM = ["shim", "dumps", "own-dumps", "shim-robust", "handover", "faults",
        "shim-compress", "redact-closed"]
TOOLS = ["output", "cli", "same-file", "badinput"]

# the engine's core touches at most one mode a function (issue 28)
ENGINE_MODES = ("engine-modes: one mode a core function", ["sh", "-c",
                'tests/engine-modes.py >/dev/null'])

# the engine's tests, for each of its files
ENGINE = [ENGINE_MODES, HOLD, MEM, HISTO_SPLIT, DENSE, UNIT_ALL, UNIT_JDK8, KEEP_PIPE, STREAM_RESTORE, SALVAGE_SPLIT,
          REDACT_CHECK, "strip", "stream", "strings", "salvage", "apponly",
          "restore-jvm", "shim", "dumps", "redact"]

# the tests of each mutated file: its own suites, and those that run it
AREAS = {
    "strip/engine/engine.c": ENGINE,
    "strip/engine/record.c": ENGINE,
    "strip/engine/emit.c": ENGINE,
    "strip/engine/format.c": ENGINE,
    "strip/engine/rewrite.c": ENGINE,
    "strip/engine/keep.c": ENGINE,
    "strip/engine/hold.c": ENGINE,
    "strip/engine/segment.c": ENGINE,
    "strip/engine/sweep.c": ENGINE,
    "strip/engine/salvage.c": ENGINE,
    "strip/engine/redact.c": ENGINE,
    "strip/engine/exempt.c": ENGINE,
    "strip/engine/names.c": ENGINE,
    "strip/engine/android.c": ENGINE,
    "strip/engine/bitmap.c": [ENGINE_MODES, MEM, BITMAP_SPLIT, "bitmaps"],
    "strip/engine/claims.c": ENGINE + [BITMAP_SPLIT, "bitmaps"],
    "strip/engine/histo.c": [ENGINE_MODES, MEM, HISTO_SPLIT, "histo",
                             "histo-judge", "shim-histo"],
    "strip/engine/internal.h": ENGINE,
    "strip/io/namesmap.c": [MAPTEST, REDACT_CHECK, "redact"],
    "strip/cli/out.c": TOOLS,
    "strip/cli/cli.c": TOOLS,
    "strip/cli/counts.c": TOOLS + ["histo", "info"],
    "strip/cli/notes.c": TOOLS + ["strings", "bitmaps", "redact", "salvage"],
    "strip/cli/args.c": TOOLS + ["redact", "info", "histo"],
    "strip/cli/names.c": TOOLS + [REDACT_CHECK, "redact"],
    "strip/io/outbuf.c": ["faults", "output"],
    "strip/cli/decomp.c": ["compressed-input"],
    "strip/cli/keepset.c": ["strings", "compressed-input", "bitmaps"],
    "strip/cli/histo.c": ["histo"],
    "strip/cli/histoload.c": ["histo"],
    "preload/pipe.c": ["shim-compress", "handover"],
    "preload/refuse.c": SHIM,
    "preload/libc.c": [LIBCRACE] + SHIM + ["redact"],
    "preload/fdtable.c": SHIM,
    "preload/opens.c": SHIM,
    "preload/fdstate.h": SHIM,
    "preload/session.c": SHIM + ["redact"],
    "preload/feed.c": SHIM + ["redact"],
    "preload/tables.c": SHIM + ["redact"],
    "preload/rawdump.c": SHIM + ["redact", "gzip-dumps"],
    "preload/summary.c": SHIM + ["redact"],
    "preload/calls.c": SHIM,
    "preload/api.c": SHIM,
    "preload/policy.c": [POLICY] + SHIM,
    "strip/io/levels.h": [POLICY, "redact", "install"],
    "strip/io/escape.h": ["cli", "shim"],
    "preload/say.c": SHIM,
    "preload/wrappers.c": SHIM,
    "preload/hprofstrip-run.c": ["install", "own-dumps"],
    "preload/histofile.c": ["shim-histo"],
    # issue 29: the histogram's names, judged by VisualVM and jmap
    # (bats/histo-judge.bats; histo.c's mutants name it too)
    "strip/io/histotext.c": ["histo", "histo-judge", "shim-histo"],
    # issue 30: the judge of kept bitmaps (HeapJudge bitmaps), whose own
    # failures bats/bitmaps.bats shows
    "tests/java/HeapJudge.java": ["bitmaps"],
}

# a file's run is cut off (and the mutant caught, as hung) after this many
# times its unmutated time, plus a minute
HANG_FACTOR = 4

MUTANTS = [
    # ---- caught before issue 8 -------------------------------------------
    ("engine: element size of double is wrong", "strip/engine/format.c",
     "\tcase 7: case 11: return 8;   /* double, long */",
     "\tcase 7: case 11: return 4;   /* double, long */"),
    ("engine: a length is patched only when it shrinks", "strip/engine/record.c",
     "\tif (out_len == hs_be32(st->rec_hdr + 5))\n\t\treturn 0;",
     "\tif (out_len >= hs_be32(st->rec_hdr + 5))\n\t\treturn 0;"),
    ("engine: a class dump's field count is byte-swapped when cut across feeds",
     "strip/engine/engine.c",
     "\t\tst->count = (unsigned)h[0] << 8 | h[1];",
     "\t\tst->count = h == st->scratch ? (unsigned)h[1] << 8 | h[0]\n"
     "\t\t                             : (unsigned)h[0] << 8 | h[1];"),
    ("engine: the scratch guard in the class-dump step is dropped",
     "strip/engine/engine.c",
     "\tif (st->have == 0 && n > rec_left(st)) {",
     "\tif (n > rec_left(st)) {"),
    ("engine: 0xC4 is emitted instead of 0xC3", "strip/engine/engine.c",
     "\tunsigned char t = HS_SUB_PRIMITIVE_ARRAY_NODATA;\n\n"
     "\tif (bytes > rec_left(st)) {",
     "\tunsigned char t = 0xC4;\n\n\tif (bytes > rec_left(st)) {"),
    ("engine: --app-only keeps stripped arrays in heap Z", "strip/engine/internal.h",
     "\t       tag == HS_SUB_PRIMITIVE_ARRAY_DUMP ||\n"
     "\t       tag == HS_SUB_PRIMITIVE_ARRAY_NODATA;",
     "\t       tag == HS_SUB_PRIMITIVE_ARRAY_DUMP;"),
    ("engine: --jvm keeps 0x8E's trailing bytes", "strip/engine/engine.c",
     "\t\t\teng_emit(st, h + 1, id);\n\t\t}\n\t\tst->phase = PH_SUB_END;",
     "\t\t\teng_emit(st, h + 1, n - 1);\n\t\t}\n\t\tst->phase = PH_SUB_END;"),
    ("outbuf: a short write is taken as complete", "strip/io/outbuf.c",
     "\t\tp += n;\n\t\tlen -= (size_t)n;\n\t\toff += (uint64_t)n;",
     "\t\tp += n;\n\t\tlen -= (size_t)n;\n\t\toff += (uint64_t)n;\n\t\tbreak;"),
    ("engine: the JDK 8 patch range is off by one", "strip/engine/rewrite.c",
     "in_off >= lo && in_off + len <= lo + 4)",
     "in_off >= lo && in_off + len <= lo + 3)"),
    ("shim: trunc_at_end is never set", "preload/opens.c",
     "\t\ts->trunc_at_end = sb.st_size > 0;",
     "\t\ts->trunc_at_end = 0;"),
    # ---- survived before issue 8 -----------------------------------------
    ("shim: a write no longer restores errno", "preload/calls.c",
     "\terrno = e ? e : saved;\n\tc->ret = e ? -1 : (int64_t)total;",
     "\tif (e)\n"
     "\t\terrno = e;\n"
     "\t(void)saved;\n"
     "\tc->ret = e ? -1 : (int64_t)total;"),
    ("shim: a writev flushes after each vector, not once", "preload/calls.c",
     "\t\te = session_put(s, fd, b + k, n - k, pos);",
     "\t\te = session_feed(s, fd, b + k, n - k, pos);"),
    ("shim: a static table of sessions sits in every process's .bss",
     "preload/fdtable.c",
     "struct session *table_pool[MAX_SESSIONS];",
     "struct session *table_pool[MAX_SESSIONS];\n"
     "static struct session spare[MAX_SESSIONS] __attribute__((used));"),
    ("shim: ART's ftruncate(fd, 0) erase is ignored", "preload/calls.c",
     "\t\tr = hst.ftruncate(fd, 0);\n"
     "\t\tif (r == 0)\n"
     "\t\t\tsession_restart(s);",
     "\t\tr = 0;\n\t\tif (r == 1)\n\t\t\tsession_restart(s);"),
    ("shim: JDK 22 .pN segments take the wrong id size", "preload/opens.c",
     "\tunsigned i, idsize = (unsigned)sizeof(void *);",
     "\tunsigned i, idsize = 4;"),
    ("shim: JDK 22 .pN segments are not tracked", "preload/policy.c",
     "\tif (prefix_of(path, policy_numbered_base(path, \"p\"), base, size) &&",
     "\tif (0 && prefix_of(path, policy_numbered_base(path, \"p\"), base, size) &&"),
    ("engine: a rewrite after a fallback is dropped",
     "strip/engine/record.c",
     "\tif (st->fallback && in_off >= st->fb_in && !lay_zeros_copy(st))",
     "\tif (0 && st->fallback && in_off >= st->fb_in)"),
    ("outbuf: the output's base offset is ignored", "strip/io/outbuf.c",
     "buf, len, o->base + off);",
     "buf, len, off);"),
    ("engine: --app-only keeps heap I", "strip/engine/android.c",
     "\treturn heap == HS_HEAP_ZYGOTE || heap == HS_HEAP_IMAGE;",
     "\treturn heap == HS_HEAP_ZYGOTE;"),
    # ---- issue 10's own ----------------------------------------------------
    ("engine: keep strings without the hold-back", "strip/engine/hold.c",
     "\tif (!st->mode.keep_streams || !st->mode.keep_strings ||",
     "\tif (1 || !st->mode.keep_streams || !st->mode.keep_strings ||"),
    ("engine: ART's next-array rule for any dump", "strip/engine/keep.c",
     "\t\telse if (st->version == '3')\n\t\t\tst->ks.expect = 2;",
     "\t\telse if (1)\n\t\t\tst->ks.expect = 2;"),
    ("engine: a name's later ids overwrite its first", "strip/engine/keep.c",
     "\t\tif (!st->ks.names[which][i] || st->ks.names[which][i] == id) {",
     "\t\tif (1) {"),
    ("tools: --keep-strings from stdin reads from offset 0", "strip/cli/keepset.c",
     "\toff_t start = lseek(fd, 0, SEEK_CUR);  /* stdin may not be at 0 */",
     "\toff_t start = 0 * lseek(fd, 0, SEEK_CUR);"),
    # ---- issue 20's own: the fast path ---------------------------------------
    ("engine: the fast path counts no objects", "strip/engine/sweep.c",
     "\t\tst->objects += *p == HS_SUB_INSTANCE_DUMP ||",
     "\t\tst->objects += 0 * *p == HS_SUB_INSTANCE_DUMP ||"),
    ("engine: the fast path closes no segment",
     "strip/engine/segment.c",
     "\treturn v >= HS_SEGMENT_SOFT || (u->out && v + u->out > HS_STREAM_BUF);",
     "\treturn 0 && (v >= HS_SEGMENT_SOFT || (u->out && v + u->out > HS_STREAM_BUF));"),
    # (taking the String check out of keep_looks is an equivalent mutant:
    # thread_ref_of never runs on String, whose ref stays unknown, -2)
    ("engine: keep-strings lets the fast path pass behind a held array",
     "strip/engine/keep.c",
     "\tif (st->ks.held_need || *p == HS_SUB_PRIMITIVE_ARRAY_DUMP)",
     "\tif (*p == HS_SUB_PRIMITIVE_ARRAY_DUMP)"),
    ("engine: keep-strings lets the fast path take Threads",
     "strip/engine/keep.c",
     "\treturn e->ref != -1;\n}",
     "\treturn 0;\n}"),
    ("engine: the fast path's census loses a sub-record's body",
     "strip/engine/sweep.c",
     "\t\t\tcen->sub_bytes[*p] += u.n + u.len;",
     "\t\t\tcen->sub_bytes[*p] += u.n;"),
    # ---- issue 11's own ----------------------------------------------------
    ("engine: a segment's fill is judged before the run is flushed",
     "strip/engine/segment.c",
     "\teng_flush(st, c);  /* what the segment holds must not depend on cuts */",
     "\t(void)c;"),
    ("tools: a pipe is not streamed", "strip/cli/cli.c",
     "\tif (a->stream || o.kind == OUT_STREAM) {",
     "\tif (a->stream) {"),
    ("shim: a compressor's exit status is not looked at", "preload/pipe.c",
     "\telse if (WEXITSTATUS(status))\n"
     "\t\tsnprintf(msg, size, \"%s exited with status %d\",",
     "\telse if (0)\n\t\tsnprintf(msg, size, \"%s exited with status %d\","),
    ("shim: the compressor is not waited for", "preload/pipe.c",
     "\tgone = reap(p, &status, unlock);",
     "\tgone = (status = 0) + (unlock != NULL) * 0;"),
    ("shim: the compressor inherits ignored signals", "preload/pipe.c",
     "\t\trc = posix_spawnattr_setsigdefault(&at, &all);",
     "\t\trc = posix_spawnattr_setsigdefault(&at, &none);"),
    ("shim: the compressor inherits the runtime's fds", "preload/pipe.c",
     "\tif (!rc && closefrom)\n",
     "\tif (0 && closefrom)\n"),
    ("shim: the plain copy is removed though the compressor failed",
     "preload/feed.c",
     "\tif (pipe_finish(p, why, sizeof why, &s->lock)) {",
     "\tif (pipe_finish(p, why, sizeof why, &s->lock) && 0) {"),
    ("engine: --salvage keeps the bytes of the cut sub-record",
     "strip/engine/segment.c",
     "\treturn st->sub_out;\n}",
     "\treturn UINT64_MAX;\n}"),
    ("engine: --salvage leaves out the array classes the cut dropped",
     "strip/engine/salvage.c",
     "\tif (!complete_classes(st, c, 1) && !lay_holds(st) &&",
     "\tif (!0 && !lay_holds(st) &&"),
    # ---- issue 8's own -----------------------------------------------------
    ("shim: numbered dumps (<path>.<digits>) are not dumps",
     "preload/policy.c",
     "\treturn prefix_of(path, policy_numbered_base(path, \"\"), base,",
     "\treturn 0 && prefix_of(path, policy_numbered_base(path, \"\"), base,"),
    ("shim: every process sniffs, not only a runtime's", "preload/policy.c",
     "\tif (!dl_iterate_phdr(runtime_lib, NULL))\n\t\treturn 0;",
     "\tif (0 && !dl_iterate_phdr(runtime_lib, NULL))\n\t\treturn 0;"),
    ("shim: ART's libart.so does not count as a runtime", "preload/policy.c",
     "\treturn !strcmp(b, \"libjvm.so\") || !strcmp(b, \"libart.so\");",
     "\treturn !strcmp(b, \"libjvm.so\");"),
    ("shim: files this process creates are never sniffed", "preload/opens.c",
     "\t\tset_fd_state(fd, writes && (flags & (O_CREAT | O_TRUNC))",
     "\t\tset_fd_state(fd, 0 && writes && (flags & (O_CREAT | O_TRUNC))"),
    ("shim: the tools' request to stand aside is ignored",
     "preload/wrappers.c",
     "\treturn !setup() || busy || __atomic_load_n(&standaside, __ATOMIC_RELAXED);",
     "\treturn !setup() || busy;"),
    ("shim: no guard against calls from below the shim", "preload/wrappers.c",
     "\t\tbusy = 1;                         \\",
     "\t\tbusy = 0;                         \\"),
    ("shim: a file with content opened without O_TRUNC is tracked",
     "preload/opens.c",
     "\t    (!(flags & O_TRUNC) && sb.st_size > 0))\n\t\tgoto out;",
     "\t    0)\n\t\tgoto out;"),
    ("shim: ftruncate(fd, 0) does not restart the dump", "preload/calls.c",
     "\t\tif (r == 0)\n\t\t\tsession_restart(s);",
     "\t\tif (r == 0)\n\t\t\ts->voff = s->voff;"),
    ("shim: a write past the end feeds no zeros", "preload/feed.c",
     "\tif (at > s->st.in_off)\n\t\tgap(s, at);\n",
     ""),
    ("engine: a rewrite of the header is dropped", "strip/engine/rewrite.c",
     "\tif (in_off + len <= same)\n"
     "\t\treturn rewrite_out(st, in_off, buf, len);",
     "\tif (0 && in_off + len <= same)\n"
     "\t\treturn rewrite_out(st, in_off, buf, len);"),
    # ---- issue 13's own ------------------------------------------------------
    ("engine: app-only strip writes every heap record's header",
     "strip/engine/android.c",
     "\tst->info_len = 0;\n\treturn 1;",
     "\tst->info_len = 0;\n\treturn st->mode.convert;"),
    ("engine: app-only strip never writes a waiting HEAP_DUMP_INFO",
     "strip/engine/engine.c",
     "\tif (st->act != ACT_DROP)\n\t\tL_CALL(st, goes_out, st, c);",
     "\tif (0)\n\t\tL_CALL(st, goes_out, st, c);"),
    ("engine: a waiting HEAP_DUMP_INFO is lost at a fallback",
     "strip/engine/record.c",
     "\tif (in_rec)\n\t\tL_CALL(st, goes_out, st, c);",
     "\tif (0 && in_rec)\n\t\tL_CALL(st, goes_out, st, c);"),
    ("engine: app-only strip passes a dropped String's value field",
     "strip/engine/keep.c",
     "\tconst unsigned char *h = eng_unit(st, c, st->idsize);",
     "\tconst unsigned char *h = c->p == c->end ? NULL :\n"
     "\t\teng_take(st, c, st->idsize, ACT_PASS);"),
    ("shim: HPROFSTRIP_APP_ONLY is ignored", "preload/session.c",
     "\tif (kind == S_MAIN && policy()->app_only)\n"
     "\t\tcfg.flags |= HS_APP_ONLY;",
     "\tif (kind == S_MAIN && policy()->app_only)\n\t\t(void)0;",
     ["apponly"]),
    # ---- issue 18: the survivors of an audit -------------------------------
    ("shim: the compressor's output is created 0666, not with the dump's mode",
     "preload/pipe.c",
     ": io_create(p->out, (int)(sb.st_mode & 0666));",
     ": io_create(p->out, 0666);"),
    ("shim: an aborted compressor's output is left behind", "preload/pipe.c",
     "\treap(p, &status, NULL);\n\tif (p->out[0])\n\t\tunlink(p->out);\n",
     "\treap(p, &status, NULL);\n"),
    ("shim: a dup carries only a tracker, not a seen-or-not state",
     "preload/fdtable.c",
     "\tif (fd_state(oldfd) || fd_state(newfd))\n\t\talias_fd(oldfd, newfd);",
     "\tif (table_session(oldfd))\n\t\talias_fd(oldfd, newfd);"),
    ("shim: a forked child keeps the compressor's socket", "preload/feed.c",
     "\tif (s->piped)\n\t\tpipe_forget(&s->pm->pipe);\n",
     ""),
    ("tools: stdout written in place is left where it was", "strip/cli/out.c",
     "\t\tif (lseek(1, (off_t)end, SEEK_SET) < 0)\n"
     "\t\t\treturn out_error(o, \"\", errno), -1;\n",
     ""),
    ("tools: an inherited SIG_IGN for SIGCHLD stays", "strip/cli/decomp.c",
     "\tsignal(SIGCHLD, SIG_DFL);\n",
     ""),
    ("engine: keep-strings knows only Thread's own instances, not a subclass's",
     "strip/engine/keep.c",
     "\t} else if (cls && st->ks.class_thread) {",
     "\t} else if (cls == st->ks.class_thread) {"),
    ("shim: a yes/no variable takes only 1 and 0", "preload/policy.c",
     "\tfor (i = 0; i < sizeof words / sizeof words[0]; i++)\n"
     "\t\tfor (j = 0; j < 2; j++)",
     "\tfor (i = 0; i < 1; i++)\n\t\tfor (j = 0; j < 2; j++)"),
    ("engine: a streamed fallback's rest segment leaves out the bytes held",
     "strip/engine/segment.c",
     "\treturn st->open || !st->rec_end ? UINT32_MAX : st->rec_end - from;",
     "\treturn st->open || !st->rec_end ? UINT32_MAX : st->rec_end - st->in_off + 0 * from;"),
    ("launcher: the shim already preloaded is known by its inode alone",
     "preload/hprofstrip-run.c",
     "sb.st_dev == want.st_dev &&",
     ""),
    # ---- issue 18: whose dumps ----------------------------------------------
    ("shim: a process that hosts no runtime and is not named strips",
     "preload/opens.c",
     "\treturn policy_opted_in() ? VET_MAGIC : -1;",
     "\treturn policy_opted_in() ? VET_MAGIC : VET_MAGIC;"),
    ("shim: HPROFSTRIP_PROGRAMS names no program", "preload/policy.c",
     "\tif (p->programs[0]) {",
     "\tif (0 && p->programs[0]) {"),
    ("shim: a header stamped before the process began is never a copy",
     "preload/policy.c",
     "\treturn born_ms && t + HDR_SLACK_MS < born_ms ? HDR_COPY : HDR_DUMP;",
     "\treturn 0 && born_ms && t + HDR_SLACK_MS < born_ms ? HDR_COPY : HDR_DUMP;"),
    ("shim: a runtime's process vets no stamp", "preload/calls.c",
     "s->vet_stamp ? hst_born_ms : 0, &stamp);",
     "0, &stamp);"),
    ("shim: what a filter left unread is not counted", "preload/pipe.c",
     "\tif (ioctl(p->peer, FIONREAD, &n) < 0)\n"
     "\t\tn = -1;  /* cannot tell: not taken */\n",
     "\tif (ioctl(p->peer, FIONREAD, &n) < 0)\n"
     "\t\tn = -1;  /* cannot tell: not taken */\n"
     "\tn = 0;\n"),
    ("tools: an output that is the input file is not refused", "strip/cli/cli.c",
     "\t}\n\tif (run_same_file(r, out_path))\n\t\treturn EXIT_USAGE;",
     "\t}\n\tif (0 && run_same_file(r, out_path))\n\t\treturn EXIT_USAGE;"),
    ("shim: a full disk does not give the compressor up", "preload/session.c",
     "\tif (n >= 0 || (e != ENOSPC && e != EDQUOT) ||",
     "\tif (1 || n >= 0 || (e != ENOSPC && e != EDQUOT) ||"),
    ("shim: a FIFO target is not tracked", "preload/opens.c",
     "(!S_ISREG(sb.st_mode) && !S_ISFIFO(sb.st_mode))",
     "!S_ISREG(sb.st_mode)"),
    ("shim: a JDK 22 segment is tracked without its dump", "preload/opens.c",
     "\t\tif (!main) {\n"
     "\t\t\tpthread_mutex_unlock(&table_lock);\n"
     "\t\t\tif (refuse_wanted())\n"
     "\t\t\t\trefuse_fd(fd, dirfd, path, \"a segment file of a \"\n"
     "\t\t\t\t          \"dump that is not being stripped\",\n"
     "\t\t\t\t          \"dump with jcmd GC.heap_dump \"\n"
     "\t\t\t\t          \"-parallel=1, or \" OFFLINE);\n"
     "\t\t\tgoto out;\n"
     "\t\t}\n"
     "\t\t/* only a runtime writes segment files: its dump is its own,\n"
     "\t\t * whatever the stamp will say (vet) */\n"
     "\t\t__atomic_store_n(&main->segments, 1, __ATOMIC_RELAXED);",
     "\t\tif (main)\n"
     "\t\t\t__atomic_store_n(&main->segments, 1, __ATOMIC_RELAXED);"),
    # ---- issue 21: redaction ---------------------------------------------
    ("redact: the runtime's static values are zeroed too", "strip/engine/redact.c",
     "\tif (!st->mode.redact || type == 2 || st->rd.cls_fw)",
     "\tif (!st->mode.redact || type == 2)"),
    ("redact: the phases pass an instance's values", "strip/engine/redact.c",
     "\tst->act = ref ? ACT_PASS : ACT_ZERO;",
     "\tst->act = ACT_PASS;"),
    ("redact: the fast path's patches miss the instance's header",
     "strip/engine/redact.c",
     "\t\tpt->off = (uint32_t)(at + u->n + u->flat->span[i][0]);",
     "\t\tpt->off = (uint32_t)(at + u->flat->span[i][0]);"),
    ("redact: a fallback copies the rest verbatim",
     "strip/engine/redact.c",
     "\tst->rd.zero_rest = 1;",
     "\tst->rd.zero_rest = 0;"),
    ("names: the runtime's class names are tokenized", "strip/engine/names.c",
     "\treturn seg && seps && hs_framework_name(s, n);",
     "\treturn 0 && seg && seps && hs_framework_name(s, n);"),
    ("names: '=' is taken for a byte of a class name", "strip/engine/names.c",
     "\t       (c >= '0' && c <= '9') || c == '_' || c == '$';",
     "\t       (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '=';"),
    ("names: a text longer than the head is decided on its head",
     "strip/engine/names.c",
     "\tif (!whole || !n)\n\t\treturn 0;",
     "\tif ((!whole && !n) || !n)\n\t\treturn 0;"),
    ("names: a descriptor's classes need not be the runtime's",
     "strip/engine/names.c",
     "\treturn class_name(s + d + 1, (size_t)(semi - s) - d - 1, '/')",
     "\treturn 1 || class_name(s + d + 1, (size_t)(semi - s) - d - 1, '/')"),
    ("names: a word's token depends on the word before it", "strip/engine/names.c",
     "\t\t\tout[i] = (unsigned char)c;\n\t\t\th = k0;",
     "\t\t\tout[i] = (unsigned char)c;\n\t\t\th ^= k0;"),
    ("names: the map's last record is taken for a cut one", "strip/io/namesmap.c",
     "\t\tm->rec_left = len;",
     "\t\tm->rec_left = len + 1;"),
    # ---- issue 27: the sizes the values level keeps -----------------------
    ("redact: the listed sizes are zeroed (never marked in the tables)",
     "strip/engine/redact.c",
     "\t\t\t     ? RD_KEPT : 0));",
     "\t\t\t     ? 0 : 0));"),
    ("redact: the fast path zeroes the listed sizes", "strip/engine/redact.c",
     "\t\t\tif (!passes(t[i]) && sz) {",
     "\t\t\tif ((t[i] & ~RD_KEPT) != 2 && sz) {"),
    ("redact: a listed class keeps every field named as a listed one",
     "strip/engine/exempt.c",
     "\t\t    !strcmp(sizes[i][1], sizes[f - 1][1]))",
     "\t\t    1)"),
    ("redact: a name that starts as a listed one is listed",
     "strip/engine/exempt.c",
     "\treturn k == n && !w[k];",
     "\treturn !w[k];"),
    ("redact: ART's dotted class names are not listed", "strip/engine/exempt.c",
     "\t\tif (s[k] != w[k] && !(w[k] == '/' && s[k] == '.'))\n\t\t\treturn 0;",
     "\t\tif (s[k] != w[k])\n\t\t\treturn 0;"),
    # ---- issue 27: redaction fails closed; the names map ------------------
    ("closed: a dump with no slot or past the fd table written whole under "
     "redaction", "preload/opens.c",
     "\tif (refuse_wanted())\n\t\trefuse_fd(fd, dirfd, path, why, fix);",
     "\tif (0)\n\t\trefuse_fd(fd, dirfd, path, why, fix);"),
    ("closed: the runtime's -gz dump written whole under redaction",
     "preload/calls.c",
     "if (!policy()->redact || judged == HDR_OTHER || judged == HDR_COPY)",
     "if (!policy()->redact || judged == HDR_OTHER || judged == HDR_COPY ||\n"
     "\t    judged == HDR_GZIP)"),
    ("closed: a refused fd's later copies go through", "preload/api.c",
     "\tif (refused(out_fd))\n\t\treturn refuse_call(ret);\n\tif (!s) {",
     "\tif (!s) {"),
    ("closed: a refused dump's file is left on disk", "preload/refuse.c",
     "\t    !unlinkat(dirfd, name, 0))",
     "\t    0)"),
    ("closed: a copy of a refused fd writes", "preload/fdtable.c",
     "\trefuse_dup(oldfd, newfd);\n",
     ""),
    ("names map: the shim's map opened over an existing file or symlink",
     "preload/libc.c",
     "O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |",
     "O_WRONLY | O_CREAT |"),
    ("names map: the shim's map is not the owner's alone", "preload/tables.c",
     "io_create_free(s->map_path, sizeof s->map_path, 0600)",
     "io_create_free(s->map_path, sizeof s->map_path, 0644)"),
    ("names map: no free name for the shim's second map", "preload/libc.c",
     "errno == EEXIST && n <= 999; n++)",
     "errno == EEXIST && n <= 0; n++)"),
    ("names map: an erased dump's map stays", "preload/session.c",
     "\tmap_close(s, MAP_REMOVE);", "\tmap_close(s, MAP_DROP);"),
    ("names map: the tools' map takes the input's mode", "strip/cli/names.c",
     "out_open_buf(&n->mo, n->path, name, 0600,",
     "out_open_buf(&n->mo, n->path, name, 0644,", ["redact-closed"]),
    # ---- issue 27: level words, messages, the tests that missed ----------
    ("levels: a level word is read in one case only", "strip/io/levels.h",
     "\t\t    !strncasecmp(w, words[i].word, n))",
     "\t\t    !strncmp(w, words[i].word, n))"),
    ("levels: blanks after a level word are kept", "strip/io/levels.h",
     "\tfor (n = strlen(w); n && strchr(blank, w[n - 1]); n--)",
     "\tfor (n = strlen(w); 0 && n; n--)"),
    ("shim: HPROFSTRIP_REDACT not known gives values, not names",
     "preload/policy.c",
     "\t\tlevel = IO_LEVEL_NAMES;\n",
     "\t\tlevel = IO_LEVEL_VALUES;\n"),
    ("engine: the hold-back is not clamped to what a segment holds",
     "strip/engine/keep.c",
     "\tif (k->hold_size > HS_HOLD_LIMIT)\n"
     "\t\tk->hold_size = HS_HOLD_LIMIT;\n",
     ""),
    ("launcher: --redact=WORD not known is taken as no level", "preload/hprofstrip-run.c",
     "\t\t\tif ((redact = io_redact_level(s + 9)) == IO_LEVEL_UNKNOWN)",
     "\t\t\tif ((redact = io_redact_level(s + 9)) == IO_LEVEL_UNKNOWN && 0)"),
    ("messages: a control character without a letter is written raw",
     "strip/io/escape.h",
     "\t\t} else if (c < 0x20 || c == 0x7f) {",
     "\t\t} else if (c == 0x7f) {"),
    ("shim: an HPROFSTRIP_LOG that cannot be opened is not said", "preload/say.c",
     "\tif (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))\n\t\treturn 2;",
     "\tif (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED) || 1)\n\t\treturn 2;"),
    ("shim: a glob of HPROFSTRIP_PATTERN fnmatch cannot read is not said",
     "preload/opens.c",
     "\tif (p->pattern_bad[0] && !__atomic_load_n(&told, __ATOMIC_RELAXED) &&",
     "\tif (0 && p->pattern_bad[0] && !__atomic_load_n(&told, __ATOMIC_RELAXED) &&"),
    ("shim: a glob fnmatch cannot read is tried all the same", "preload/policy.c",
     "\t\tif (!n || n >= sizeof one || policy_glob_bad(g, n))",
     "\t\tif (!n || n >= sizeof one)"),
    ("shim: a disk quota does not give the compressor up", "preload/session.c",
     "\tif (n >= 0 || (e != ENOSPC && e != EDQUOT) ||",
     "\tif (n >= 0 || (e != ENOSPC) ||"),
    ("tools: --unredact takes another dump's names map", "strip/cli/cli.c",
     "\tif (rc == 0 && nio.rd.foreign) {",
     "\tif (rc == 0 && 0 && nio.rd.foreign) {",
     ["redact"]),
    ("shim: HPROFSTRIP_PROGRAMS is matched against argv[0] alone, not the executable",
     "preload/policy.c",
     "\t\tif (!yes && k > 0) {",
     "\t\tif (0 && !yes && k > 0) {"),
    ("redact: the fast path does not flush before an instance straddles the gather buffer",
     "strip/engine/redact.c",
     "\t    at % st->rd.cfg.gather_size + u->n + u->len > st->rd.cfg.gather_size) {",
     "\t    0) {"),
    # ---- issue 27: the shim under threads ----------------------------------
    # ---- issue 31: free for bystanders --------------------------------------
    ("bystanders: a call made from inside dlsym looks its function up again",
     "preload/libc.c",
     "\tif (looking)\n\t\treturn raw;\n",
     "",
     [TSAN]),
    ("bystanders: a name dlsym lacks is asked for again at every call",
     "preload/libc.c",
     "\tif (!p)\n\t\tp = raw ? raw : (void *)libc_missing;",
     "\tif (!p)\n\t\treturn raw;",
     [TSAN]),
    ("bystanders: a name that ends in a digit is ruled out by its last byte",
     "preload/policy.c",
     "\t    (last < '0' || last > '9'))\n\t\treturn 0;",
     "\t    1)\n\t\treturn 0;"),
    ("bystanders: a tail longer than a relative name rules it out",
     "preload/policy.c",
     "\t\tif (k > n) {\n\t\t\tif (far)\n\t\t\t\treturn 1;",
     "\t\tif (k > n) {\n\t\t\tif (far && 0)\n\t\t\t\treturn 1;"),
    ("bystanders: a first write is let go without a look at its header",
     "preload/fdstate.h",
     "\t    (len >= HS_MAGIC_LEN && *(const char *)buf == HS_MAGIC[0]))",
     "\t    0)"),
    ("bystanders: a dump's close is let go as a bystander's",
     "preload/fdstate.h",
     "\tif (st && st <= MAX_SESSIONS)\n\t\treturn 0;\n\tif (st)",
     "\tif (st)"),
    ("bystanders: a refusal is not marked for the quick check",
     "preload/refuse.c",
     "\t__atomic_store_n(&refuse_marked, 1, __ATOMIC_RELEASE);\n",
     ""),
    ("bystanders: the store before dlsym is left to the compiler",
     "preload/libc.c",
     "static __thread volatile int looking",
     "static __thread int looking",
     [TSAN]),
    ("threads: a second thread goes on before the setup is done",
     "preload/wrappers.c",
     "\tpthread_once(&once, setup_once);",
     "\tif (!__atomic_exchange_n((int *)&once, 1, __ATOMIC_ACQ_REL))\n"
     "\t\tsetup_once();", [TSAN]),
    ("threads: every first caller parses the policy", "preload/policy.c",
     "\tpthread_once(&once, parse_once);",
     "\t(void)once;\n\tparse_once();", [TSAN]),
    ("threads: a segment's counts go into its main without the main's lock",
     "preload/feed.c",
     "\t\tpthread_mutex_lock(&m->lock);\n"
     "\t\tif (m->kind == S_MAIN &&\n"
     "\t\t    !__atomic_load_n(&m->leaving, __ATOMIC_RELAXED)) {\n"
     "\t\t\tm->seg_in += s->st.in_off;\n"
     "\t\t\tm->seg_out += s->st.out_off;\n"
     "\t\t\tm->seg_arrays += s->st.arrays;\n"
     "\t\t\tm->seg_withheld += s->st.withheld;\n"
     "\t\t}\n"
     "\t\tpthread_mutex_unlock(&m->lock);",
     "\t\tif (m->kind == S_MAIN &&\n"
     "\t\t    !__atomic_load_n(&m->leaving, __ATOMIC_RELAXED)) {\n"
     "\t\t\tm->seg_in += s->st.in_off;\n"
     "\t\t\tm->seg_out += s->st.out_off;\n"
     "\t\t\tm->seg_arrays += s->st.arrays;\n"
     "\t\t\tm->seg_withheld += s->st.withheld;\n"
     "\t\t}", [TSAN]),
    ("threads: the main's id size is read without its lock", "preload/opens.c",
     "\t\tpthread_mutex_lock(&main->lock);\n"
     "\t\tif (main->st.idsize)\n"
     "\t\t\tidsize = main->st.idsize;\n"
     "\t\tpthread_mutex_unlock(&main->lock);",
     "\t\tif (main->st.idsize)\n"
     "\t\t\tidsize = main->st.idsize;", [TSAN]),
    ("threads: a restart writes kind, read under the table's lock",
     "preload/session.c",
     "\tif (s->kind != kind)\n\t\ts->kind = kind;",
     "\ts->kind = kind;", [TSAN]),
    ("threads: a handler's write to a dump goes out as it comes",
     "preload/wrappers.c",
     "\terrno = EDEADLK;\n\treturn 1;",
     "\treturn 0;", [TSAN]),
    ("threads: the shim's own write coming back from below is refused",
     "preload/wrappers.c",
     "\tif (own.fd1 == fd + 1 && (buf ?",
     "\tif (own.fd1 == fd + 2 && (buf ?"),
    ("errno: a sniffed write saves errno after the policy's parse",
     "preload/opens.c",
     "\tif (!policy()->sniff || !buf || len < HS_MAGIC_LEN ||",
     "\tif (!policy()->sniff || (saved = errno, !buf) || len < HS_MAGIC_LEN ||"),
    # ---- issue 28: each layer's memory is the caller's ---------------------
    ("mem: hs_init takes fewer patches than one instance's value spans",
     "strip/engine/redact.c",
     "\tif (r->patch && r->patch_slots >= HS_FLAT_SPANS &&",
     "\tif (r->patch && r->patch_slots >= 1 &&"),
    ("mem: hs_init takes a layout cache whose size is not a power of 2",
     "strip/engine/redact.c",
     "\tif (r->flat && n && !(n & (n - 1)) &&",
     "\tif (r->flat && n &&"),
    ("mem: hs_init takes misaligned caches", "strip/engine/redact.c",
     "\treturn ((uintptr_t)p & (a - 1)) == 0;",
     "\treturn p || a;"),
    ("mem: hs_init leaves a caller's layout cache as it was",
     "strip/engine/redact.c",
     "\t\tmemset(r->flat, 0, n * sizeof *r->flat);",
     "\t\t;"),
    # ---- issue 28: the layers' hooks ---------------------------------------
    ("engine: a core phase tests a mode's flag again",
     "strip/engine/engine.c",
     "\t * lay_value chose, was for that value only) */\n\tst->act = ACT_PASS;",
     "\t * lay_value chose, was for that value only) */\n"
     "\tif (st->mode.redact || 1)\n\t\tst->act = ACT_PASS;"),
    ("engine: redact is not the fast path's unit layer (instances swept whole)",
     "strip/engine/engine.c",
     "\tm->unit = m->keep ? &keep_layer : m->redact ? &redact_layer : NULL;",
     "\tm->unit = m->keep ? &keep_layer : NULL;"),
    # ---- issue 29: the class histogram -----------------------------------
    ("histo: the fast path does not count the objects it sweeps",
     "strip/engine/sweep.c",
     "\t\t\tsl->sweep_seen(st, p, &u);", "\t\t\t(void)sl;"),
    ("histo: a class dump's instance size is read an id too early",
     "strip/engine/histo.c",
     "\t\tst->hg->classes[i - 1].size = hs_be32(h + 1 + 7 * id + 4);",
     "\t\tst->hg->classes[i - 1].size = hs_be32(h + 1 + 6 * id + 4);"),
    ("histo: a table of 3 slots is taken", "strip/engine/histo.c",
     "\treturn h->slots && h->classes && h->slot_count >= 8 &&\n"
     "\t       !(h->slot_count & (h->slot_count - 1)) && h->name_slots &&",
     "\treturn h->slots && h->classes && h->name_slots &&"),
    # ---- issue 29: the class histogram, against VisualVM and jmap --------
    ("histo: an object array's class read where an instance's is",
     "strip/engine/histo.c",
     "\t\ti = object_class(g, rd_id(st, h + 1 + id + 8));",
     "\t\ti = object_class(g, rd_id(st, h + 1 + id + 4));", ["histo-judge"]),
    ("histo: sweep_seen counts nothing (the fast path's objects)",
     "strip/engine/histo.c",
     "\t\tcount(st, p);",
     "\t\t(void)st;", ["histo-judge"]),
    ("histo: a hidden class keeps its '+0x' (not jmap's '/0x')",
     "strip/io/histotext.c",
     "\t\t\tc = '/';\n\t\telse if (c == '/')",
     "\t\t\tc = '+';\n\t\telse if (c == '/')", ["histo-judge"]),
    # ---- issue 29: hprofstrip --histo, the tool -------------------------------
    ("histo: --histo --app-only counts the zygote and image heaps too",
     "strip/cli/counts.c",
     "\t\t.flags = HS_HISTO | (flags & (HS_SALVAGE | HS_APP_ONLY))",
     "\t\t.flags = HS_HISTO | (flags & (HS_SALVAGE))", ["histo"]),
    ("histo: a salvaged dump's histogram is not marked cut", "strip/cli/counts.c",
     "\tcut = st.salvaged || r->cut;",
     "\tcut = r->cut != NULL;", ["histo"]),
    ("histo: a dump the engine rejected still gets its histogram",
     "strip/cli/counts.c",
     "\t\trun_engine_error(r, &st);\n\t\treturn -1;",
     "\t\trun_engine_error(r, &st);\n\t\treturn 0 * -1;", ["histo"]),
    ("histo: -o naming the input replaces the dump with its histogram",
     "strip/cli/counts.c",
     "\tif (run_same_file(r, out_path))\n\t\treturn EXIT_USAGE;\n"
     "\tmemset(&now, 0, sizeof now);\n",
     "\tmemset(&now, 0, sizeof now);\n", ["histo"]),
    ("histo: --baseline's output may be wider than OLD", "strip/cli/counts.c",
     "\t*mode &= fd_mode(fd);",
     "\t*mode &= fd_mode(fd) | 0777;", ["histo"]),
    ("histo: --histo takes every option and ignores it", "strip/cli/args.c",
     "\t           !histo_takes(s)) {",
     "\t           !histo_takes(s) && 0) {", ["histo"]),
    ("histo: --baseline keeps the last of same-named classes, not their sum",
     "strip/cli/histo.c",
     "\t\t\tl->c[k].n += l->c[i].n;",
     "\t\t\tl->c[k].n = l->c[i].n;"),
    ("histo: --baseline sorts the largest loss first", "strip/cli/histo.c",
     "\tif (dx != dy)\n\t\treturn dx > dy ? -1 : 1;\n\tdx = delta",
     "\tif (dx != dy)\n\t\treturn dx > dy ? 1 : -1;\n\tdx = delta"),
    ("histo: --baseline loses the old bytes of a class in both",
     "strip/cli/histo.c",
     "\t\t\tc[k].ob = old->c[i++].bytes;",
     "\t\t\tc[k].ob = 0 * old->c[i++].bytes;"),
    ("histo: a .histo whose Total is not its rows' sum is taken",
     "strip/cli/histoload.c",
     "\tif (sn != tn || sb != tb)",
     "\tif (0 && (sn != tn || sb != tb))"),
    ("histo: a .histo's cut note is not read", "strip/cli/histoload.c",
     "\t\tl->cut = 1;",
     "\t\tl->cut = 0;"),
    ("histo: a .histo's heap columns are taken for the name",
     "strip/cli/histoload.c",
     "\tfor (i = 0; i < heaps; i++) {",
     "\tfor (i = 0; i < 0 * heaps; i++) {"),
    ("histo: a --json baseline's bytes are not read", "strip/cli/histoload.c",
     "\tif (!strcmp(key, \"bytes\"))",
     "\tif (!strcmp(key, \"bytez\"))"),
    # ---- issue 29: the shim's class histogram (<dump>.histo) ---------------
    ("histo: an existing .histo is replaced", "preload/histofile.c",
     "\tif ((fd = io_create(s->histo_path, 0600)) >= 0 ||",
     "\tif ((fd = hst.open(s->histo_path, O_WRONLY | O_CREAT | O_TRUNC, "
     "0600)) >= 0 ||"),
    ("histo: the .histo is made 0644", "preload/histofile.c",
     "\tif ((fd = io_create(s->histo_path, 0600)) >= 0 ||",
     "\tif ((fd = io_create(s->histo_path, 0644)) >= 0 ||"),
    ("histo: HPROFSTRIP_HISTO=no is not heard", "preload/histofile.c",
     "\tif (!policy()->histo || kind != S_MAIN)",
     "\tif (kind != S_MAIN)"),
    ("histo: the close line names two classes, not three",
     "preload/histofile.c",
     "\tio_histo_top(&m->h, m->rows, n, 3, s->top, sizeof s->top);",
     "\tio_histo_top(&m->h, m->rows, n, 2, s->top, sizeof s->top);"),
    ("histo: the tables are not zeroed between dumps", "preload/histofile.c",
     "\tif (madvise(m, sizeof *m, MADV_DONTNEED)) {",
     "\tif (0) {"),
    ("histo: a cut dump's histogram is not marked cut", "preload/histofile.c",
     "\t                              .cut = cut, .cut_at = cut_at,",
     "\t                              .cut = cut * 0, .cut_at = cut_at,"),
    ("histo: a process that exits with its dump open writes none",
     "preload/histofile.c",
     "\thisto_end(s, !hs_at_end(&s->st), s->st.in_off);",
     "\treturn;"),
    ("histo: a .histo whose write failed is left, in part",
     "preload/histofile.c",
     "\t\tio_unlink_made(tmp[0] ? tmp : s->histo_path, fd);",
     "\t\t(void)tmp;"),
    ("histo: hprofstrip-run --no-histo sets nothing", "preload/hprofstrip-run.c",
     "\t    (histo >= 0 && setenv(\"HPROFSTRIP_HISTO\", histo ? \"1\" : \"0\", 1)) ||",
     "\t    (histo > 0 && setenv(\"HPROFSTRIP_HISTO\", histo ? \"1\" : \"0\", 1)) ||",
     ["shim-histo"]),
    ("histo: no memory for the tables is not said", "preload/histofile.c",
     "\t\t\tif (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))",
     "\t\t\tif (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED) && 0)"),
    ("histo: a whole dump open at exit is marked cut", "preload/histofile.c",
     "\thisto_end(s, !hs_at_end(&s->st), s->st.in_off);",
     "\thisto_end(s, 1, s->st.in_off);"),
    ("histo: --app-only's dropped objects are counted", "strip/engine/histo.c",
     "\tif (!st->sub_drop)\n\t\tcount(st, h);", "\tcount(st, h);"),
    ("histo: names are the input's, not the tokens that went out",
     "strip/engine/histo.c",
     "\tnames_view(st, h + id, k, whole, shown);",
     "\tmemcpy(shown, h + id, k);"),
    # ---- issue 30: the judge of kept bitmaps -------------------------------
    ("judge: bitmaps: the arrays no bitmap points at are not checked",
     "tests/java/HeapJudge.java",
     "                if (!mine.contains(a.getInstanceId())) {",
     "                if (false) {"),
    ("judge: bitmaps: a bitmap array's length stands for its bytes",
     "tests/java/HeapJudge.java",
     "            if (Arrays.equals(got, want)) {",
     "            if (got.length == want.length) {"),
    ("judge: bitmaps: --stream takes any nonzero byte[] for a decoy",
     "tests/java/HeapJudge.java",
     "                } else if (stream && signature(b) != null && origImages.contains(sha(b))) {",
     "                } else if (stream) {"),
    # ---- issue 30: keep bitmaps --------------------------------------------
    ("bitmaps: Bitmap.mBuffer is not read", "strip/engine/bitmap.c",
     "$DumpData\", \"mBuffer\", \"buffers\"",
     "$DumpData\", \"mBufferX\", \"buffers\""),
    ("bitmaps: a DumpData.buffers array's elements are not claimed",
     "strip/engine/bitmap.c",
     "\t\tst->bitmap_refs++;\n\t\tkeep_found(st, v);",
     "\t\tst->bitmap_refs++;"),
    ("bitmaps: streamed, a PNG is not known by its signature",
     "strip/engine/bitmap.c",
     "\tif (n >= 8 && !memcmp(p, png, 8))",
     "\tif (n >= 8 && !memcmp(p, png, 8) && 0)"),
    ("bitmaps: streamed, a JPEG is not known by its signature",
     "strip/engine/bitmap.c",
     "p[2] == 0xFF)", "p[2] == 0xFE)"),
    ("bitmaps: streamed, a WEBP is not known by its signature",
     "strip/engine/bitmap.c",
     "!memcmp(p + 8, \"WEBP\", 4);", "!memcmp(p + 8, \"WEBX\", 4);"),
    ("bitmaps: streamed, image-shaped arrays are kept in any dump",
     "strip/engine/bitmap.c",
     "\t    !st->bm.class_dumpdata || h[n - 1] != 8 || bytes < 3 ||",
     "\t    h[n - 1] != 8 || bytes < 3 ||"),
    ("bitmaps: exact, a buffers array before its DumpData is not read again",
     "strip/cli/keepset.c",
     "\t\tif (lists_again(k, &st))\n\t\t\tcontinue;",
     "\t\t(void)lists_again;"),
    ("bitmaps: exact pass 1 does not pend the buffers ids (a pass more)",
     "strip/engine/claims.c",
     "\tif (!st->ks.cfg.found || list)", "\tif (!st->ks.cfg.found)"),
    ("bitmaps: --redact --keep-bitmaps is taken (keep dropped, said nothing)",
     "strip/cli/args.c",
     "\tif ((a->flags & HS_REDACT) && (a->flags & HS_KEEP_BITMAPS))",
     "\tif (0)", ["bitmaps"]),
    ("bitmaps: hs_init keeps bitmaps for redaction", "strip/engine/engine.c",
     "\t\tflags &= ~(unsigned)(HS_KEEP_STRINGS | HS_KEEP_BITMAPS);",
     "\t\tflags &= ~(unsigned)HS_KEEP_STRINGS;"),
    ("bitmaps: HPROFSTRIP_KEEP=bitmaps is not read", "preload/policy.c",
     "\t\telse if (n == 7 && !memcmp(v, \"bitmaps\", 7))\n\t\t\tp->keep_bitmaps = 1;",
     "\t\telse if (n == 7 && !memcmp(v, \"bitmaps\", 7))\n\t\t\t;", ["bitmaps"]),
    ("bitmaps: HPROFSTRIP_REDACT's refusal of bitmaps is not said",
     "preload/tables.c",
     "\t\tif (!__atomic_exchange_n(&told_redact, 1, __ATOMIC_RELAXED))\n\t\t\tsay(\"hprofstrip: HPROFSTRIP_KEEP=%s is ignored: \"",
     "\t\tif (!__atomic_exchange_n(&told_redact, 1, __ATOMIC_RELAXED) && 0)\n\t\t\tsay(\"hprofstrip: HPROFSTRIP_KEEP=%s is ignored: \"",
     ["bitmaps"]),
    ("bitmaps: hprofstrip-run --keep bitmaps is refused", "preload/hprofstrip-run.c",
     "\t\t\tif (strcmp(v, \"strings\") && strcmp(v, \"bitmaps\") &&",
     "\t\t\tif (strcmp(v, \"strings\") &&", ["bitmaps"]),
]


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def area(m):
    """The tests of mutant m: its file's area, and those it names."""
    tests = list(AREAS[m[1]])
    for t in (m[4] if len(m) > 4 else []):
        if t not in tests:
            tests.append(t)
    return tests


def label(test):
    return test if isinstance(test, str) else test[0]


def cleanup(tmp):
    """Unmounts what a killed test left mounted under tmp, empties tmp."""
    mounts = []
    with open("/proc/self/mounts") as f:
        for line in f:
            p = line.split()[1].replace("\\040", " ")
            if p == tmp or p.startswith(tmp + "/"):
                mounts.append(p)
    for p in sorted(mounts, key=len, reverse=True):
        subprocess.run(["umount", "-l", p], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)


def run_test(test, tree, env, tmp, stop, limit=None):
    """Runs one test: (passed, why, seconds, output tail). A Bats file
    passes when every test in it is ok (none skipped, at least one run);
    with stop, the run ends at its first failing test. Past limit
    seconds the run is killed and fails as hung."""
    if isinstance(test, str):
        cmd = ["bats", "--tap", "bats/%s.bats" % test]
    else:
        cmd = test[1]
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=tree, env=dict(env, TMPDIR=tmp),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    why, ok_tests, tail, hung = "", 0, [], []

    def kill():
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    timer = None
    if limit:
        timer = threading.Timer(limit, lambda: (hung.append(1), kill()))
        timer.start()
    for line in p.stdout:
        tail = (tail + [line])[-60:]
        if isinstance(test, str) and line.startswith("ok "):
            if " # skip" in line:
                why = why or "skipped: " + line.split(" ", 2)[2].strip()
            else:
                ok_tests += 1
        elif isinstance(test, str) and line.startswith("not ok "):
            why = why or line.split(" ", 3)[3].strip()
        if why and stop:
            break
    if why and stop:
        kill()
    rc = p.wait()
    if timer:
        timer.cancel()
    try:  # whatever the test left running in its session
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    p.stdout.close()
    cleanup(tmp)
    secs = time.time() - t0
    if hung:
        return False, "hung: killed after %.0fs" % secs, secs, "".join(tail)
    if why:
        return False, why, secs, "".join(tail)
    if rc:
        return False, "exit status %d" % rc, secs, "".join(tail)
    if isinstance(test, str) and not ok_tests:
        return False, "runs no test", secs, "".join(tail)
    return True, "", secs, "".join(tail)


def main():
    want = sys.argv[1:]
    todo = [m for m in MUTANTS if not want or any(w in m[0] for w in want)]
    shared = os.path.realpath(os.path.join(ROOT, "..", "shared"))
    work = tempfile.mkdtemp(prefix="hprofstrip-mutants.")
    try:
        return run(todo, shared, work)
    finally:
        cleanup(os.path.join(work, "tmp"))
        shutil.rmtree(work, ignore_errors=True)


def run(todo, shared, work):
    tree = os.path.join(work, "main")
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp)
    os.symlink(shared, os.path.join(work, "shared"))
    files = sh(["git", "ls-files"], cwd=ROOT).stdout.split()
    for f in files:
        src = os.path.join(ROOT, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(tree, f)), exist_ok=True)
            shutil.copy2(src, os.path.join(tree, f))
    build = os.path.join(work, "build")
    env = dict((k, v) for k, v in os.environ.items()
               if not k.startswith("HPROFSTRIP_") and k != "LD_PRELOAD" and
               not k.startswith("MAKE") and k != "MFLAGS")
    env["BUILD"] = build
    targets = ["all"] + ["%s/%s" % (build, t) for t in (
        "splitcheck", "oracle", "replay", "libreenter.so", "libfaultinject.so",
        "shimstress", "shimstress-lfs", "shimstress-fortify",
        "shimstress-fortify64", "strcheck", "redactcheck", "embedtest",
        "policytest", "holdtest", "memtest")]
    r = sh(["make", "-s", "BUILD=" + build] + targets, cwd=tree, env=env)
    if r.returncode:
        print(r.stdout)
        print("mutants: the unmutated tree does not build")
        return 1
    # every test must pass on the unmutated tree, or a failure proves
    # nothing; its time orders each area, cheapest first
    t_start = time.time()
    cost = {}
    for m in todo:
        for test in area(m):
            if label(test) in cost:
                continue
            ok, why, secs, out = run_test(test, tree, env, tmp, stop=False)
            if not ok:
                print(out[-3000:])
                print("mutants: fails without a mutant: %s: %s" % (label(test), why))
                return 1
            cost[label(test)] = secs
            print("unmutated  %-36s passes  [%.0fs]" % (label(test), secs))
            sys.stdout.flush()
    print("unmutated: all %d test files pass  [%.0fs]" % (
        len(cost), time.time() - t_start))
    caught = survived = broken = 0
    for m in todo:
        name, path, old, new = m[:4]
        p = os.path.join(tree, path)
        orig = open(p).read()  # the snapshot, restored after each mutant
        if orig.count(old) != 1:
            print("NOT APPLIED  %s (%s: the text occurs %d times)"
                  % (name, path, orig.count(old)))
            broken += 1
            continue
        open(p, "w").write(orig.replace(old, new))
        t0 = time.time()
        r = sh(["make", "-s", "BUILD=" + build] + targets, cwd=tree, env=env)
        if r.returncode:
            print("NOT APPLIED  %s (does not build: %s)" % (
                name, r.stdout.strip().splitlines()[-1:]))
            open(p, "w").write(orig)
            broken += 1
            continue
        verdict, why, ran = "survived", "", []
        for test in sorted(area(m), key=lambda t: cost[label(t)]):
            limit = HANG_FACTOR * cost[label(test)] + 60
            ok, what, secs, out = run_test(test, tree, env, tmp, stop=True,
                                           limit=limit)
            ran.append(label(test))
            if not ok:
                verdict, why = "caught", "%s: %s" % (label(test), what)
                break
        open(p, "w").write(orig)
        if verdict == "caught":
            caught += 1
        else:
            survived += 1
            why = "ran " + ", ".join(ran)
        print("%-9s %s  [%s; %d of %d files, %.0fs]" % (
            verdict.upper(), name, why, len(ran), len(area(m)),
            time.time() - t0))
        sys.stdout.flush()
    print("mutants: %d caught, %d survived%s  [%.0f min]" % (
        caught, survived, ", %d not applied" % broken if broken else "",
        (time.time() - t_start) / 60))
    return 1 if survived or broken else 0


if __name__ == "__main__":
    sys.exit(main())
