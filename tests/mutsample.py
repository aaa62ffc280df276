#!/usr/bin/env python3
"""make mutants-sample: a seeded random sample of GENERATED one-line mutants.

tests/mutants.py runs a hand-written list of bugs; this samples mutants
from every product file (strip/**/*.c, preload/*.c, restore/*.c; never
tests/) and runs each against the test files of its area, with
tests/mutants.py's harness (its scratch tree with ../shared beside it,
its run_test, its named tests and its AREAS).

    tests/mutsample.py [--seed S] [-n N] [--files GLOB[,GLOB]] [--list]
                       [-j J] [--even] [--head] [--budget SECS]

  --seed S    the sample's seed (default 1); the same seed on the same
              sources picks the same mutants, in the same order, and a
              smaller -n is a prefix of a larger one (-n 30 runs the
              first 30 mutants of -n 200; a discarded mutant's
              replacement is the next one in that order)
  -n N        mutants to run (default 200), not counting the discarded
  --files G   only product files matching a glob (fnmatch, so
              'preload/*' or 'strip/engine/*.c'; commas for several)
  --list      print the sampled mutants (the first N, before any
              compile check) and the sites per file; runs nothing
  -j J        J scratch trees side by side (default 1)
  --even      each file equally likely (a random file, then a random
              site of it), rather than each site equally likely
  --head      mutate and test the committed tree (git HEAD), not the
              working tree (tests/mutants.py's choice, the default)
  --rev R     mutate and test commit R's tree (--head is --rev HEAD)
  --budget S  a mutant's whole run is cut off after S seconds (1200)
  --stop-at T no mutant starts after T (HH:MM, UTC), and one still
              running then is abandoned (not counted); the report is of
              the mutants done

Sampling. A site is one place in the code and one operator; by default
every site of every file is equally likely (weighted by the file's number
of sites), so the total is an estimate of the whole product's mutation
score, and a file's share of the sample is its share of the code that
can be mutated; --even instead gives small files (hprofrestore.c,
say.c) as many mutants as big ones (session.c, load.c), for comparable
per-file rates at the cost of a biased total. The replacement an
operator makes at a site (say < to <= or to >=) is drawn from a random
generator seeded by the seed and the site, so it does not depend on
what else was drawn.

Operators, each a change within one line of code; the lexer skips
comments, strings and character constants, preprocessor lines (and their
continuations), and a line that only declares (one that begins with a
type or reads TYPE NAME, and has no '='; in a declaration that has one,
only what follows the '=' is mutated):
  REL    a relational operator: < to <= or >=, <= to < or >, > to >= or
         <=, >= to > or <, == to !=, != to ==
  ARITH  a binary + to -, - to +, * to /, / to *; += to -= and back,
         *= to /= and back (binary: after a name, a number, ')' or ']';
         a '*' after a type word, or before ')' or ',', is a pointer's)
  LOGIC  && to ||, || to &&
  CONST  an integer constant c to c+1, c-1, 0 or 1 (not c itself; its
         suffix and base kept)
  NOT    a unary ! removed
  COND   the condition of an if or a while (on one line) replaced by 1
         or by 0
  RET    return X; (on one line) to return 0; where X is not 0, NULL or
         false
  BREAK  a break; removed: (void)0; or, before a case or default label,
         __attribute__((fallthrough)); (the build's -Wextra -Werror
         would refuse a silent fall-through)
  DEL    a statement that is one simple assignment (LVALUE op= EXPR;,
         whole on its line, not a declaration) replaced by (void)0;
A mutant whose tree does not build (make all and the area's test
binaries, -Wall -Wextra -Werror) is discarded and the next one in the
sample's order is taken; the report counts them. A quick
cc -fsyntax-only of the mutated file discards most of those before the
build (only when the unmutated file passes it).

Running. Before any mutant, the unmutated tree builds and every test
file of every area in play (the areas of the first N mutants drawn; a
replacement's new ones run unmutated before it) runs whole and must pass
(tests/mutants.py's rule, except that a test failing unmutated does not
void the run: it proves nothing, so it is left out of every area, and the
report names it; a survivor of such an area may be caught by it once it
passes again); its times order each area cheapest first and are kept in
build/mutsample/baseline.json for a tree of the same content (a second
run on unchanged sources skips the baseline). For each mutant: mutate,
build only what it needs (make all, plus the test binaries its area's
tests name), run its area cheapest first and stop at the first failing
test. Caught: some test failed; SURVIVED: all passed (an equivalent
mutant survives too: the report lists survivors for a human to judge).
Hangs: a test is killed after tests/mutants.py's limit, HANG_FACTOR (4)
times its unmutated time plus a minute, and that counts as caught (the
unmutated run is at least 4 times faster); the whole mutant is also cut
off at --budget (20 min): a test killed by that budget before its own
limit is TIMEOUT, neither caught nor survived, and is reported apart.

The area map (AREAS below): tests/mutants.py's AREAS for each file it
names, else the entry of the file's directory (or the file itself) in
EXTRA_AREAS. Output: one line per mutant (file:line, the change, caught
by which test or SURVIVED), then each file's caught rate and the total;
also written to build/mutsample/report.txt. A development tool, like
make mutants: not part of make check.
"""
import argparse
import fnmatch
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mutants as M  # noqa: E402  the harness: run_test, cleanup, AREAS

