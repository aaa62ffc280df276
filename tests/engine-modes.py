#!/usr/bin/env python3
"""engine-modes.py [-v] [FILE.c...]: which modes each function of the
engine (strip/engine/*.c) touches; the core must touch at most one.

A function touches a mode when its body names the mode's flag, its field
of the resolved mode (st->mode, or an hs_mode pointer m), its state
(st->ks, st->sg, st->sv, st->rd, st->nm, the census, the open length, the
fallback, the waiting HEAP_DUMP_INFO), a function of its layer (keep_*,
hold_*, seg_*, salvage_*, redact_*, names_*, census_*) or its table of
hooks (keep_layer, ...). A hook called through the table (L_CALL, lay_*:
internal.h) names no mode: the core does not know which layers are on.
The modes: restore, jvm, app-only, keep (keep-strings), stream, salvage,
fallback, open-len, census, no-header, redact, names, histo.

The core is engine.c, record.c, sweep.c, emit.c, rewrite.c and format.c:
each of its functions may touch at most 1 mode, and that one of the
core's own (restore, the census, the fallback, the open length, the
header-less feed): a core function that names a layer's mode (keep,
stream, salvage, redact, names, jvm, app-only) is over its limit, but
for the two places internal.h names (CORE_KNOWS: eng_emit writes into
stream's segment; PH_XLOOK's eng_resolve and step_xlook are keep's). A layer's file (keep.c, hold.c, bitmap.c and claims.c: keep; segment.c:
stream; salvage.c; redact.c; names.c; android.c: jvm and app-only; histo.c)
is in
its layer's mode(s), and each of its functions may touch at most 1 mode
besides (the layer it sizes its output with, or a core option it reads).
resolve_mode, list_layers and hs_init are where the flags are resolved
into the mode and the layers listed, once: they read them all, and are
not counted. Any other file is held to the core's rule.

Before it reads the engine, it checks that its patterns still catch a
flag test, a layer's state read and a layer's function called by name in
a core function, and that a hook call through the table is not counted
(exit 2 if not).

Prints the functions over their limit (every one with -v), then
'functions: N, core: most modes touched by one: M (limit 1), layers: most
other modes: K (limit 1)'; exits 1 if a function is over its limit.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# a field of the resolved mode: st->mode.x, or m->x through a pointer
M = r"(?:mode\.|\bm->)"
MODES = {
    "restore": [M + r"restore\b", r"\bHS_RESTORE\b", r"\brestore_(array|zeros)\b"],
    "jvm": [M + r"convert\b", r"\bHS_JVM\b", r"\bis_android_root\b",
            M + r"late_header\b", r"\bandroid_layer\b"],
    "app-only": [M + r"app_(only|strip)\b", r"\bHS_APP_ONLY\b", r"\binfo_len\b",
                 r"st->info\b", r"\b(eng_)?emit_info\b", r"\bdropped_heap\b",
                 M + r"late_header\b", r"\bandroid_layer\b"],
    "keep": [M + r"keep\w*", r"\bHS_KEEP_(STRINGS|BITMAPS)\b", r"st->ks\.",
             r"st->bm\.", r"\bbm_\w+\s*\(", r"\bpend_\w+\s*\(",
             r"\b(mbuffer|buffers)_ref\b", r"\bACT_STASH\b",
             r"\bkeep_\w+\s*\(", r"\bhold_\w+\s*\(", r"\bstring_ref\b",
             r"\bthread_ref\b", r"\bkeep_layer\b"],
    "stream": [M + r"stream\b", r"\bHS_STREAM\b", r"st->sg\.", r"\bseg_\w+\s*\(",
               r"\bstream_layer\b"],
    "salvage": [M + r"salvage\b", r"\bHS_SALVAGE\b", r"st->sv\.",
                r"\bsalvage_\w+\s*\(", r"st->salvage\w*", r"\bsalvage_layer\b"],
    "fallback": [M + r"fallback\b", r"\bHS_FALLBACK\b", r"st->fallback\b",
                 r"\bfb_(in|out)\b", r"\bPH_RAW(_REC)?\b"],
    "open-len": [M + r"open_len\b", r"\bHS_OPEN_LEN\b", r"\bmaybe_open\b",
                 r"st->open\b", r"\bOPEN_END\b"],
    "census": [r"st->census\b", r"\bcensus_\w+\s*\("],
    "no-header": [r"\bHS_NO_HEADER\b", M + r"no_header\b"],
    "redact": [M + r"redact\b", r"\bHS_REDACT\b", r"st->rd\.", r"\bACT_ZERO\b",
               r"\bredact_\w+\s*\(", r"\bredact_layer\b"],
    "names": [M + r"names\b", r"\bHS_REDACT_NAMES\b", r"\bHS_UNREDACT\b",
              r"st->nm\.", r"\bnames_\w+\s*\(", r"\bnames_layer\b"],
    "histo": [M + r"histo\b", r"\bHS_HISTO\b", r"st->hg\b",
              r"\bhisto_layer\b"],
}
LAYER = {"keep.c": {"keep"}, "hold.c": {"keep"}, "bitmap.c": {"keep"},
         "claims.c": {"keep"}, "segment.c": {"stream"},
         "salvage.c": {"salvage"}, "redact.c": {"redact"}, "exempt.c": {"redact"},
         "names.c": {"names"}, "android.c": {"jvm", "app-only"},
         "histo.c": {"histo"}}
EXEMPT = {"hs_init", "resolve_mode", "list_layers"}
CORE_LIMIT = 1   # modes a core function touches
# the modes that are layers; a core function touches none of them, but for
# the two places internal.h names: every output byte goes through eng_emit,
# which writes into stream's segment while one gathers; the look past a
# heap record's end (PH_XLOOK) is keep's, fed again by the core
LAYERS = {"keep", "stream", "salvage", "redact", "names", "jvm", "app-only",
          "histo"}
CORE_KNOWS = {"eng_emit": {"stream"}, "eng_resolve": {"keep"},
              "step_xlook": {"keep"}}
LAYER_LIMIT = 1  # modes a layer's function touches besides its own


def functions(path):
    """(name, line, body) of each function defined in path."""
    src = open(path).read()
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src,
                 flags=re.S)
    src = re.sub(r'"(\\.|[^"\\])*"', '""', src)
    lines = src.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^[a-z][\w \*]*?\b(\w+)\s*\(", lines[i])
        if m and not lines[i].rstrip().endswith(";"):
            j = i
            while j < len(lines) and lines[j] != "{" and \
                    not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and lines[j] == "{":
                k = j
                while lines[k] != "}":
                    k += 1
                yield m.group(1), i + 1, "\n".join(lines[j:k + 1])
                i = k
        i += 1


def touched(body):
    """The modes a function body touches."""
    return {mode for mode, pats in MODES.items()
            if any(re.search(p, body) for p in pats)}


# (a core function's body, the modes it must be found to touch)
SELF_TEST = [
    ("{\n\tif (st->mode.redact)\n\t\tst->act = ACT_PASS;\n}", {"redact"}),
    ("{\n\tif (!st->err && !st->rd.zero_rest)\n\t\tst->phase = 0;\n}",
     {"redact"}),
    ("{\n\tif (keep_fields(st, c) || redact_fields(st, c))\n"
     "\t\treturn 1;\n}", {"keep", "redact"}),
    ("{\n\tconst struct hs_mode *m = &st->mode;\n\tif (m->stream)\n"
     "\t\treturn 1;\n}", {"stream"}),
    ("{\n\tif (keep_layer.fields(st, c))\n\t\treturn 1;\n}", {"keep"}),
    ("{\n\tif (lay_fields(st, c))\n\t\treturn 1;\n"
     "\tL_CALL(st, class_start, st, h);\n}", set()),
]


def self_test():
    """1 if the patterns catch what they must, and no hook call."""
    ok = 1
    for body, want in SELF_TEST:
        got = touched(body)
        if got != want:
            print("engine-modes.py: self-test: %r touches %s, not %s"
                  % (body, sorted(got), sorted(want)), file=sys.stderr)
            ok = 0
    return ok


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    if not self_test():
        return 2
    files = [a for a in args if a != "-v"] or \
        sorted(glob.glob(os.path.join(ROOT, "strip/engine/*.c")))
    rows, worst, worst_other, over = [], 0, 0, 0
    for f in files:
        own = LAYER.get(os.path.basename(f), set())
        for name, line, body in functions(f):
            t = touched(body)
            other = len(t - own)
            limit = LAYER_LIMIT if own else CORE_LIMIT
            exempt = name in EXEMPT
            # a core function that names a layer is over its limit
            bad = other > limit or \
                (not own and t & LAYERS - CORE_KNOWS.get(name, set()))
            if not exempt:
                if own:
                    worst_other = max(worst_other, other)
                else:
                    worst = max(worst, other)
                over += bool(bad)
            rows.append((other, bool(bad) and not exempt,
                         os.path.relpath(f, ROOT), line, name,
                         sorted(t | own), exempt, bool(own)))
    for n, bad, f, line, name, t, exempt, layer in \
            sorted(rows, key=lambda r: (-r[0], r[2], r[3])):
        if verbose or bad:
            print("%d %s:%d %s%s%s%s: %s" % (
                n, f, line, name,
                " (where the mode is resolved)" if exempt else "",
                " (layer: other modes)" if layer else "",
                " OVER" if bad else "", ", ".join(t) or "-"))
    print("functions: %d, core: most modes touched by one: %d (limit %d), "
          "layers: most other modes: %d (limit %d)"
          % (len(rows), worst, CORE_LIMIT, worst_other, LAYER_LIMIT))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
