/*
 * StringHeap: builds a small Java heap full of known java.lang.String
 * values, for the end-to-end tests of hprofstrip --keep-strings and
 * HPROFSTRIP_KEEP=strings (bats/strings.bats), then prints them or gets the
 * heap dumped. HeapJudge's "strings" command reads the same values back
 * from a dump and prints them in the same form, so for a dump of this heap
 * whose String contents survived,
 *
 *     java -cp DIR StringHeap expect   prints exactly what
 *     HeapJudge strings DUMP           prints.
 *
 *   java -cp DIR StringHeap expect          print the values (below); exit 0
 *   java -cp DIR StringHeap mxbean FILE     dump via HotSpotDiagnosticMXBean
 *                                           (live=true); exit 0
 *   java -cp DIR StringHeap oom             build, then allocate until
 *                                           OutOfMemoryError (run with
 *                                           -Xmx64m
 *                                           -XX:+HeapDumpOnOutOfMemoryError
 *                                           -XX:HeapDumpPath=FILE); exit 0
 *   java -cp DIR StringHeap wait [FILE]     print "pid N", then wait so that
 *                                           a test can run
 *                                           jcmd N GC.heap_dump DUMP: until
 *                                           FILE exists, or without FILE
 *                                           until stdin reaches EOF; at most
 *                                           120 s either way (exit 0)
 *
 * An argument seed=N anywhere after the mode (default 1) changes the UUID
 * and the strings built at run time; the output depends on nothing else.
 *
 * The heap, all reachable from static fields of StringHeap:
 *   - THREADS: three started daemon threads named "hs-worker-alpha",
 *     "hs-worker-beta" and "hs-worker-" GREEK SMALL LETTER GAMMA "amma" (not
 *     Latin-1: a UTF16 String), parked until the program ends
 *   - MAP: a HashMap<String,Integer> with five keys: two literals (interned
 *     by the VM when first used), three concatenated at run time (the
 *     JDK 9+ concatenation allocates the byte[] before its String), one of
 *     those UTF16
 *   - REF: a StringHeap$KeyedRef, a WeakReference<Object> with String fields
 *     key (UUID.nameUUIDFromBytes of the seed, where LeakCanary's
 *     KeyedWeakReference holds a random UUID) and description; its referent
 *     is held strongly by REFERENT
 *   - STATE: the enum constant StringHeap$State.STARTED (field Enum.name)
 *   - URL: a literal URL of 2069 chars; LONG_URL: a URL of about 6,000
 *     chars built at run time with a StringBuilder
 *
 * Output of "expect" (and of HeapJudge strings), one "KIND VALUE" line per
 * value, in this order:
 *   thread NAME            the names of the threads whose name starts with
 *                          "hs-", sorted (String.compareTo)
 *   map-key KEY            MAP's keys, sorted
 *   ref-key KEY            REF.key
 *   ref-description TEXT   REF.description
 *   enum NAME              STATE.name()
 *   url URL                URL, then LONG_URL
 * VALUE is escaped so that the lines are plain ASCII whatever the locale
 * (see escape below): a char from ' ' to '~' stands for itself, except the
 * backslash, written as two; any other char, NUL included, is a backslash,
 * 'u' and 4 lower-case hex digits, as in Java source. A String whose array
 * was zeroed reads as a run of escaped NULs of its length.
 *
 * Standard output carries only the documented lines; errors go to stderr
 * with exit status 1 (2 for usage errors). In "oom" mode the JVM prints its
 * own lines on stdout unless run with -XX:+DisplayVMOutputToStderr. The
 * MXBean (JDK 17) refuses a FILE that exists or does not end in ".hprof".
 */
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public final class StringHeap {
    static final String[] THREAD_NAMES = {
        "hs-worker-alpha", "hs-worker-beta", "hs-worker-\u03b3amma",
    };

    /** 2069 chars; javac folds the pieces into one constant, one literal. */
    static final String URL =
            "https://hprofstrip.example/api/v1/leaks/report?app=com.example.shop&buil"
            + "d=4711&frame0=com.example.shop.ui.CartActivity%24Holder.bind%28L3%29%3Ab"
            + "6589fc6ab0dc82c&frame1=com.example.shop.ui.CartActivity%24Holder.bind%28"
            + "L10%29%3A356a192b7913b04c&frame2=com.example.shop.ui.CartActivity%24Holde"
            + "r.bind%28L17%29%3Ada4b9237bacccdf1&frame3=com.example.shop.ui.CartActivit"
            + "y%24Holder.bind%28L24%29%3A77de68daecd823ba&frame4=com.example.shop.ui.Ca"
            + "rtActivity%24Holder.bind%28L31%29%3A1b6453892473a467&frame5=com.example.s"
            + "hop.ui.CartActivity%24Holder.bind%28L38%29%3Aac3478d69a3c81fa&frame6=com."
            + "example.shop.ui.CartActivity%24Holder.bind%28L45%29%3Ac1dfd96eea8cc2b6&fr"
            + "ame7=com.example.shop.ui.CartActivity%24Holder.bind%28L52%29%3A902ba3cda1"
            + "883801&frame8=com.example.shop.ui.CartActivity%24Holder.bind%28L59%29%3Af"
            + "e5dbbcea5ce7e29&frame9=com.example.shop.ui.CartActivity%24Holder.bind%28L"
            + "66%29%3A0ade7c2cf97f75d0&frame10=com.example.shop.ui.CartActivity%24Holde"
            + "r.bind%28L73%29%3Ab1d5781111d84f7b&frame11=com.example.shop.ui.CartActivi"
            + "ty%24Holder.bind%28L80%29%3A17ba0791499db908&frame12=com.example.shop.ui."
            + "CartActivity%24Holder.bind%28L87%29%3A7b52009b64fd0a2a&frame13=com.exampl"
            + "e.shop.ui.CartActivity%24Holder.bind%28L94%29%3Abd307a3ec329e10a&frame14="
            + "com.example.shop.ui.CartActivity%24Holder.bind%28L101%29%3Afa35e192121eab"
            + "f3&frame15=com.example.shop.ui.CartActivity%24Holder.bind%28L108%29%3Af1a"
            + "bd670358e036c&frame16=com.example.shop.ui.CartActivity%24Holder.bind%28L1"
            + "15%29%3A1574bddb75c78a6f&frame17=com.example.shop.ui.CartActivity%24Holde"
            + "r.bind%28L122%29%3A0716d9708d321ffb&frame18=com.example.shop.ui.CartActiv"
            + "ity%24Holder.bind%28L129%29%3A9e6a55b6b4563e65&frame19=com.example.shop.u"
            + "i.CartActivity%24Holder.bind%28L136%29%3Ab3f0c7f6bb763af1&frame20=com.exa"
            + "mple.shop.ui.CartActivity%24Holder.bind%28L143%29%3A91032ad7bbcb6cf7&fram"
            + "e21=com.example.shop.ui.CartActivity%24Holder.bind%28L150%29%3A472b07b9fc"
            + "f2c245&frame22=com.example.shop.ui.CartActivity%24Holder.bind%28L157%29%3"
            + "A12c6fc06c99a4623&frame23=com.example.shop.ui.CartActivity%24Holder.bind%"
            + "28L164%29%3Ad435a6cdd786300d";

    static Thread[] THREADS;
    static final HashMap<String, Integer> MAP = new HashMap<>();
    static KeyedRef REF;
    static Object REFERENT;
    static State STATE;
    static String LONG_URL;

    enum State { CREATED, STARTED, STOPPED }

    /** Like LeakCanary's KeyedWeakReference: a weak reference with a key. */
    static final class KeyedRef extends WeakReference<Object> {
        final String key;
        final String description;

        KeyedRef(Object referent, String key, String description) {
            super(referent);
            this.key = key;
            this.description = description;
        }
    }

    /** What KeyedRef watches: any object will do. */
    static final class Watched {
        final int id;

        Watched(int id) {
            this.id = id;
        }
    }

    static final String USAGE = "StringHeap expect | mxbean FILE | oom | wait [FILE]   [seed=N]";

    public static void main(String[] argv) {
        int[] opt = {1};
        List<String> args = HeapBuilder.Cli.args("StringHeap", USAGE, argv, "seed", opt);
        int seed = opt[0];
        try {
            switch (args.get(0)) {
            case "expect":
                HeapBuilder.Cli.expectArgs(USAGE, args, 1, 1);
                build(seed);
                System.out.print(expected());
                System.out.flush();
                break;
            case "mxbean":
                HeapBuilder.Cli.expectArgs(USAGE, args, 2, 2);
                build(seed);
                dump(args.get(1));
                break;
            case "oom":
                HeapBuilder.Cli.expectArgs(USAGE, args, 1, 1);
                build(seed);
                oom();
                break;
            case "wait":
                HeapBuilder.Cli.expectArgs(USAGE, args, 1, 2);
                build(seed);
                waitForTest(args.size() > 1 ? args.get(1) : null);
                break;
            default:
                HeapBuilder.Cli.usage(USAGE);
            }
        } catch (OutOfMemoryError | Exception e) {
            HeapBuilder.Cli.fail("StringHeap", e);
        }
        System.exit(0);
    }

    static void build(int seed) throws InterruptedException {
        // Threads, started and parked: their names are Thread.name.
        CountDownLatch running = new CountDownLatch(THREAD_NAMES.length);
        THREADS = new Thread[THREAD_NAMES.length];
        for (int i = 0; i < THREAD_NAMES.length; i++) {
            Thread t = new Thread(() -> {
                running.countDown();
                while (true) {
                    LockSupport.park();
                }
            }, THREAD_NAMES[i]);
            t.setDaemon(true);
            THREADS[i] = t;
            t.start();
        }
        running.await();

        // Map keys: literals, and concatenations of a value javac cannot
        // fold (the seed), so they are made at run time.
        MAP.put("session-id", 1);
        MAP.put("user.name", 2);
        MAP.put("cart-" + seed + "-items", 3);
        MAP.put("checkout/" + (seed * 7919) + "/total", 4);
        MAP.put("\u4e2d\u6587-key-" + seed, 5);

        // The keyed weak reference; UUID.toString fills a byte[] first.
        REFERENT = new Watched(seed);
        String key = UUID.nameUUIDFromBytes(
                ("hprofstrip-keyed-ref-" + seed).getBytes(StandardCharsets.UTF_8)).toString();
        REF = new KeyedRef(REFERENT, key, "com.example.shop.ui.CartActivity received"
                + " Activity#onDestroy() callback (seed " + seed + ")");

        STATE = State.STARTED;

        StringBuilder sb = new StringBuilder(6200);
        sb.append("https://cdn.hprofstrip.example/assets/bundle.js?v=").append(seed);
        for (int i = 0; sb.length() < 6000; i++) {
            sb.append("&chunk").append(i).append('=')
                    .append(Integer.toHexString((i + seed) * 0x9E3779B1));
        }
        LONG_URL = sb.toString();
    }

    /** The "expect" lines for the heap built. */
    static String expected() {
        StringBuilder out = new StringBuilder();
        List<String> names = new ArrayList<>();
        for (Thread t : THREADS) {
            if (t.getName().startsWith("hs-")) {
                names.add(t.getName());
            }
        }
        names.sort(null);
        for (String n : names) {
            line(out, "thread", n);
        }
        List<String> keys = new ArrayList<>(MAP.keySet());
        keys.sort(null);
        for (String k : keys) {
            line(out, "map-key", k);
        }
        line(out, "ref-key", REF.key);
        line(out, "ref-description", REF.description);
        line(out, "enum", STATE.name());
        line(out, "url", URL);
        line(out, "url", LONG_URL);
        return out.toString();
    }

    static void line(StringBuilder out, String kind, String value) {
        out.append(kind).append(' ').append(escape(value)).append('\n');
    }

    /** The escaping HeapJudge.escape does too: printable ASCII but the
     *  backslash as is, the backslash doubled, any other char as a
     *  backslash, 'u' and 4 lower-case hex digits. */
    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\') {
                b.append("\\\\");
            } else if (c >= ' ' && c <= '~') {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.toString();
    }

    static void dump(String file) throws IOException {
        HeapBuilder.dump(file);
    }

    /** Fills the heap with 1 MiB chunks until OutOfMemoryError (which makes
     *  -XX:+HeapDumpOnOutOfMemoryError write its dump), then lets them go. */
    static void oom() {
        HeapBuilder.oom("StringHeap");
    }

    static void waitForTest(String file) throws InterruptedException {
        HeapBuilder.waitFor("StringHeap", file);
    }
}