ROOT = M.ROOT
OUTDIR = os.path.join(ROOT, "build", "mutsample")
BUDGET = 20 * 60


def named(name, script):
    """A named test: SCRIPT run by sh -c (as tests/mutants.py's are)."""
    return (name, ["sh", "-c", script])


# ---- the area map -----------------------------------------------------------

SEAL = named("sealtest", '"$BUILD/sealtest"')
# the shim's suites (the brief's list and tests/mutants.py's SHIM)
SHIM_ALL = [M.POLICY, SEAL] + M.SHIM + ["shim-histo", "gzip-dumps"]
TOOLS = M.TOOLS + ["histo"]

# by file, then by directory: the first key that is the file or one of
# its directories wins; tests/mutants.py's AREAS come first
EXTRA_AREAS = {
    "preload/seal.c": [SEAL] + M.SHIM,
    "preload/inflate.c": ["gzip-dumps", "shim-compress"] + M.SHIM,
    "preload/suspects.c": ["suspects-jvm"] + M.SHIM,
    "preload": SHIM_ALL,
    # bats/suspects.bats judges --dominator-tree by build/domref
    "strip/analyze": ["suspects"],
    "strip/cli/info.c": ["info"] + TOOLS,
    "strip/cli/suspects.c": ["suspects"] + TOOLS,
    "strip/cli/standaside.c": ["same-file"] + TOOLS,
    "strip/cli": TOOLS,
    "strip/io/lineout.c": ["histo", "shim-histo", "suspects"],
    "strip/io": TOOLS + ["shim"],
    "strip/engine": M.ENGINE,
    "restore": ["restore-jvm", "strip", "stream", M.STREAM_RESTORE],
}


def area_of(path):
    """tests/mutants.py's AREAS for the file, else its EXTRA_AREAS entry;
    for the shim's own files (preload/, not the launcher) with the shim's
    whole set of suites, SHIM_ALL, after them."""
    tests = None
    if path in M.AREAS:
        tests = list(M.AREAS[path])
    p = path
    while tests is None and p:
        if p in EXTRA_AREAS:
            tests = list(EXTRA_AREAS[p])
        p = os.path.dirname(p)
    if tests is None:
        tests = TOOLS + ["shim"]
    if fnmatch.fnmatch(path, "preload/*.c") and \
            path != "preload/hprofstrip-run.c":
        tests += SHIM_ALL
    out, names = [], set()
    for t in tests:  # each test once, in its first place
        if label(t) not in names:
            names.add(label(t))
            out.append(t)
    return out


# the test binaries a test may use (beyond make all), found by name in
# its text: a Bats file's, a named test's script, and any tests/ script
# either runs
TEST_BINS = ["splitcheck", "oracle", "replay", "libreenter.so", "policytest",
             "strcheck", "redactcheck", "embedtest", "holdtest", "namerule",
             "memtest", "libcrace", "domref", "sealtest", "pendtest", "maptest",
             "libfaultinject.so", "shimstress", "shimstress-lfs",
             "shimstress-fortify", "shimstress-fortify64",
             "libhprofstrip-fd1k.so", "bigdump"]
