#!/usr/bin/env python3
"""engine-modes.py [-v] [FILE.c...]: which modes each function of the
engine (strip/engine/*.c) touches, and whether any touches more than 3.

A function touches a mode when its body names the mode's flag, its field
of the resolved mode (st->mode), its state (st->ks, st->sg, st->sv, the
census, the open length, the fallback, the waiting HEAP_DUMP_INFO) or a
function of its layer (keep_*, hold_*, seg_*, salvage_*, census_*); a
layer's own functions are in its mode. The modes: restore, jvm, app-only,
keep (keep-strings), stream, salvage, fallback, open-len, census,
no-header, redact, names. hs_init and resolve_mode are where the flags are resolved into
the mode, once: they read them all, and are not counted.

Prints the functions that touch 3 or more (every one with -v), then
'functions: N, most modes touched by one: M'; exits 1 if M > 3.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODES = {
    "restore": [r"mode\.restore\b", r"\bHS_RESTORE\b", r"\brestore_(array|zeros)\b"],
    "jvm": [r"mode\.convert\b", r"\bHS_JVM\b", r"\bis_android_root\b",
            r"mode\.late_header\b"],
    "app-only": [r"mode\.app_(only|strip)\b", r"\bHS_APP_ONLY\b", r"\binfo_len\b",
                 r"st->info\b", r"\b(eng_)?emit_info\b", r"\bdropped_heap\b",
                 r"mode\.late_header\b"],
    "keep": [r"mode\.keep\w*", r"\bHS_KEEP_STRINGS\b", r"st->ks\.", r"\bACT_STASH\b",
             r"\bkeep_\w+\s*\(", r"\bhold_\w+\s*\(", r"\bstring_ref\b",
             r"\bthread_ref\b"],
    "stream": [r"mode\.stream\b", r"\bHS_STREAM\b", r"st->sg\.", r"\bseg_\w+\s*\("],
    "salvage": [r"mode\.salvage\b", r"\bHS_SALVAGE\b", r"st->sv\.",
                r"\bsalvage_\w+\s*\(", r"st->salvage\w*"],
    "fallback": [r"mode\.fallback\b", r"\bHS_FALLBACK\b", r"st->fallback\b",
                 r"\bfb_(in|out)\b", r"\bPH_RAW(_REC)?\b"],
    "open-len": [r"mode\.open_len\b", r"\bHS_OPEN_LEN\b", r"\bmaybe_open\b",
                 r"st->open\b", r"\bOPEN_END\b"],
    "census": [r"st->census\b", r"\bcensus_\w+\s*\("],
    "no-header": [r"\bHS_NO_HEADER\b", r"mode\.no_header\b"],
    "redact": [r"mode\.redact\b", r"\bHS_REDACT\b", r"st->rd\.", r"\bACT_ZERO\b",
               r"\bredact_\w+\s*\("],
    "names": [r"mode\.names\b", r"\bHS_REDACT_NAMES\b", r"\bHS_UNREDACT\b",
              r"st->nm\.", r"\bnames_\w+\s*\("],
}
LAYER = {"keep.c": "keep", "hold.c": "keep", "segment.c": "stream",
         "salvage.c": "salvage", "redact.c": "redact",
         "names.c": "names"}
EXEMPT = {"hs_init", "resolve_mode"}


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


def main():
    args = sys.argv[1:]
    verbose = "-v" in args
    files = [a for a in args if a != "-v"] or \
        sorted(glob.glob(os.path.join(ROOT, "strip/engine/*.c")))
    rows, worst = [], 0
    for f in files:
        layer = LAYER.get(os.path.basename(f))
        for name, line, body in functions(f):
            touched = {mode for mode, pats in MODES.items()
                       if any(re.search(p, body) for p in pats)}
            if layer:
                touched.add(layer)
            rows.append((len(touched), os.path.relpath(f, ROOT), line, name,
                         sorted(touched)))
            if name not in EXEMPT:
                worst = max(worst, len(touched))
    for n, f, line, name, t in sorted(rows, key=lambda r: (-r[0], r[1], r[2])):
        if verbose or n >= 3:
            print("%d %s:%d %s%s: %s" % (n, f, line, name,
                  " (where the mode is resolved)" if name in EXEMPT else "",
                  ", ".join(t) or "-"))
    print("functions: %d, most modes touched by one: %d" % (len(rows), worst))
    return 1 if worst > 3 else 0


if __name__ == "__main__":
    sys.exit(main())
