#!/usr/bin/env python3
"""make mutants: deliberate one-line bugs, each of which some test must catch.

For each mutant: copy the tracked tree into a scratch directory (with
../shared beside it, so the corpus is found), replace one exact piece of
text in one file (it must occur exactly once: a mutant that no longer
applies is an error, not a pass), build, and run the tests named for it.
The mutant is caught when they fail. Prints one line per mutant and
'N caught, M survived' (exit 1 if any survived or did not apply).

    tests/mutants.py [NAME-SUBSTRING...]     only the matching mutants

A development tool, not part of make check: it takes several minutes.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Test commands, run from the scratch tree with BUILD set.
def bats(file, regex):
    return ["bats", "-f", regex, "bats/%s.bats" % file]

# the engine's split invariance over every corpus dump, short
UNIT_ALL = ["sh", "-c",
            'for f in ../shared/corpus/*/*.hprof; do '
            '"$BUILD/splitcheck" -p 32 -n 2 -s 1 "$f" || exit 1; done']

UNIT_JDK8 = ["sh", "-c",
             'f=../shared/corpus/hotspot/jdk8-u05-x64.hprof; '
             '"$BUILD/splitcheck" -p 64 -n 4 -s 1 "$f" && '
             '"$BUILD/splitcheck" -O -p 16 -n 2 -s 1 "$f"']

# keep strings streamed from a pipe: no array kept that is not a String's
KEEP_PIPE = ["sh", "-c",
             'for f in ../shared/corpus/*/*.hprof; do '
             'cat "$f" | "$BUILD/hprofstrip" --keep-strings >k.hprof && '
             '"$BUILD/strcheck" "$f" k.hprof >/dev/null || exit 1; done']

# --stream: split invariance of a restore, which passes long runs
STREAM_RESTORE = ["sh", "-c",
                  'f=../shared/corpus/hotspot/jdk8-u05-x64.hprof; '
                  '"$BUILD/hprofstrip" -o s.hprof "$f" && '
                  '"$BUILD/splitcheck" -S -r -p 64 -n 4 -s 1 s.hprof']

# name, file, original text, mutated text, tests
MUTANTS = [
    # ---- caught before issue 8 -------------------------------------------
    ("engine: element size of double is wrong", "strip/engine.c",
     "\tcase 7: case 11: return 8;   /* double, long */",
     "\tcase 7: case 11: return 4;   /* double, long */",
     [bats("strip", "oracle")]),
    ("engine: a length is patched only when it shrinks", "strip/engine.c",
     "\t\tif (out_len != hs_be32(st->rec_hdr + 5)) {",
     "\t\tif (out_len < hs_be32(st->rec_hdr + 5)) {",
     [bats("strip", "restore\\(strip")]),
    ("engine: a class dump's field count is byte-swapped when cut across feeds",
     "strip/engine.c",
     "\t\tst->count = (unsigned)h[0] << 8 | h[1];",
     "\t\tst->count = h == st->scratch ? (unsigned)h[1] << 8 | h[0]\n"
     "\t\t                             : (unsigned)h[0] << 8 | h[1];",
     [UNIT_JDK8]),
    ("engine: the scratch guard in the class-dump step is dropped",
     "strip/engine.c",
     "\tif (st->have == 0 && n > rec_left(st)) {",
     "\tif (n > rec_left(st)) {",
     [UNIT_ALL]),
    ("engine: 0xC4 is emitted instead of 0xC3", "strip/engine.c",
     "\t\t\tt = HS_SUB_PRIMITIVE_ARRAY_NODATA;\n\t\t\temit(st, &t, 1);",
     "\t\t\tt = 0xC4;\n\t\t\temit(st, &t, 1);",
     [bats("strip", "no 0x23 is left")]),
    ("engine: --app-only keeps stripped arrays in heap Z", "strip/engine.c",
     "\t       tag == HS_SUB_PRIMITIVE_ARRAY_DUMP ||\n\t       tag == HS_SUB_PRIMITIVE_ARRAY_NODATA;",
     "\t       tag == HS_SUB_PRIMITIVE_ARRAY_DUMP;",
     [bats("jvm", "app-only")]),
    ("engine: --jvm keeps 0x8E's trailing bytes", "strip/engine.c",
     "\t\t\temit(st, h + 1, id);\n\t\t}\n\t\tst->phase = PH_SUB_END;",
     "\t\t\temit(st, h + 1, n - 1);\n\t\t}\n\t\tst->phase = PH_SUB_END;",
     [bats("jvm", "--jvm matches hprof-conv|8-byte-id Android")]),
    ("outbuf: a short write is taken as complete", "strip/outbuf.c",
     "\t\tp += n;\n\t\tlen -= (size_t)n;\n\t\toff += (uint64_t)n;",
     "\t\tp += n;\n\t\tlen -= (size_t)n;\n\t\toff += (uint64_t)n;\n\t\tbreak;",
     [bats("faults", "short writes")]),
    ("engine: the JDK 8 patch range is off by one", "strip/engine.c",
     "in_off >= lo && in_off + len <= lo + 4)",
     "in_off >= lo && in_off + len <= lo + 3)",
     [bats("shim", "every runtime's write pattern")]),
    ("shim: trunc_at_end is never set", "preload/tracker.c",
     "\t\tt->trunc_at_end = sb.st_size > 0;",
     "\t\tt->trunc_at_end = 0;",
     [bats("dumps", "over an old, longer file")]),
    # ---- survived before issue 8 -----------------------------------------
    ("shim: a write no longer restores errno", "preload/write.c",
     "\terrno = e ? e : saved;\n\t*ret = e ? -1 : (ssize_t)total;",
     "\tif (e)\n\t\terrno = e;\n\t(void)saved;\n\t*ret = e ? -1 : (ssize_t)total;",
     [bats("dumps", "errno")]),
    ("shim: ART's ftruncate(fd, 0) erase is ignored", "preload/write.c",
     "\t\tr = hst.ftruncate(fd, 0);\n\t\tif (r == 0)\n\t\t\ttracker_restart(t);",
     "\t\tr = 0;\n\t\tif (r == 1)\n\t\t\ttracker_restart(t);",
     [bats("dumps", "erase")]),
    ("shim: JDK 22 .pN segments take the wrong id size", "preload/tracker.c",
     "\tunsigned i, idsize = (unsigned)sizeof(void *);",
     "\tunsigned i, idsize = 4;",
     [bats("dumps", "segment files are stripped on disk")]),
    ("shim: JDK 22 .pN segments are not tracked", "preload/policy.c",
     "\tif (prefix_of(path, policy_numbered_base(path, \"p\"), base, size) &&",
     "\tif (0 && prefix_of(path, policy_numbered_base(path, \"p\"), base, size) &&",
     [bats("dumps", "segment files are stripped on disk")]),
    ("engine: a rewrite after a fallback is dropped", "strip/engine.c",
     "\tif (st->fallback && in_off >= st->fb_in)",
     "\tif (0 && st->fallback && in_off >= st->fb_in)",
     [bats("dumps", "after a fallback")]),
    ("outbuf: the output's base offset is ignored", "strip/outbuf.c",
     "buf, len, o->base + off);",
     "buf, len, off);",
     [bats("output", "printf|base")]),
    ("engine: --app-only keeps heap I", "strip/engine.c",
     "\treturn heap == HS_HEAP_ZYGOTE || heap == HS_HEAP_IMAGE;",
     "\treturn heap == HS_HEAP_ZYGOTE;",
     [bats("jvm", "app-only"), bats("apponly", "zygote and image heaps hold")]),
    # ---- issue 10's own ----------------------------------------------------
    ("engine: keep strings without the hold-back", "strip/engine.c",
     "\tif (!keep_streams(st) || (type != 5 && type != 8) ||",
     "\tif (1 || !keep_streams(st) || (type != 5 && type != 8) ||",
     [bats("strings", "G1: --keep-strings")]),
    ("engine: ART's next-array rule for any dump", "strip/engine.c",
     "\t\telse if (st->version == '3')\n\t\t\tst->expect = 2;",
     "\t\telse if (1)\n\t\t\tst->expect = 2;",
     [KEEP_PIPE]),
    ("engine: a name's later ids overwrite its first", "strip/engine.c",
     "\t\tif (!st->names[which][i] || st->names[which][i] == id) {",
     "\t\tif (1) {",
     [bats("strings", "G1: --keep-strings")]),
    ("tools: --keep-strings from stdin reads from offset 0", "strip/keepset.c",
     "\toff_t start = lseek(fd, 0, SEEK_CUR);  /* stdin may not be at 0 */",
     "\toff_t start = 0 * lseek(fd, 0, SEEK_CUR);",
     [bats("strings", "from where stdin stands")]),
    # ---- issue 11's own ----------------------------------------------------
    ("engine: a segment's fill is judged before the run is flushed",
     "strip/engine.c",
     "\t\tflush(st, c);  /* what the segment holds must not depend on cuts */",
     "",
     [STREAM_RESTORE]),
    ("tools: a pipe is not streamed", "strip/cli.c",
     "\tif (a->stream || o.kind == OUT_STREAM) {",
     "\tif (a->stream) {",
     [bats("output", "a pipe is streamed")]),
    ("shim: a compressor's exit status is not looked at", "preload/pipe.c",
     "\t} else if (WEXITSTATUS(status)) {",
     "\t} else if (0) {",
     [bats("compress", "missing, exits 1")]),
    ("shim: the compressor is not waited for", "preload/pipe.c",
     "\tif (reap(p, &status)) {",
     "\tif ((status = 0)) {",
     [bats("compress", "no fd and no child left")]),
    ("shim: the compressor inherits ignored signals", "preload/pipe.c",
     "\t\trc = posix_spawnattr_setsigdefault(&at, &all);",
     "\t\trc = posix_spawnattr_setsigdefault(&at, &none);",
     [bats("compress", "default signals")]),
    ("shim: the compressor inherits the runtime's fds", "preload/pipe.c",
     "\tif (!rc && closefrom)\n",
     "\tif (0 && closefrom)\n",
     [bats("compress", "default signals")]),
    ("shim: the plain copy is removed though the compressor failed",
     "preload/tracker.c",
     "\tif (pipe_finish(p, why, sizeof why)) {",
     "\tif (pipe_finish(p, why, sizeof why) && 0) {",
     [bats("compress", "missing, exits 1")]),
    ("engine: --salvage keeps the bytes of the cut sub-record", "strip/engine.c",
     "\t} else {\n\t\tcut_output(st, st->sub_out);\n\t}",
     "\t} else {\n\t\t(void)0;\n\t}",
     [["sh", "-c", 'for f in ../shared/corpus/*/*.hprof; do '
       's=$(stat -c %s "$f"); "$BUILD/splitcheck" -V -c $((s * 97 / 100)) '
       '-p 8 -n 1 -s 1 "$f" >/dev/null || exit 1; done'],
      bats("salvage", "hprofrestore --salvage of every")]),
    ("engine: --salvage leaves out the array classes the cut dropped",
     "strip/engine.c",
     "\t\tif (!complete_array_classes(st, c, 1) && !st->gather &&",
     "\t\tif (!0 && !st->gather &&",
     [bats("salvage", "hprofrestore --salvage of every")]),
    # ---- issue 8's own -----------------------------------------------------
    ("shim: numbered dumps (<path>.<digits>) are not dumps", "preload/policy.c",
     "\treturn prefix_of(path, policy_numbered_base(path, \"\"), base,",
     "\treturn 0 && prefix_of(path, policy_numbered_base(path, \"\"), base,",
     [bats("dumps", "numbered names")]),
    ("shim: every process sniffs, not only a runtime's", "preload/policy.c",
     "\tif (!dl_iterate_phdr(runtime_lib, NULL))\n\t\treturn 0;",
     "\tif (0 && !dl_iterate_phdr(runtime_lib, NULL))\n\t\treturn 0;",
     [bats("dumps", "elsewhere it is left alone|cp, cat and python3")]),
    ("shim: ART's libart.so does not count as a runtime", "preload/policy.c",
     "\treturn !strcmp(b, \"libjvm.so\") || !strcmp(b, \"libart.so\");",
     "\treturn !strcmp(b, \"libjvm.so\");",
     [bats("shim", "sniffing: an fd the shim never saw")]),
    ("shim: files this process creates are never sniffed", "preload/tracker.c",
     "set_fd_state(fd, fresh ? FD_FRESH : FD_SEEN);",
     "set_fd_state(fd, fresh && 0 ? FD_FRESH : FD_SEEN);",
     [bats("dumps", "whatever its name")]),
    ("shim: the tools' request to stand aside is ignored", "preload/wrappers.c",
     "\treturn busy || __atomic_load_n(&standaside, __ATOMIC_RELAXED);",
     "\treturn busy;",
     [bats("dumps", "exported LD_PRELOAD")]),
    ("shim: no guard against calls from below the shim", "preload/wrappers.c",
     "\t\tbusy = 1;                         \\",
     "\t\tbusy = 0;                         \\",
     [bats("dumps", "calls back into it")]),
    ("shim: a file with content opened without O_TRUNC is tracked",
     "preload/tracker.c",
     "\t    (!(flags & O_TRUNC) && sb.st_size > 0))\n\t\tgoto out;",
     "\t    0)\n\t\tgoto out;",
     [bats("dumps", "opened without O_TRUNC")]),
    ("shim: ftruncate(fd, 0) does not restart the dump", "preload/write.c",
     "\t\tif (r == 0)\n\t\t\ttracker_restart(t);",
     "\t\tif (r == 0)\n\t\t\tt->voff = t->voff;",
     [bats("dumps", "setLength")]),
    ("shim: a write past the end feeds no zeros", "preload/write.c",
     "\tif (at > t->st.in_off)\n\t\ttracker_gap(t, at);\n",
     "",
     [bats("dumps", "past the end")]),
    ("engine: a rewrite of the header is dropped", "strip/engine.c",
     "\tif (in_off + len <= same)\n\t\treturn rewrite_out(st, in_off, buf, len);",
     "\tif (0 && in_off + len <= same)\n\t\treturn rewrite_out(st, in_off, buf, len);",
     [bats("dumps", "past the end")]),
    # ---- issue 13's own ------------------------------------------------------
    ("engine: app-only strip writes every heap record's header", "strip/engine.c",
     "\tif (!jvm_convert(st) && !app_only(st))\n\t\temit_rec_header(st, c);",
     "\tif (!jvm_convert(st))\n\t\temit_rec_header(st, c);",
     [bats("apponly", "stays a 1.0.3 dump")]),
    ("engine: app-only strip never writes a held HEAP_DUMP_INFO", "strip/engine.c",
     "\tif (st->act != ACT_DROP)\n\t\temit_info(st, c);",
     "\tif (0)\n\t\temit_info(st, c);",
     [bats("apponly", "stays a 1.0.3 dump")]),
    ("engine: a held HEAP_DUMP_INFO is lost at a fallback", "strip/engine.c",
     "\tif (st->info_len && is_heap_tag(st->rec_tag) && st->rec_end != 0)",
     "\tif (0 && st->info_len && is_heap_tag(st->rec_tag) && st->rec_end != 0)",
     [bats("apponly", "unparseable bytes in the zygote heap")]),
    ("engine: app-only strip passes a dropped String's value field", "strip/engine.c",
     "\th = take(st, c, st->idsize, st->act);",
     "\th = take(st, c, st->idsize, ACT_PASS);",
     [bats("apponly", "keep-strings")]),
    ("shim: HPROFSTRIP_APP_ONLY is ignored", "preload/tracker.c",
     "\tif (kind == T_MAIN && policy()->app_only)\n\t\tcfg.flags |= HS_APP_ONLY;",
     "\tif (kind == T_MAIN && policy()->app_only)\n\t\t(void)0;",
     [bats("apponly", "every ART replay mode")]),
]


def sh(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def main():
    want = sys.argv[1:]
    todo = [m for m in MUTANTS if not want or any(w in m[0] for w in want)]
    shared = os.path.realpath(os.path.join(ROOT, "..", "shared"))
    work = tempfile.mkdtemp(prefix="hprofstrip-mutants.")
    tree = os.path.join(work, "main")
    os.symlink(shared, os.path.join(work, "shared"))
    files = sh(["git", "ls-files"], cwd=ROOT).stdout.split()
    for f in files:
        src = os.path.join(ROOT, f)
        if os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(tree, f)), exist_ok=True)
            shutil.copy2(src, os.path.join(tree, f))
    build = os.path.join(work, "build")
    env = dict((k, v) for k, v in os.environ.items()
               if not k.startswith("HPROFSTRIP_") and k != "LD_PRELOAD")
    env["BUILD"] = build
    targets = ["all", "%s/splitcheck" % build, "%s/oracle" % build,
               "%s/replay" % build, "%s/libreenter.so" % build,
               "%s/libfaultinject.so" % build, "%s/shimstress" % build,
               "%s/strcheck" % build]
    r = sh(["make", "-s", "BUILD=" + build] + targets, cwd=tree, env=env)
    if r.returncode:
        print(r.stdout)
        print("mutants: the unmutated tree does not build")
        return 1
    # every test must pass on the unmutated tree, or a failure proves nothing
    seen = set()
    for m in todo:
        for cmd in m[4]:
            if tuple(cmd) in seen:
                continue
            seen.add(tuple(cmd))
            r = sh(cmd, cwd=tree, env=env)
            if r.returncode:
                print(r.stdout[-3000:])
                print("mutants: fails without a mutant: %s" % " ".join(cmd))
                return 1
            if cmd[0] == "bats" and "\nok " not in "\n" + r.stdout:
                print("mutants: runs no test: %s" % " ".join(cmd))
                return 1
    caught = survived = broken = 0
    for name, path, old, new, tests in todo:
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
        else:
            verdict, why = "survived", ""
            for cmd in tests:
                r = sh(cmd, cwd=tree, env=env)
                if r.returncode:
                    verdict, why = "caught", " ".join(cmd)
                    break
        open(p, "w").write(orig)
        if verdict == "caught":
            caught += 1
        else:
            survived += 1
        print("%-9s %s  [%s, %.0fs]" % (verdict.upper(), name, why or
                                        " ".join(tests[0]), time.time() - t0))
        sys.stdout.flush()
    shutil.rmtree(work, ignore_errors=True)
    print("mutants: %d caught, %d survived%s" % (
        caught, survived, ", %d not applied" % broken if broken else ""))
    return 1 if survived or broken else 0


if __name__ == "__main__":
    sys.exit(main())