VARS = {"ORACLE": "oracle", "SPLIT": "splitcheck", "REPLAY": "replay"}


def test_text(test, tree, seen=None):
    seen = set() if seen is None else seen
    if isinstance(test, str):
        path = os.path.join(tree, "bats", test + ".bats")
        text = open(path).read() if os.path.exists(path) else ""
    else:
        text = " ".join(test[1])
    more = ""
    for ref in set(re.findall(r"tests/[\w./-]+", text)):
        p = os.path.join(tree, ref)
        if ref not in seen and os.path.isfile(p):
            seen.add(ref)
            try:
                more += open(p, errors="replace").read()
            except OSError:
                pass
    return text + more


def bins_of(tests, tree):
    need = set()
    for t in tests:
        text = test_text(t, tree)
        for b in TEST_BINS:
            if re.search(r"(?<![\w.-])" + re.escape(b) + r"(?![\w-])", text):
                need.add(b)
        for v, b in VARS.items():
            if "$" + v in text or "${" + v + "}" in text:
                need.add(b)
    return sorted(need)


# ---- the lexer and the sites -------------------------------------------------

TOKEN = re.compile(r"""
    (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fFlL]?|\d+[eE][+-]?\d+[fFlL]?)
  | (?P<int>(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*)(?![\w.])
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|\|=|\^=|\#\#|[^\s\w])
  | (?P<ws>\s+)
""", re.S | re.X)

TYPES = set("""static const extern unsigned signed int char short long void
float double struct union enum typedef volatile register inline _Bool bool
__thread _Thread_local restrict _Noreturn _Alignas _Static_assert""".split())
KEYWORDS = set("""return else case goto do if while for switch sizeof break
continue default""".split())
ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
REL = {"<": ["<=", ">="], "<=": ["<", ">"], ">": [">=", "<="],
       ">=": [">", "<"], "==": ["!="], "!=": ["=="]}
ARITH = {"+": ["-"], "-": ["+"], "*": ["/"], "/": ["*"], "+=": ["-="],
         "-=": ["+="], "*=": ["/="], "/=": ["*="]}


class Tok:
    __slots__ = ("kind", "text", "line", "start", "end")

    def __init__(self, kind, text, line, start, end):
        self.kind, self.text, self.line = kind, text, line
        self.start, self.end = start, end  # columns in that line


def is_type(t):
    return t.kind == "ident" and (t.text in TYPES or t.text.endswith("_t"))


def lex(text):
    """Code tokens by line number (1-based), without comments, strings'
    insides or preprocessor lines; the lines' texts."""
    lines = text.split("\n")
    pp, cont = set(), False
    for i, l in enumerate(lines, 1):
        if cont or l.lstrip().startswith("#"):
            pp.add(i)
            cont = l.endswith("\\")
        else:
            cont = False
    starts, off = [], 0
    for l in lines:
        starts.append(off)
        off += len(l) + 1
    toks, line = [], 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        s = m.start()
        while line < len(starts) and starts[line] <= s:
            line += 1
        if kind in ("ws", "comment"):
            continue
        if line in pp or "\n" in m.group():
            continue
        col = s - starts[line - 1]
        toks.append(Tok(kind, m.group(), line, col, col + len(m.group())))
    return toks, lines


def declaration(lt):
    """Whether a line's tokens begin a declaration."""
    if not lt:
        return False
    if is_type(lt[0]):
        return True
    k = 0
    if lt[0].kind != "ident" or lt[0].text in KEYWORDS:
        return False
    k = 1
    while k < len(lt) and lt[k].text == "*":
        k += 1
    return (k < len(lt) and lt[k].kind == "ident" and
            lt[k].text not in KEYWORDS and k + 1 < len(lt) and
            lt[k + 1].text in (";", ",", "=", "[", ")"))


