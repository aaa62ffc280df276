/*
 * HeapBuilder: builds a deterministic Java heap for hprofstrip's end-to-end
 * tests and benchmarks, then gets it dumped.
 *
 *   java -cp DIR HeapBuilder oom                 build, then allocate until
 *                                                OutOfMemoryError (run with
 *                                                -Xmx64m
 *                                                -XX:+HeapDumpOnOutOfMemoryError
 *                                                -XX:HeapDumpPath=FILE); exit 0
 *   java -cp DIR HeapBuilder mxbean FILE         dump via HotSpotDiagnosticMXBean
 *                                                (live=true); exit 0
 *   java -cp DIR HeapBuilder gc COUNT            build, then System.gc() COUNT
 *                                                times (run with
 *                                                -XX:+HeapDumpBeforeFullGC and
 *                                                -XX:+HeapDumpAfterFullGC); exit 0
 *   java -cp DIR HeapBuilder copy SRC DST FILE   copy the file SRC to DST with
 *                                                Files.copy (an uploader's copy
 *                                                of an older dump), then dump
 *                                                via the MXBean to FILE; exit 0
 *   java -cp DIR HeapBuilder wait [FILE]         print "pid N", then wait (see
 *                                                below) so a test can run
 *                                                jcmd N GC.heap_dump DUMP
 *   java -cp DIR HeapBuilder big SIZE_MB [FILE]  also build ~SIZE_MB of extra
 *                                                heap (70% large primitive
 *                                                arrays, 30% small linked
 *                                                objects); dump to FILE via the
 *                                                MXBean, or without FILE wait
 *                                                like "wait" (stdin EOF)
 *
 * Waiting: with a FILE argument, until FILE exists; without one, until
 * standard input reaches EOF. Either way at most 120 seconds (exit 0).
 * Run "wait" with a pipe on stdin (it returns at once on </dev/null).
 *
 * The marker count is N = 12345 unless set with -Dheapbuilder.markers=N or
 * an argument markers=N (anywhere after the mode).
 *
 * The heap, all reachable from the static field ROOT:
 *   - N instances of HeapBuilder$Marker {int id; byte[] data}; marker i has
 *     data.length == MARKER_LENGTHS[i % 12] and data[j] == (byte)(i + j + 1)
 *   - for each primitive type (boolean char float double byte short int
 *     long), one array of each length in PRIM_LENGTHS, non-zero contents
 *   - STRING_COUNT strings "hprofstrip-string-<i>" plus one non-Latin-1
 *     string
 *
 * Standard output carries only the documented "pid N" line; errors go to
 * stderr with exit status 1 (2 for usage errors). Beware: in "oom" mode the
 * JVM itself prints "java.lang.OutOfMemoryError: Java heap space" and
 * "Dumping heap to ..." on stdout; add -XX:+DisplayVMOutputToStderr to move
 * them to stderr. The MXBean (JDK 17) refuses a FILE that exists or does not
 * end in ".hprof". HotSpot writes -XX:+HeapDumpOnOutOfMemoryError and MXBean
 * dumps with mode 0600.
 */
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public final class HeapBuilder {
    /** Lengths of the byte[] each Marker references, cycling by marker id. */
    static final int[] MARKER_LENGTHS = {0, 1, 3, 8, 17, 64, 100, 255, 256, 1000, 1023, 4096};
    /** Lengths of the arrays made for each primitive type. */
    static final int[] PRIM_LENGTHS = {0, 1, 2, 7, 13, 1009, 65537};
    static final int STRING_COUNT = 100;
    static final int DEFAULT_MARKERS = 12345;
    static final long WAIT_CAP_MS = 120_000L;

    /** Everything built stays reachable from here. */
    static final List<Object> ROOT = new ArrayList<>();
    static Marker[] markers;
    /** The oom mode's filler, so the dump shows it too. */
    static final List<byte[]> FILLER = new ArrayList<>();

    static final class Marker {
        final int id;
        final byte[] data;

        Marker(int id, byte[] data) {
            this.id = id;
            this.data = data;
        }
    }

    /** A small object for the "big" mode: references within its bucket. */
    static final class Node {
        Node next;
        Object payload;
        int value;
    }

    static final String USAGE = "HeapBuilder oom | mxbean FILE | copy SRC DST FILE"
            + " | gc COUNT | wait [FILE] | big SIZE_MB [FILE]   [markers=N]";

    public static void main(String[] argv) {
        int[] opt = {Integer.getInteger("heapbuilder.markers", DEFAULT_MARKERS)};
        List<String> args = Cli.args("HeapBuilder", USAGE, argv, "markers", opt);
        int n = opt[0];
        try {
            switch (args.get(0)) {
            case "oom":
                Cli.expectArgs(USAGE, args, 1, 1);
                build(n);
                oom();
                break;
            case "mxbean":
                Cli.expectArgs(USAGE, args, 2, 2);
                build(n);
                dump(args.get(1));
                break;
            case "copy":
                Cli.expectArgs(USAGE, args, 4, 4);
                java.nio.file.Files.copy(java.nio.file.Paths.get(args.get(1)),
                        java.nio.file.Paths.get(args.get(2)));
                build(n);
                dump(args.get(3));
                break;
            case "gc": {
                Cli.expectArgs(USAGE, args, 2, 2);
                int count = parseInt(args.get(1), "COUNT");
                build(n);
                for (int i = 0; i < count; i++) {
                    System.gc();
                }
                break;
            }
            case "wait":
                Cli.expectArgs(USAGE, args, 1, 2);
                build(n);
                waitForTest(args.size() > 1 ? args.get(1) : null);
                break;
            case "big": {
                Cli.expectArgs(USAGE, args, 2, 3);
                long mb = parseInt(args.get(1), "SIZE_MB");
                build(n);
                buildBig(mb * 1024 * 1024);
                if (args.size() > 2) {
                    dump(args.get(2));
                } else {
                    waitForTest(null);
                }
                break;
            }
            default:
                Cli.usage(USAGE);
            }
        } catch (OutOfMemoryError | Exception e) {
            Cli.fail("HeapBuilder", e);
        }
        System.exit(0);
    }

    static void build(int n) {
        markers = new Marker[n];
        for (int i = 0; i < n; i++) {
            byte[] data = new byte[MARKER_LENGTHS[i % MARKER_LENGTHS.length]];
            for (int j = 0; j < data.length; j++) {
                data[j] = (byte) (i + j + 1);
            }
            markers[i] = new Marker(i, data);
        }
        ROOT.add(markers);

        for (int len : PRIM_LENGTHS) {
            boolean[] z = new boolean[len];
            char[] c = new char[len];
            float[] f = new float[len];
            double[] d = new double[len];
            byte[] b = new byte[len];
            short[] s = new short[len];
            int[] in = new int[len];
            long[] l = new long[len];
            for (int j = 0; j < len; j++) {
                z[j] = (j % 3) != 0;
                c[j] = (char) ('A' + j % 26);
                f[j] = j + 0.5f;
                d[j] = j * 1.25 + 1;
                b[j] = (byte) (j * 7 + 1);
                s[j] = (short) (j * 31 + 1);
                in[j] = j * 1_000_003 + 1;
                l[j] = j * 0x1_0000_0001L + 1;
            }
            ROOT.add(z);
            ROOT.add(c);
            ROOT.add(f);
            ROOT.add(d);
            ROOT.add(b);
            ROOT.add(s);
            ROOT.add(in);
            ROOT.add(l);
        }

        String[] strings = new String[STRING_COUNT + 1];
        for (int i = 0; i < STRING_COUNT; i++) {
            strings[i] = new String("hprofstrip-string-" + i);
        }
        strings[STRING_COUNT] = "hprofstrip \u00e9\u4e2d\u6587 \u03b1\u03b2\u03b3 utf16";
        ROOT.add(strings);
    }

    /** Fills the heap with 1 MiB chunks until the JVM throws OutOfMemoryError
     *  (which makes -XX:+HeapDumpOnOutOfMemoryError write its dump), then
     *  lets the chunks go and returns. */
    static void oom() {
        oom("HeapBuilder");
    }

    /** oom for the program who (for its message): StringHeap's too. */
    static void oom(String who) {
        try {
            while (true) {
                FILLER.add(new byte[1 << 20]);
            }
        } catch (OutOfMemoryError expected) {
            int chunks = FILLER.size();
            FILLER.clear();
            System.err.println(who + ": OutOfMemoryError after " + chunks + " MiB chunks");
        }
    }

    /** About target bytes more: 70% large primitive arrays, 30% small objects. */
    static void buildBig(long target) {
        long large = target * 7 / 10;
        long rng = 0x9E3779B97F4A7C15L;
        List<Object> arrays = new ArrayList<>();
        long done = 0;
        int k = 0;
        while (done < large) {
            int bytes = (int) Math.min(large - done, (1 + k % 4) << 20);
            switch (k % 4) {
            case 0: {
                byte[] a = new byte[bytes];
                for (int j = 0; j < a.length; j++) {
                    rng = xorshift(rng);
                    a[j] = (byte) rng;
                }
                arrays.add(a);
                break;
            }
            case 1: {
                int[] a = new int[bytes / 4];
                for (int j = 0; j < a.length; j++) {
                    rng = xorshift(rng);
                    a[j] = (int) (rng & 0xffff); // half the bytes are zero
                }
                arrays.add(a);
                break;
            }
            case 2: {
                long[] a = new long[bytes / 8];
                for (int j = 0; j < a.length; j++) {
                    rng = xorshift(rng);
                    a[j] = rng;
                }
                arrays.add(a);
                break;
            }
            default: {
                char[] a = new char[bytes / 2];
                for (int j = 0; j < a.length; j++) {
                    a[j] = (char) ('a' + j % 26);
                }
                arrays.add(a);
                break;
            }
            }
            done += bytes;
            k++;
        }
        ROOT.add(arrays);

        // Small objects, in buckets of 1024 nodes linked to each other;
        // sizes estimated for a 64-bit VM with compressed oops.
        long small = target - large;
        List<Node[]> buckets = new ArrayList<>();
        long used = 0;
        int i = 0;
        Node[] bucket = null;
        while (used < small) {
            if (i % 1024 == 0) {
                bucket = new Node[1024];
                buckets.add(bucket);
                used += 16 + 4L * 1024;
            }
            Node node = new Node();
            node.value = i;
            used += 24;
            if (i % 4 == 0) {
                byte[] p = new byte[8 + (i % 57)];
                p[0] = (byte) i;
                node.payload = p;
                used += (16 + p.length + 7) & ~7;
            } else if (i % 16 == 1) {
                node.payload = "node-" + i;
                used += 24 + ((16 + 6 + 10 + 7) & ~7);
            }
            int slot = i % 1024;
            bucket[slot] = node;
            if (slot > 0) {
                node.next = bucket[slot - 1];
            }
            i++;
        }
        ROOT.add(buckets);
    }

    static long xorshift(long x) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
        return x;
    }

    static void dump(String file) throws IOException {
        com.sun.management.HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                com.sun.management.HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(file, true);
    }

    /** Prints "pid N", then waits for file to exist (when given) or for EOF
     *  on stdin, at most WAIT_CAP_MS. */
    static void waitForTest(String file) throws InterruptedException {
        waitFor("HeapBuilder", file);
    }

    /** waitForTest for the program who (for its message); StringHeap and
     *  LongStrings wait so too. */
    static void waitFor(String who, String file) throws InterruptedException {
        System.out.println("pid " + ProcessHandle.current().pid());
        System.out.flush();
        long deadline = System.nanoTime() + WAIT_CAP_MS * 1_000_000L;
        final boolean[] eof = {false};
        if (file == null) {
            Thread reader = new Thread(() -> {
                byte[] buf = new byte[4096];
                InputStream in = System.in;
                try {
                    while (in.read(buf) >= 0) {
                        // discard
                    }
                } catch (IOException ignored) {
                    // treat like EOF
                }
                synchronized (eof) {
                    eof[0] = true;
                    eof.notifyAll();
                }
            }, "stdin-eof");
            reader.setDaemon(true);
            reader.start();
        }
        File f = file == null ? null : new File(file);
        synchronized (eof) {
            while (true) {
                if (f != null ? f.exists() : eof[0]) {
                    return;
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    System.err.println(who + ": wait: gave up after "
                            + WAIT_CAP_MS / 1000 + " s");
                    return;
                }
                eof.wait(Math.min(left, 50));
            }
        }
    }

    static int parseInt(String s, String what) {
        return Cli.parseInt("HeapBuilder", s, what);
    }

    /**
     * The command line and the end of HeapBuilder, StringHeap and
     * LongStrings: who is the program, for its messages. A class of its own,
     * with no state, so that StringHeap parses its arguments before it
     * builds its heap without making HeapBuilder's statics first.
     */
    static final class Cli {
        private Cli() {
        }

        /** A count >= 0, or exit 2. */
        static int parseInt(String who, String s, String what) {
            try {
                int v = Integer.parseInt(s);
                if (v < 0) {
                    throw new NumberFormatException();
                }
                return v;
            } catch (NumberFormatException e) {
                System.err.println(who + ": bad " + what + ": " + s);
                System.exit(2);
                return 0;
            }
        }

        /** argv less its KEY=N options (after the first word): the mode
         *  and its arguments; the last N (a count, or exit 2) into
         *  value[0]. No mode: usage (exit 2). */
        static List<String> args(String who, String usage, String[] argv,
                String key, int[] value) {
            List<String> args = new ArrayList<>();
            for (int i = 0; i < argv.length; i++) {
                if (i > 0 && argv[i].startsWith(key + "=")) {
                    value[0] = parseInt(who, argv[i].substring(key.length() + 1), key);
                } else {
                    args.add(argv[i]);
                }
            }
            if (args.isEmpty()) {
                usage(usage);
            }
            return args;
        }

        /** From min to max arguments, the mode included, or usage. */
        static void expectArgs(String usage, List<String> args, int min, int max) {
            if (args.size() < min || args.size() > max) {
                usage(usage);
            }
        }

        static void usage(String usage) {
            System.err.println("usage: " + usage);
            System.exit(2);
        }

        /** The end after e (main's catch): one line, exit 1. */
        static void fail(String who, Throwable e) {
            die(who, e instanceof OutOfMemoryError
                    ? "out of memory while building the heap (raise -Xmx): " + e
                    : e.toString());
        }

        static void die(String who, String msg) {
            System.err.println(who + ": " + msg);
            System.exit(1);
        }
    }
}
