/*
 * Sizes: builds a Java heap holding an instance of each class whose sizes
 * the values level keeps (strip/engine/redaction.md: "What the values level keeps"), with
 * known sizes and other values beside them, for bats/redact.bats.
 *
 *   java -cp DIR Sizes expect        print the sizes the heap holds, one
 *                                    "CLASS FIELD=VALUE" line each, as
 *                                    "HeapJudge fields" writes a field;
 *                                    exit 0
 *   java -cp DIR Sizes dump FILE     build, then dump via
 *                                    HotSpotDiagnosticMXBean (live=true)
 *                                    to FILE; exit 0
 *
 * The heap, reachable from Sizes.HELD:
 *   - stand-ins of Android's classes, defined by this test under the same
 *     names (tests/java/libcore/util, tests/java/android/graphics):
 *     libcore.util.NativeAllocationRegistry (size 50099, freeFunction a
 *     pointer), android.graphics.Bitmap (640 x 480, mNativePtr, mDensity);
 *   - the JDK's own: a direct ByteBuffer of 12345 bytes and a heap one of
 *     4321, each with its position and limit moved; an ArrayList,
 *     LinkedList, Vector, PriorityQueue, HashMap, Hashtable,
 *     IdentityHashMap, WeakHashMap, TreeMap, ConcurrentHashMap and
 *     LinkedBlockingDeque, each of its own count of elements (3 to 13);
 *     ThreadLocals set in the main thread (its ThreadLocalMap); a subList
 *     of the ArrayList (java.util.ArrayList$SubList, not listed: its size
 *     goes);
 *   - Sizes$Cache, an application's HashMap of 3 entries with an int of its
 *     own (hits: goes), and Sizes$Box, an application's class whose int
 *     fields are named size and capacity (they go: only the runtime's
 *     classes are listed).
 * Every value that must go is not zero here, so that a dump that kept it
 * shows it.
 *
 * Errors go to stderr with exit status 1 (2 for usage errors). The MXBean
 * (JDK 17) refuses a FILE that exists or does not end in ".hprof".
 */
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.IdentityHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeMap;
import java.util.Vector;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingDeque;

import android.graphics.Bitmap;
import libcore.util.NativeAllocationRegistry;

public final class Sizes {
    /** An application's map: its inherited size stays, hits goes. */
    static final class Cache extends HashMap<String, Integer> {
        private static final long serialVersionUID = 1L;
        int hits = 0x5EC0DE;
    }

    /** An application's fields named as the listed ones: they go. */
    static final class Box {
        int size = 0x51CE;
        int capacity = 0xCA9A;
    }

    static final List<Object> HELD = new ArrayList<>();
    static final List<String> EXPECT = new ArrayList<>();
    static final ThreadLocal<String> LOCAL_A = new ThreadLocal<>();
    static final ThreadLocal<String> LOCAL_B = new ThreadLocal<>();

    static void hold(Object o, String cls, String field, long value) {
        HELD.add(o);
        EXPECT.add(cls + " " + field + "=" + value);
    }

    static void build() {
        hold(new NativeAllocationRegistry(Sizes.class.getClassLoader(),
                0x7F1122334455L, 50099), "libcore.util.NativeAllocationRegistry",
                "size", 50099);
        Bitmap bitmap = new Bitmap(0x7F00DEAD0000L, 640, 480, 160);
        hold(bitmap, "android.graphics.Bitmap", "mWidth", 640);
        EXPECT.add("android.graphics.Bitmap mHeight=480");
        ByteBuffer direct = ByteBuffer.allocateDirect(12345);
        direct.position(17).limit(100);
        hold(direct, "java.nio.DirectByteBuffer", "capacity", 12345);
        ByteBuffer heap = ByteBuffer.allocate(4321);
        heap.position(19).limit(200);
        hold(heap, "java.nio.HeapByteBuffer", "capacity", 4321);
        ArrayList<Integer> list = fill(new ArrayList<Integer>(), 3);
        hold(list, "java.util.ArrayList", "size", 3);
        // a class whose name starts as a listed one's: its size goes
        HELD.add(list.subList(1, 3));
        hold(fill(new LinkedList<Integer>(), 4), "java.util.LinkedList", "size", 4);
        hold(fill(new Vector<Integer>(), 5), "java.util.Vector", "elementCount", 5);
        hold(fill(new PriorityQueue<Integer>(), 6), "java.util.PriorityQueue", "size", 6);
        hold(map(new HashMap<>(), 7), "java.util.HashMap", "size", 7);
        hold(map(new Hashtable<>(), 8), "java.util.Hashtable", "count", 8);
        hold(map(new IdentityHashMap<>(), 9), "java.util.IdentityHashMap", "size", 9);
        hold(map(new WeakHashMap<>(), 10), "java.util.WeakHashMap", "size", 10);
        hold(map(new TreeMap<>(), 11), "java.util.TreeMap", "size", 11);
        hold(map(new ConcurrentHashMap<>(), 12), "java.util.concurrent.ConcurrentHashMap",
                "baseCount", 12);
        hold(fill(new LinkedBlockingDeque<Integer>(1000), 13),
                "java.util.concurrent.LinkedBlockingDeque", "count", 13);
        Cache cache = new Cache();
        map(cache, 3);
        hold(cache, "Sizes$Cache", "size", 3);
        HELD.add(new Box());
        LOCAL_A.set("a");
        LOCAL_B.set("b");
    }

    static <C extends java.util.Collection<Integer>> C fill(C c, int n) {
        for (int i = 0; i < n; i++) {
            c.add(1000 + i);
        }
        return c;
    }

    /** n entries; the keys are held (HELD), so a WeakHashMap keeps them. */
    static <M extends java.util.Map<String, Integer>> M map(M m, int n) {
        for (int i = 0; i < n; i++) {
            String k = "k" + n + "-" + i;
            HELD.add(k);
            m.put(k, i);
        }
        return m;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("expect")) {
            build();
            for (String line : EXPECT) {
                System.out.println(line);
            }
            return;
        }
        if (args.length != 2 || !args[0].equals("dump")) {
            System.err.println("usage: Sizes expect | Sizes dump FILE");
            System.exit(2);
        }
        build();
        com.sun.management.HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(
                com.sun.management.HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[1], true);
        // what the dump holds stays reachable until it is written
        System.err.println("Sizes: dumped " + HELD.size() + " objects' heap, "
                + LOCAL_A.get() + LOCAL_B.get());
    }
}