def close_paren(lt, k):
    """Index of the ')' matching lt[k] == '(' on the same line, or None."""
    depth = 0
    for j in range(k, len(lt)):
        if lt[j].text == "(":
            depth += 1
        elif lt[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def int_alts(text):
    m = re.match(r"(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)$", text)
    digits, suf = m.groups()
    hexa = digits[:2].lower() == "0x"
    v = int(digits, 16) if hexa else (int(digits, 8) if len(digits) > 1 and
                                       digits[0] == "0" else int(digits))
    out = []
    for w in (v + 1, v - 1, 0, 1):
        if w >= 0 and w != v and w not in out:
            out.append(w)
    return [("0x%x" % w if hexa else str(w)) + suf for w in out]


def sites(path, text):
    """Every site of a file: (path, line, col, end, op, [replacements])."""
    toks, lines = lex(text)
    byline = {}
    for t in toks:
        byline.setdefault(t.line, []).append(t)
    order = sorted(byline)
    out = []
    prev_last = None  # the last code token before the line
    for li, ln in enumerate(order):
        lt = byline[ln]
        nxt = byline[order[li + 1]][0] if li + 1 < len(order) else None
        first = 0
        decl = declaration(lt)
        if decl:
            eq = [k for k, t in enumerate(lt) if t.text == "="]
            if not eq:
                prev_last = lt[-1]
                continue
            first = eq[0] + 1

        def add(k0, k1, op, alts):
            out.append((path, ln, lt[k0].start, lt[k1].end, op, alts))

        for k in range(first, len(lt)):
            t = lt[k]
            p = lt[k - 1] if k else None
            binary = p is not None and (
                (p.kind in ("ident", "int", "float", "str") and
                 p.text not in KEYWORDS) or p.text in (")", "]"))
            if t.text in REL:
                add(k, k, "REL", REL[t.text])
            elif t.text in ARITH and len(t.text) == 2:
                add(k, k, "ARITH", ARITH[t.text])
            elif t.text in ARITH and binary:
                if t.text == "*":
                    nt = lt[k + 1].text if k + 1 < len(lt) else ""
                    pp = lt[k - 2].text if k >= 2 else ""
                    if (is_type(p) or nt in (")", ",", "*", "") or
                            pp in ("struct", "union", "enum") or k == 1):
                        continue
                add(k, k, "ARITH", ARITH[t.text])
            elif t.text in ("&&", "||"):
                add(k, k, "LOGIC", ["||" if t.text == "&&" else "&&"])
            elif t.kind == "int":
                add(k, k, "CONST", int_alts(t.text))
            elif t.text == "!":
                add(k, k, "NOT", [""])
            elif t.text in ("if", "while") and k + 1 < len(lt) and \
                    lt[k + 1].text == "(":
                j = close_paren(lt, k + 1)
                if j is not None and j > k + 2:
                    out.append((path, ln, lt[k + 1].start, lt[j].end, "COND",
                                ["(1)", "(0)"]))
            elif t.text == "return" and k + 1 < len(lt) and \
                    lt[k + 1].text != ";":
                j = next((j for j in range(k + 1, len(lt))
                          if lt[j].text == ";"), None)
                if j is not None:
                    x = [u.text for u in lt[k + 1:j]]
                    if x not in (["0"], ["NULL"], ["false"], ["(", "0", ")"]):
                        add(k, j, "RET", ["return 0;"])
            elif t.text == "break" and k + 1 < len(lt) and \
                    lt[k + 1].text == ";":
                fall = (k == 0 and k + 2 == len(lt) and nxt is not None and
                        nxt.text in ("case", "default"))
                add(k, k + 1, "BREAK", ["__attribute__((fallthrough));"
                                        if fall else "(void)0;"])
        # DEL: the whole line one simple assignment statement
        if not decl and lt[-1].text == ";" and lt[0].kind == "ident" and \
                lt[0].text not in KEYWORDS and lt[0].text not in TYPES and \
                (prev_last is None or prev_last.text in
                 (";", "{", "}", ")", ":", "else")):
            k, depth = 0, 0
            while k < len(lt):  # the lvalue: names, ->, ., [...]
                x = lt[k].text
                if x == "[":
                    depth += 1
                elif x == "]":
                    depth -= 1
                elif depth == 0 and not (lt[k].kind == "ident" or
                                         x in ("->", ".")):
                    break
                k += 1
            if 0 < k < len(lt) - 1 and lt[k].text in ASSIGN and \
                    not any(u.text == ";" for u in lt[k:-1]):
                out.append((path, ln, lt[0].start, lt[-1].end, "DEL",
                            ["(void)0;"]))
        prev_last = lt[-1]
    return out


def product_files(src):
    return sorted(f for f in src if
                  (f.startswith("strip/") and f.endswith(".c")) or
                  fnmatch.fnmatch(f, "preload/*.c") or
                  fnmatch.fnmatch(f, "restore/*.c"))


def sample(srcs, files, seed, n, even):
    """The first n mutants of seed's order (more are drawn as needed)."""
    per = {}
    for f in files:
        per[f] = sites(f, srcs[f])
    return per, draw(per, seed, even)


def draw(per, seed, even):
    """A generator of mutants in seed's order: (site, replacement)."""
    rng = random.Random(seed)
    if not even:
        allsites = [s for f in sorted(per) for s in per[f]]
        idx = list(range(len(allsites)))
        rng.shuffle(idx)
        order = (allsites[i] for i in idx)
    else:
        def gen():
            left = {f: list(per[f]) for f in sorted(per) if per[f]}
            while left:
                f = rng.choice(sorted(left))
                s = left[f].pop(rng.randrange(len(left[f])))
                if not left[f]:
                    del left[f]
                yield s
        order = gen()
    for s in order:
        r = random.Random("%s:%s:%d:%d:%s" % (seed, s[0], s[1], s[2], s[4]))
        yield s, r.choice(s[5])


def apply(text, site, rep):
    path, ln, c0, c1, op, _ = site
    lines = text.split("\n")
    l = lines[ln - 1]
    lines[ln - 1] = l[:c0] + rep + l[c1:]
    return "\n".join(lines), l[c0:c1]


def describe(srcs, site, rep):
    path, ln, c0, c1, op, _ = site
    l = srcs[path].split("\n")[ln - 1]
    old = l[c0:c1]
    new = l[:c0] + rep + l[c1:]
    return "%s:%d  %s  %s -> %s   | %s" % (
        path, ln, op, old if len(old) < 50 else old[:47] + "...",
        rep if rep else "(removed)", new.strip()[:100])


# ---- running -----------------------------------------------------------------

def run_cmd(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def read_sources(rev):
    """The tracked files' contents: the working tree's, or commit rev's."""
    if rev:
        files = run_cmd(["git", "ls-tree", "-r", "--name-only", rev],
                        cwd=ROOT).stdout.split()
    else:
        files = run_cmd(["git", "ls-files"], cwd=ROOT).stdout.split()
    srcs = {}
    for f in files:
        if rev:
            r = subprocess.run(["git", "show", rev + ":" + f], cwd=ROOT,
                               stdout=subprocess.PIPE)
            if r.returncode == 0:
                srcs[f] = r.stdout
        else:
            p = os.path.join(ROOT, f)
            if os.path.isfile(p) and not os.path.islink(p):
                srcs[f] = open(p, "rb").read()
            elif os.path.islink(p):
                srcs[f] = ("LINK", os.readlink(p))
    return srcs


def make_tree(work, srcs):
    """tests/mutants.py's scratch layout: WORK/main, WORK/shared, WORK/tmp,
    WORK/build."""
    tree = os.path.join(work, "main")
    os.makedirs(os.path.join(work, "tmp"))
    shared = os.path.realpath(os.path.join(ROOT, "..", "shared"))
    os.symlink(shared, os.path.join(work, "shared"))
    for f, data in srcs.items():
        d = os.path.join(tree, f)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if isinstance(data, tuple):
            os.symlink(data[1], d)
            continue
        open(d, "wb").write(data)
        src = os.path.join(ROOT, f)
        if os.path.exists(src):
            shutil.copymode(src, d)
    return tree


def clean_env(build):
    env = dict((k, v) for k, v in os.environ.items()
               if not k.startswith("HPROFSTRIP_") and k != "LD_PRELOAD" and
               not k.startswith("MAKE") and k != "MFLAGS")
    env["BUILD"] = build
    return env


class Worker:
    def __init__(self, work, srcs):
        self.work = work
        self.tree = make_tree(work, srcs)
        self.build = os.path.join(work, "build")
        self.tmp = os.path.join(work, "tmp")
        self.env = clean_env(self.build)

    def make(self, bins):
        return run_cmd(["make", "-s", "BUILD=" + self.build, "all"] +
                       [os.path.join(self.build, b) for b in bins],
                       cwd=self.tree, env=self.env)

    def syntax_ok(self, path):
        r = run_cmd(["cc", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra",
                     "-Werror", "-D_FILE_OFFSET_BITS=64", "-I" + self.build,
                     "-fsyntax-only", path], cwd=self.tree, env=self.env)
        return r.returncode == 0, r.stdout


def label(t):
    return M.label(t)


def tree_hash(srcs):
    h = hashlib.sha256()
    for f in sorted(srcs):
        d = srcs[f] if isinstance(srcs[f], bytes) else repr(srcs[f]).encode()
        h.update(f.encode() + b"\0" + hashlib.sha256(d).digest())
    return h.hexdigest()


def baseline(w, tests, bins, thash, out):
    """Every test in play, whole, on the unmutated tree: {label: secs}."""
    path = os.path.join(OUTDIR, "baseline.json")
    cache = {}
    try:
        cache = json.load(open(path))
        if cache.get("tree") != thash:
            cache = {}
    except (OSError, ValueError):
        pass
    costs = cache.get("costs", {})
    broken = cache.get("broken", {})
    r = w.make(bins)
    if r.returncode:
        out(r.stdout[-3000:])
        out("mutsample: the unmutated tree does not build")
        return None
    t0 = time.time()
    for t in tests:
        if label(t) in broken:
            out("unmutated  %-44s FAILED  [kept: %s]" % (label(t),
                                                        broken[label(t)]))
            continue
        if label(t) in costs:
            out("unmutated  %-44s passed  [%.0fs, kept]" % (label(t),
                                                          costs[label(t)]))
            continue
        ok, why, secs, tail = M.run_test(t, w.tree, w.env, w.tmp, stop=False)
        if not ok:
            out(tail[-3000:])
            out("unmutated  %-44s FAILS: %s" % (label(t), why))
            broken[label(t)] = why
        else:
            costs[label(t)] = secs
            out("unmutated  %-44s passes  [%.0fs]" % (label(t), secs))
        os.makedirs(OUTDIR, exist_ok=True)
        json.dump({"tree": thash, "costs": costs, "broken": broken},
                  open(path, "w"), indent=1)
    out("unmutated: %d test files, %d fail  [%.0fs]" % (
        len(tests), sum(label(t) in broken for t in tests), time.time() - t0))
    return costs, broken


def stop_time(hhmm):
    """The epoch time of HH:MM UTC, today (or tomorrow, if past)."""
    if not hhmm:
        return None
    h, m = (int(x) for x in hhmm.split(":"))
    now = time.time()
    t = now - now % 86400 + h * 3600 + m * 60
    return t if t > now - 60 else t + 86400


def run_mutant(w, srcs, site, rep, costs, budget, stop=None):
    """('discarded'|'caught'|'survived'|'timeout'|'abandoned', why, secs)."""
    path = site[0]
    p = os.path.join(w.tree, path)
    orig = srcs[path]
    mutated, _ = apply(orig.decode(), site, rep)
    t0 = time.time()
    tests = [t for t in area_of(path) if label(t) in costs]
    bins = bins_of(tests, w.tree)
    try:
        open(p, "w").write(mutated)
        if w.syntax_base.setdefault(path, None) is None:
            open(p, "wb").write(orig)
            w.syntax_base[path] = w.syntax_ok(path)[0]
            open(p, "w").write(mutated)
        if w.syntax_base[path]:
            ok, msg = w.syntax_ok(path)
            if not ok:
                return "discarded", "cc -fsyntax-only: " + _first_err(msg), \
                    time.time() - t0
        r = w.make(bins)
        if r.returncode:
            return "discarded", "build: " + _first_err(r.stdout), \
                time.time() - t0
        ran = []
        for t in sorted(tests, key=lambda t: costs[label(t)]):
            own = M.HANG_FACTOR * costs[label(t)] + 60
            left = budget - (time.time() - t0)
            if left <= 0:
                return "timeout", "budget of %ds spent before %s" % (
                    budget, label(t)), time.time() - t0
            limit = min(own, left)
            if stop is not None:
                if stop - time.time() <= 0:
                    return "abandoned", "--stop-at", time.time() - t0
                limit = min(limit, stop - time.time())
            ok, what, secs, tail = M.run_test(t, w.tree, w.env, w.tmp,
                                              stop=True, limit=limit)
            ran.append(label(t))
            if not ok:
                if what.startswith("hung") and stop is not None and \
                        time.time() >= stop - 1:
                    return "abandoned", "--stop-at", time.time() - t0
                if what.startswith("hung") and limit < own and \
                        secs < M.HANG_FACTOR * costs[label(t)]:
                    return "timeout", "%s: cut at the %ds budget after %.0fs" \
                        " (unmutated %.0fs)" % (label(t), budget, secs,
                                                costs[label(t)]), \
                        time.time() - t0
                return "caught", "%s: %s" % (label(t), what), time.time() - t0
        return "survived", "ran " + ", ".join(ran), time.time() - t0
    finally:
        open(p, "wb").write(orig)


def _first_err(text):
    for l in text.splitlines():
        if "error" in l:
            return l.strip()[:160]
    return (text.strip().splitlines() or [""])[-1][:160]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--files", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--even", action="store_true")
    ap.add_argument("--head", action="store_true")
    ap.add_argument("--rev", default="")
    ap.add_argument("--budget", type=int, default=BUDGET)
    ap.add_argument("--stop-at", default="")
    a = ap.parse_args()

    if a.head and not a.rev:
        a.rev = "HEAD"
    raw = read_sources(a.rev)
    files = product_files([f for f in raw if isinstance(raw[f], bytes)])
    if a.files:
        globs = [g for g in a.files.split(",") if g]
        files = [f for f in files if any(fnmatch.fnmatch(f, g) for g in globs)]
    if not files:
        print("mutsample: no product file matches %r" % a.files)
        return 2
    srcs = {f: raw[f] for f in files}
    per, gen = sample({f: srcs[f].decode() for f in files}, files, a.seed,
                      a.n, a.even)
    total = sum(len(v) for v in per.values())
    if a.list:
        print("mutsample: seed %d, %s, %d sites in %d files" % (
            a.seed, "each file equally likely" if a.even else
            "each site equally likely", total, len(files)))
        for f in files:
            ops = {}
            for s in per[f]:
                ops[s[4]] = ops.get(s[4], 0) + 1
            print("  %-28s %4d  %s" % (f, len(per[f]), " ".join(
                "%s %d" % kv for kv in sorted(ops.items()))))
        dsrc = {f: srcs[f].decode() for f in files}
        for i, (s, rep) in zip(range(a.n), gen):
            print("%3d  %s" % (i + 1, describe(dsrc, s, rep)))
        return 0
    return run(a, raw, srcs, per, gen, files)


def run(a, raw, srcs, per, gen, files):
    os.makedirs(OUTDIR, exist_ok=True)
    lock = threading.Lock()
    log = []

    def out(s):
        with lock:
            print(s)
            sys.stdout.flush()
            log.append(s)

    dsrc = {f: srcs[f].decode() for f in files}
    out("mutsample: seed %d, -n %d, %s, %d sites in %d files, %s tree, -j %d"
        % (a.seed, a.n, "even per file" if a.even else "weighted by sites",
           sum(len(v) for v in per.values()), len(files),
           (a.rev + "'s") if a.rev else "the working", a.j))
    # the areas in play: those of the first N mutants drawn; a discarded
    # mutant's replacement may bring more, run unmutated before it is
    pre = list(x for _, x in zip(range(a.n), draw(per, a.seed, a.even)))
    tests, seen = [], set()
    for s, _ in pre:
        for t in area_of(s[0]):
            if label(t) not in seen:
                seen.add(label(t))
                tests.append(t)
    works = []
    t_start = time.time()
    try:
        for i in range(max(1, a.j)):
            wd = tempfile.mkdtemp(prefix="hprofstrip-mutsample.")
            works.append(Worker(wd, raw))
            works[-1].syntax_base = {}
        thash = tree_hash(raw)
        got = baseline(works[0], tests, bins_of(tests, works[0].tree),
                       thash, out)
        if got is None:
            return 1
        costs, broken = got
        clock = threading.Lock()
        stop = stop_time(a.stop_at)

        def ensure(w, path):
            """The unmutated times of path's area, run now if not known."""
            with clock:
                more = [t for t in area_of(path) if label(t) not in costs
                        and label(t) not in broken]
                if more:
                    c = baseline(w, more, bins_of(more, w.tree), thash, out)
                    if c is None:
                        return False
                    costs.update(c[0])
                    broken.update(c[1])
            return True
        t_mut = time.time()
        results = {}
        discarded, failed, skipped = [], [], []
        next_i = [0]
        glock = threading.Lock()

        def take():
            with glock:
                if next_i[0] >= a.n:
                    return None
                try:
                    s, rep = next(gen)
                except StopIteration:
                    return None
                next_i[0] += 1
                return next_i[0], s, rep

        def give_back():
            with glock:
                next_i[0] -= 1

        def worker(w):
            while True:
                if stop is not None and time.time() >= stop:
                    return
                job = take()
                if job is None:
                    return
                i, s, rep = job
                if not ensure(w, s[0]):
                    give_back()
                    failed.append(s[0])
                    return
                v, why, secs = run_mutant(w, srcs, s, rep, costs, a.budget,
                                          stop)
                if v == "abandoned":
                    out("ABANDONED %3d  %s  [--stop-at]" % (
                        i, describe(dsrc, s, rep)))
                    return
                d = describe(dsrc, s, rep)
                if v == "discarded":
                    give_back()
                    with glock:
                        discarded.append((d, why))
                    out("DISCARDED  %s  [%s]" % (d, why))
                    continue
                results[i] = (s, rep, v, why, secs, d)
                out("%-9s %3d  %s  [%s; %.0fs]" % (
                    v.upper(), i, d, why, secs))

        threads = [threading.Thread(target=worker, args=(w,)) for w in works]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if failed:
            out("mutsample: void: the unmutated tree of %s does not build"
                % failed[0])
            return 1
    finally:
        for w in works:
            M.cleanup(w.tmp)
            shutil.rmtree(w.work, ignore_errors=True)
    lines = report(a, results, discarded, per, t_mut - t_start,
                   time.time() - t_mut, skipped, broken)
    for l in lines:
        print(l)
    with open(os.path.join(OUTDIR, "report.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("mutsample: written to %s" % os.path.relpath(
        os.path.join(OUTDIR, "report.txt"), ROOT))
    return 0


def report(a, results, discarded, per, t_base, t_mut, skipped, broken):
    L = ["", "mutsample: seed %d, -n %d, %s; %d mutants run, %d discarded "
         "(did not build)  [baseline %.0f min, mutants %.0f min]" % (
             a.seed, a.n, "even per file" if a.even else "weighted by sites",
             len(results), len(discarded), t_base / 60, t_mut / 60), ""]
    for i in sorted(results):
        s, rep, v, why, secs, d = results[i]
        L.append("%3d %-9s %s  [%s]" % (i, v.upper(), d,
                                        why))
    L.append("")
    L.append("per file (caught/run; timeouts apart):")
    byf = {}
    for i in results:
        s, rep, v = results[i][:3]
        byf.setdefault(s[0], []).append(v)
    c_all = n_all = 0
    for f in sorted(byf):
        vs = byf[f]
        c = vs.count("caught")
        n = c + vs.count("survived")
        to = vs.count("timeout")
        c_all += c
        n_all += n
        L.append("  %-28s %3d/%-3d %5s%s" % (
            f, c, n, "%.0f%%" % (100.0 * c / n) if n else "-",
            "  (%d timeout)" % to if to else ""))
    L.append("  %-28s %3d/%-3d %5s" % ("total", c_all, n_all,
                                       "%.0f%%" % (100.0 * c_all / n_all)
                                       if n_all else "-"))
    surv = [results[i] for i in sorted(results) if results[i][2] == "survived"]
    if surv:
        L.append("")
        L.append("survivors (judge: a test gap, or an equivalent mutant):")
        for r in surv:
            L.append("  " + r[5])
    if broken:
        L.append("")
        L.append("tests that fail on the unmutated tree, so left out of "
                 "every area:")
        for t, why in sorted(broken.items()):
            L.append("  %s: %s" % (t, why))
    if discarded:
        L.append("")
        L.append("discarded (%d):" % len(discarded))
        for d, why in discarded:
            L.append("  %s  [%s]" % (d, why))
    return L


if __name__ == "__main__":
    sys.exit(main())
