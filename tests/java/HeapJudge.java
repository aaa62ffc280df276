/*
 * HeapJudge: an independent reader of HPROF files for hprofstrip's tests,
 * built on VisualVM's heap library (Debian package visualvm, jar
 * org-graalvm-visualvm-lib-jfluid-heap.jar, which needs nothing else).
 *
 *   histo FILE              one line per class with instances, sorted by
 *                           name: "NAME COUNT TOTALSIZE"; then "roots N";
 *                           then "total-instances N total-bytes N"
 *   jmap-histo FILE         the instance counts by class name, in jmap
 *                           -histo's form (the names hprofstrip --histo
 *                           prints): "NAME COUNT" for each name whose
 *                           classes have instances, sorted by name.
 *                           COUNT is getInstancesCount(), summed over the
 *                           classes of one name (one class per loader);
 *                           NAME is jmapName(getName()): java.lang.String,
 *                           [B for byte[], [Ljava.lang.Object; for
 *                           java.lang.Object[], [[I for int[][], and a
 *                           hidden class's "+0x..." as jmap's "/0x...".
 *                           Primitive arrays are the library's classes
 *                           byte[], int[]..., one per type.
 *   count FILE CLASSNAME    instance count of CLASSNAME (0 if absent)
 *   arrays FILE CLASSNAME   for a primitive array class ("byte[]"): the
 *                           array lengths as "LENGTH COUNT", by length
 *   markers FILE            "markers N" for HeapBuilder$Marker, then
 *                           "marker-array-length L COUNT" for the lengths of
 *                           the byte[] the markers reference, by length
 *                           ("marker-array-length null COUNT" for nulls)
 *   strings FILE            the String values that StringHeap builds, read
 *                           back, as "KIND VALUE" lines in the format and
 *                           order of "StringHeap expect" (see StringHeap.java):
 *                           names of the threads named "hs-...", sorted;
 *                           StringHeap.MAP's keys, sorted; each
 *                           StringHeap$KeyedRef's key and description;
 *                           StringHeap.STATE's Enum.name; StringHeap.URL and
 *                           StringHeap.LONG_URL. A String is decoded from its
 *                           value array: a char[] (JDK 8) as is; a byte[]
 *                           (JDK 9+ compact strings) by its coder field, 0
 *                           Latin-1, 1 UTF-16 in the byte order HotSpot keeps
 *                           it in memory (little-endian, the default; for
 *                           a big-endian VM's dump run judge.sh with
 *                           HEAPJUDGE_JAVA_OPTS=-Dheapjudge.utf16=big). A
 *                           zeroed array reads as NUL chars; a
 *                           missing value or a null String reads as
 *                           "<null>" (no escaping makes that from a String).
 *   long-strings FILE       for LongStrings' heap (tests/java/LongStrings.java):
 *                           "KIND LENGTH WHOLE TOTAL" for KIND k20, k64, c20
 *                           and c64, TOTAL the Strings in LongStrings.K20
 *                           (K64, C20, C64) and
 *                           WHOLE those that read back whole: exactly
 *                           LENGTH chars, starting "KIND-NNNNNN:" with
 *                           their index, ending "#" and the CRC-32 of the
 *                           chars before it (low byte, then high byte) in
 *                           8 lower-case hex digits. Decoded as for
 *                           strings. A String that fails the check (a
 *                           stripped one reads as NULs) is counted out,
 *                           not an error.
 *   refs FILE               the object graph, for comparing two dumps of
 *                           one heap: for each instance of a class outside
 *                           the runtime's packages (java., javax., jdk.,
 *                           sun., com.sun., android., dalvik., libcore.,
 *                           com.android., and arrays of those or of a
 *                           primitive), by class name then id, "CLASS ID
 *                           NAME=ID ..." (its reference fields,
 *                           superclasses' too, in the order the library
 *                           lists them) or for an object array "CLASS ID
 *                           [ID ...]"; then for such a class with static
 *                           reference fields "static CLASS NAME=ID ...";
 *                           ids in decimal, 0 for null, a dangling array
 *                           element as "?". Last, over every instance and
 *                           class of the heap, the runtime's too, the same
 *                           lines summed: "all instances N classes N
 *                           references N digest HEX" (HEX: the sum of each
 *                           line's first 8 SHA-256 bytes, so the order the
 *                           library walks in does not matter; only the
 *                           application's lines are kept in memory, to be
 *                           sorted). Primitive values are left out: two
 *                           dumps of the same heap whose values differ give
 *                           the same lines.
 *   bitmaps [--stream] ORIG RESTORED...
 *                           for a dump of BitmapHeap's heap
 *                           (tests/java/BitmapHeap.java) stripped with
 *                           bitmaps kept and restored: each RESTORED (a
 *                           1.0.2 dump; an Android one after hprofrestore
 *                           --jvm) against ORIG, the unstripped dump of a
 *                           heap built with the same bitmaps= and seed=.
 *                           A dump's bitmap arrays are the byte[] elements
 *                           of android.graphics.Bitmap.dumpData's buffers,
 *                           named "dumpdata[I]" (I the index), and each
 *                           Bitmap's mBuffer, named "mbuffer 0xPTR" (PTR
 *                           its mNativePtr): the names, not the ids, pair
 *                           RESTORED's arrays with ORIG's, so ORIG may come
 *                           from another run of the same heap. Checks: both
 *                           have the same names; each array of RESTORED has
 *                           ORIG's length and bytes; each dumpdata picture
 *                           decodes (PNG and JPEG with ImageIO, WEBP with
 *                           dwebp to a PNG, then ImageIO; the same bytes
 *                           decode once) to the pixels ORIG's decodes to,
 *                           and an mbuffer holds mWidth * mHeight * 4
 *                           bytes; every other primitive array of RESTORED
 *                           (any type) is all zeros. With --stream (a
 *                           one-pass strip, which may lose and over-keep):
 *                           a bitmap array all zeros in RESTORED is lost,
 *                           not a failure, and a byte[] that no bitmap
 *                           points at but that starts with a PNG, JPEG or
 *                           WEBP signature and holds the bytes of an array
 *                           of ORIG is a decoy kept, not a failure. Prints
 *                           one line per RESTORED: "bitmaps FILE kept K of
 *                           M dumpdata X of Y mbuffer U of V lost L decoys
 *                           D zeroed Z ids same|other" (Z: the other
 *                           primitive arrays, all zeros; ids same when each
 *                           array has ORIG's id). Any mismatch: a line on
 *                           stderr naming the file, the array's name and
 *                           id (at most 10 a file), exit status 1.
 *   fields FILE CLASSNAME   the primitive values of CLASSNAME: a line
 *                           "static NAME=VALUE" for each static field, by
 *                           name; then for each distinct set of instance
 *                           field values, "instances N NAME=VALUE ..."
 *                           (fields by name, superclasses' too; N the
 *                           instances holding them), sorted. VALUE as the
 *                           library gives it (String.valueOf's form).
 *
 * Exit status: 0 ok, 1 the file could not be read or parsed (one line on
 * stderr), 2 usage.
 *
 * Cache files: HeapFactory.createHeap(F) makes a directory F.hwcache next
 * to F (its mmapped index files *.map, *.ref, *.gc, dirty.lck and, once
 * nearest GC roots are computed, NBProfiler.nphd, which later runs load
 * instead of parsing F if F's HPROF timestamp matches). When that mkdir
 * fails it falls back to java.io.tmpdir. To leave nothing next to the dump
 * and never read a stale cache, HeapJudge links (or, failing that, copies)
 * F into a fresh private temporary directory, parses the link, and deletes
 * the directory on exit. Set HEAPJUDGE_TMPDIR to choose where that
 * directory goes (default java.io.tmpdir).
 */
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.graalvm.visualvm.lib.jfluid.heap.ArrayItemValue;
import org.graalvm.visualvm.lib.jfluid.heap.FieldValue;
import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.ObjectArrayInstance;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;

public final class HeapJudge {
    static final String MARKER_CLASS = "HeapBuilder$Marker";
    static final String MARKER_FIELD = "data";

    public static void main(String[] args) {
        if (args.length < 2) {
            usage();
        }
        String cmd = args[0];
        if (cmd.equals("bitmaps")) {
            System.exit(Bitmaps.main(args));
        }
        int want;
        switch (cmd) {
        case "histo":
        case "jmap-histo":
        case "markers":
        case "strings":
        case "long-strings":
        case "refs":
            want = 2;
            break;
        case "count":
        case "arrays":
        case "fields":
            want = 3;
            break;
        case "retained":
            want = args.length == 4 ? 4 : 3;
            break;
        case "biggest":
            want = 3;
            break;
        default:
            want = -1;
        }
        if (args.length != want) {
            usage();
        }
        File file = new File(args[1]);
        if (!file.isFile() || !file.canRead()) {
            fail(args[1] + ": not a readable file");
        }

        Path tmp = null;
        StringBuilder out = new StringBuilder();
        int status = 0;
        try {
            tmp = makeTempDir();
            Heap heap = HeapFactory.createHeap(stage(file, tmp).toFile());
            switch (cmd) {
            case "histo":
                histo(heap, out);
                break;
            case "jmap-histo":
                jmapHisto(heap, out);
                break;
            case "count":
                out.append(count(heap, args[2])).append('\n');
                break;
            case "arrays":
                arrays(heap, args[2], out);
                break;
            case "strings":
                strings(heap, out);
                break;
            case "long-strings":
                longStrings(heap, out);
                break;
            case "refs":
                refs(heap, out);
                break;
            case "fields":
                fields(heap, args[2], out);
                break;
            case "retained":
                retained(heap, args[2], args.length == 4
                        ? Integer.parseInt(args[3]) : 20, out);
                break;
            case "biggest":
                for (Instance i : heap.getBiggestObjectsByRetainedSize(
                        Integer.parseInt(args[2]))) {
                    out.append(String.format("0x%x %s %d%n", i.getInstanceId(),
                            i.getJavaClass().getName(), i.getRetainedSize()));
                }
                break;
            default:
                markers(heap, out);
                break;
            }
        } catch (Throwable t) {
            String msg = t.getMessage();
            StackTraceElement[] st = t.getStackTrace();
            System.err.println("HeapJudge: " + args[1] + ": " + t.getClass().getName()
                    + (msg == null ? "" : ": " + msg.replace('\n', ' '))
                    + (st.length == 0 ? "" : " (at " + st[0] + ")"));
            status = 1;
        } finally {
            if (tmp != null) {
                deleteTree(tmp);
            }
        }
        if (status == 0) {
            System.out.print(out);
            System.out.flush();
        }
        System.exit(status);
    }

    static void histo(Heap heap, StringBuilder out) {
        List<JavaClass> classes = new ArrayList<>();
        for (JavaClass jc : heap.getAllClasses()) {
            if (jc.getInstancesCount() > 0) {
                classes.add(jc);
            }
        }
        // Same-named classes (several loaders) are listed one by one, in a
        // stable order.
        classes.sort((a, b) -> {
            int c = a.getName().compareTo(b.getName());
            if (c == 0) {
                c = Integer.compare(a.getInstancesCount(), b.getInstancesCount());
            }
            if (c == 0) {
                c = Long.compare(a.getAllInstancesSize(), b.getAllInstancesSize());
            }
            return c;
        });
        long instances = 0;
        long bytes = 0;
        for (JavaClass jc : classes) {
            int n = jc.getInstancesCount();
            long size = jc.getAllInstancesSize();
            out.append(jc.getName()).append(' ').append(n).append(' ').append(size).append('\n');
            instances += n;
            bytes += size;
        }
        out.append("roots ").append(heap.getGCRoots().size()).append('\n');
        out.append("total-instances ").append(instances)
                .append(" total-bytes ").append(bytes).append('\n');
    }

    static void jmapHisto(Heap heap, StringBuilder out) {
        TreeMap<String, Long> byName = new TreeMap<>();
        for (JavaClass jc : heap.getAllClasses()) {
            int n = jc.getInstancesCount();
            if (n > 0) {
                byName.merge(jmapName(jc.getName()), (long) n, Long::sum);
            }
        }
        for (Map.Entry<String, Long> e : byName.entrySet()) {
            out.append(e.getKey()).append(' ').append(e.getValue()).append('\n');
        }
    }

    static final String PRIMITIVES = "boolean Z char C float F double D byte B short S int I long J";

    /** The library's class name (java.lang.String, byte[], a.B[][]) in
     *  jmap -histo's form (java.lang.String, [B, [[La.B;); a hidden
     *  class's "+0x" (its name in a HotSpot dump) as jmap's "/0x". */
    static String jmapName(String name) {
        int dims = 0;
        while (name.endsWith("[]")) {
            name = name.substring(0, name.length() - 2);
            dims++;
        }
        int hidden = name.lastIndexOf("+0x");
        if (hidden > 0) {
            name = name.substring(0, hidden) + "/" + name.substring(hidden + 1);
        }
        if (dims == 0) {
            return name;
        }
        String code = "L" + name + ";";
        String[] p = PRIMITIVES.split(" ");
        for (int i = 0; i < p.length; i += 2) {
            if (p[i].equals(name)) {
                code = p[i + 1];
            }
        }
        return "[".repeat(dims) + code;
    }

    static long count(Heap heap, String name) {
        long n = 0;
        for (JavaClass jc : classesNamed(heap, name)) {
            n += jc.getInstancesCount();
        }
        return n;
    }

    static void arrays(Heap heap, String name, StringBuilder out) {
        TreeMap<Integer, Long> lengths = new TreeMap<>();
        for (JavaClass jc : classesNamed(heap, name)) {
            for (Iterator<Instance> it = jc.getInstancesIterator(); it.hasNext();) {
                Instance inst = it.next();
                if (!(inst instanceof PrimitiveArrayInstance)) {
                    throw new IllegalArgumentException(name + " is not a primitive array class");
                }
                lengths.merge(((PrimitiveArrayInstance) inst).getLength(), 1L, Long::sum);
            }
        }
        for (Map.Entry<Integer, Long> e : lengths.entrySet()) {
            out.append(e.getKey()).append(' ').append(e.getValue()).append('\n');
        }
    }

    static void markers(Heap heap, StringBuilder out) {
        TreeMap<Integer, Long> lengths = new TreeMap<>();
        long markers = 0;
        long nulls = 0;
        for (JavaClass jc : classesNamed(heap, MARKER_CLASS)) {
            for (Iterator<Instance> it = jc.getInstancesIterator(); it.hasNext();) {
                Instance m = it.next();
                markers++;
                Object v = m.getValueOfField(MARKER_FIELD);
                if (v instanceof PrimitiveArrayInstance) {
                    lengths.merge(((PrimitiveArrayInstance) v).getLength(), 1L, Long::sum);
                } else if (v == null) {
                    nulls++;
                } else {
                    throw new IllegalStateException("marker " + m.getInstanceId()
                            + ": field " + MARKER_FIELD + " is " + v);
                }
            }
        }
        out.append("markers ").append(markers).append('\n');
        for (Map.Entry<Integer, Long> e : lengths.entrySet()) {
            out.append("marker-array-length ").append(e.getKey()).append(' ')
                    .append(e.getValue()).append('\n');
        }
        if (nulls > 0) {
            out.append("marker-array-length null ").append(nulls).append('\n');
        }
    }

    static final String STRING_HEAP = "StringHeap";

    static void strings(Heap heap, StringBuilder out) {
        // threads: every instance of java.lang.Thread or a subclass
        List<String> names = new ArrayList<>();
        for (JavaClass jc : heap.getAllClasses()) {
            if (!isSubclassOf(jc, "java.lang.Thread")) {
                continue;
            }
            for (Iterator<Instance> it = jc.getInstancesIterator(); it.hasNext();) {
                String name = javaString(it.next().getValueOfField("name"));
                if (name != null && name.startsWith("hs-")) {
                    names.add(name);
                }
            }
        }
        names.sort(null);
        for (String n : names) {
            line(out, "thread", n);
        }

        JavaClass main = onlyClass(heap, STRING_HEAP);
        // MAP: a HashMap's table of nodes, each with a chain of next nodes
        List<String> keys = new ArrayList<>();
        Instance map = instanceOf(main.getValueOfStaticField("MAP"), "StringHeap.MAP");
        Object table = map.getValueOfField("table");
        if (table instanceof ObjectArrayInstance) {
            for (Instance node : ((ObjectArrayInstance) table).getValues()) {
                for (int guard = 0; node != null; guard++) {
                    if (guard > 1_000_000) {
                        throw new IllegalStateException("StringHeap.MAP: a cycle of nodes");
                    }
                    keys.add(javaString(node.getValueOfField("key")));
                    node = (Instance) node.getValueOfField("next");
                }
            }
        }
        keys.sort(Comparator.nullsFirst(Comparator.<String>naturalOrder()));
        for (String k : keys) {
            line(out, "map-key", k);
        }

        for (JavaClass jc : classesNamed(heap, STRING_HEAP + "$KeyedRef")) {
            for (Iterator<Instance> it = jc.getInstancesIterator(); it.hasNext();) {
                Instance ref = it.next();
                line(out, "ref-key", javaString(ref.getValueOfField("key")));
                line(out, "ref-description", javaString(ref.getValueOfField("description")));
            }
        }

        Instance state = instanceOf(main.getValueOfStaticField("STATE"), "StringHeap.STATE");
        line(out, "enum", javaString(state.getValueOfField("name")));
        line(out, "url", javaString(main.getValueOfStaticField("URL")));
        line(out, "url", javaString(main.getValueOfStaticField("LONG_URL")));
    }

    static void longStrings(Heap heap, StringBuilder out) {
        JavaClass main = onlyClass(heap, "LongStrings");
        for (String kind : new String[] {"k20", "k64", "c20", "c64"}) {
            String field = kind.toUpperCase(java.util.Locale.ROOT);
            Object arr = main.getValueOfStaticField(field);
            if (!(arr instanceof ObjectArrayInstance)) {
                throw new IllegalStateException("LongStrings." + field + " is " + arr
                        + ", not an array");
            }
            List<Instance> values = ((ObjectArrayInstance) arr).getValues();
            int length = kind.endsWith("20") ? 20_000 : 65_536;
            long whole = 0;
            for (int i = 0; i < values.size(); i++) {
                if (wholeLong(javaString(values.get(i)), kind, i, length)) {
                    whole++;
                }
            }
            out.append(kind).append(' ').append(length).append(' ').append(whole)
                    .append(' ').append(values.size()).append('\n');
        }
    }

    /** LongStrings' check: s is kind-i of length chars, its CRC intact. */
    static boolean wholeLong(String s, String kind, int i, int length) {
        if (s == null || s.length() != length
                || !s.startsWith(String.format("%s-%06d:", kind, i))
                || s.charAt(length - 9) != '#') {
            return false;
        }
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        for (int k = 0; k < length - 9; k++) {
            char c = s.charAt(k);
            crc.update(c & 0xff);
            crc.update(c >>> 8);
        }
        return String.format("%08x", crc.getValue()).equals(s.substring(length - 8));
    }

    /** The runtime's own packages, the JDK's and Android's. */
    static final String[] RUNTIME_PACKAGES = {"java.", "javax.", "jdk.", "sun.", "com.sun.",
        "android.", "dalvik.", "libcore.", "com.android."};

    /** A class of the runtime's (or an array of them, or of a primitive). */
    static boolean isRuntimeClass(String name) {
        if (name.endsWith("[]")) {
            String e = name.substring(0, name.indexOf('['));
            if (e.indexOf('.') < 0 && Character.isLowerCase(e.charAt(0))) {
                return true;  // a primitive: boolean[], long[][]
            }
            name = e;
        }
        for (String p : RUNTIME_PACKAGES) {
            if (name.startsWith(p)) {
                return true;
            }
        }
        return false;
    }

    static boolean isRef(FieldValue v) {
        return v.getField().getType().getName().equals("object");
    }

    /** The graph's line of inst (without its class name). */
    static String refsOf(Instance inst) {
        StringBuilder b = new StringBuilder();
        b.append(inst.getInstanceId());
        if (inst instanceof ObjectArrayInstance) {
            b.append(" [");
            String sep = "";
            for (ArrayItemValue item : ((ObjectArrayInstance) inst).getItems()) {
                Instance e = item.getInstance();
                b.append(sep).append(e == null ? "?" : Long.toString(e.getInstanceId()));
                sep = " ";
            }
            b.append(']');
        } else if (!(inst instanceof PrimitiveArrayInstance)) {
            for (FieldValue v : inst.getFieldValues()) {
                if (isRef(v)) {
                    b.append(' ').append(v.getField().getName()).append('=').append(v.getValue());
                }
            }
        }
        return b.toString();
    }

    /** A class's static references, or null if it has none. */
    static String staticRefsOf(JavaClass jc) {
        StringBuilder b = new StringBuilder();
        for (FieldValue v : jc.getStaticFieldValues()) {
            if (isRef(v)) {
                b.append(' ').append(v.getField().getName()).append('=').append(v.getValue());
            }
        }
        return b.length() == 0 ? null : "static " + jc.getName() + b;
    }

    static void refs(Heap heap, StringBuilder out) throws NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        long digest = 0;
        long instances = 0;
        long classes = 0;
        long references = 0;
        TreeMap<String, TreeMap<Long, String>> app = new TreeMap<>();
        List<String> statics = new ArrayList<>();
        for (JavaClass jc : heap.getAllClasses()) {
            boolean mine = !isRuntimeClass(jc.getName());
            for (Iterator<Instance> it = jc.getInstancesIterator(); it.hasNext();) {
                Instance inst = it.next();
                String line = jc.getName() + ' ' + refsOf(inst);
                digest += first8(sha, line);
                instances++;
                references += inst instanceof ObjectArrayInstance
                        ? ((ObjectArrayInstance) inst).getLength()
                        : inst.getFieldValues().stream().filter(HeapJudge::isRef).count();
                if (mine) {
                    app.computeIfAbsent(jc.getName(), k -> new TreeMap<>())
                            .put(inst.getInstanceId(), line);
                }
            }
            String st = staticRefsOf(jc);
            classes++;
            if (st != null) {
                digest += first8(sha, st);
                if (mine) {
                    statics.add(st);
                }
            }
        }
        for (TreeMap<Long, String> byId : app.values()) {
            for (String line : byId.values()) {
                out.append(line).append('\n');
            }
        }
        statics.sort(null);
        for (String st : statics) {
            out.append(st).append('\n');
        }
        out.append("all instances ").append(instances).append(" classes ").append(classes)
                .append(" references ").append(references)
                .append(" digest ").append(String.format("%016x", digest)).append('\n');
    }

    static long first8(MessageDigest sha, String line) {
        byte[] h = sha.digest(line.getBytes(StandardCharsets.UTF_8));
        return ByteBuffer.wrap(h).getLong();
    }

    static void fields(Heap heap, String name, StringBuilder out) {
        JavaClass jc = onlyClass(heap, name);
        TreeMap<String, String> statics = new TreeMap<>();
        for (FieldValue v : jc.getStaticFieldValues()) {
            if (!isRef(v)) {
                statics.put(v.getField().getName(), v.getValue());
            }
        }
        for (Map.Entry<String, String> e : statics.entrySet()) {
            out.append("static ").append(e.getKey()).append('=').append(e.getValue()).append('\n');
        }
        TreeMap<String, Long> sets = new TreeMap<>();
        for (Iterator<Instance> it = jc.getInstancesIterator(); it.hasNext();) {
            TreeMap<String, String> values = new TreeMap<>();
            for (FieldValue v : it.next().getFieldValues()) {
                if (!isRef(v)) {
                    values.put(v.getField().getName(), v.getValue());
                }
            }
            StringBuilder b = new StringBuilder();
            for (Map.Entry<String, String> e : values.entrySet()) {
                b.append(' ').append(e.getKey()).append('=').append(e.getValue());
            }
            sets.merge(b.toString(), 1L, Long::sum);
        }
        for (Map.Entry<String, Long> e : sets.entrySet()) {
            out.append("instances ").append(e.getValue()).append(e.getKey()).append('\n');
        }
    }

    static boolean isSubclassOf(JavaClass jc, String name) {
        for (JavaClass c = jc; c != null; c = c.getSuperClass()) {
            if (c.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    static JavaClass onlyClass(Heap heap, String name) {
        List<JavaClass> found = classesNamed(heap, name);
        if (found.size() != 1) {
            throw new IllegalStateException(found.size() + " classes named " + name);
        }
        return found.get(0);
    }

    static Instance instanceOf(Object v, String what) {
        if (!(v instanceof Instance)) {
            throw new IllegalStateException(what + " is " + v + ", not an object");
        }
        return (Instance) v;
    }

    /** The chars of a java.lang.String instance, or null for a null
     *  reference or a String without a value array. */
    static String javaString(Object v) {
        if (v == null) {
            return null;
        }
        Instance s = instanceOf(v, "a String");
        if (!s.getJavaClass().getName().equals("java.lang.String")) {
            throw new IllegalStateException("object " + s.getInstanceId() + " is a "
                    + s.getJavaClass().getName() + ", not a java.lang.String");
        }
        Object value = s.getValueOfField("value");
        if (!(value instanceof PrimitiveArrayInstance)) {
            return null;
        }
        PrimitiveArrayInstance a = (PrimitiveArrayInstance) value;
        String type = a.getJavaClass().getName();
        List<String> elems = a.getValues();
        StringBuilder b = new StringBuilder(elems.size());
        if (type.equals("char[]")) {
            for (String e : elems) {
                b.append(e.charAt(0));
            }
            return b.toString();
        }
        if (!type.equals("byte[]")) {
            throw new IllegalStateException("String " + s.getInstanceId() + ": value is a " + type);
        }
        Object coder = s.getValueOfField("coder");
        int c = coder == null ? 0 : ((Number) coder).intValue();
        if (c == 0) {
            for (String e : elems) {
                b.append((char) (Byte.parseByte(e) & 0xff));
            }
        } else if (c == 1) {
            boolean big = "big".equals(System.getProperty("heapjudge.utf16"));
            for (int i = 0; i + 1 < elems.size(); i += 2) {
                int lo = Byte.parseByte(elems.get(big ? i + 1 : i)) & 0xff;
                int hi = Byte.parseByte(elems.get(big ? i : i + 1)) & 0xff;
                b.append((char) (hi << 8 | lo));
            }
        } else {
            throw new IllegalStateException("String " + s.getInstanceId() + ": coder " + c);
        }
        return b.toString();
    }

    static void line(StringBuilder out, String kind, String value) {
        out.append(kind).append(' ').append(show(value)).append('\n');
    }

    static String show(String value) {
        return value == null ? "<null>" : escape(value);
    }
    static String escape(String s) {
        return StringHeap.escape(s);
    }

    static List<JavaClass> classesNamed(Heap heap, String name) {
        List<JavaClass> found = new ArrayList<>();
        for (JavaClass jc : heap.getAllClasses()) {
            if (jc.getName().equals(name)) {
                found.add(jc);
            }
        }
        return found;
    }

    static Path makeTempDir() throws IOException {
        String base = System.getenv("HEAPJUDGE_TMPDIR");
        if (base != null && !base.isEmpty()) {
            return Files.createTempDirectory(Paths.get(base), "heapjudge");
        }
        return Files.createTempDirectory("heapjudge");
    }

    /** A path to the dump inside dir: a symlink, or a copy if links fail. */
    static Path stage(File file, Path dir) throws IOException {
        Path src = file.toPath().toAbsolutePath();
        Path link = dir.resolve("dump.hprof");
        try {
            Files.createSymbolicLink(link, src);
        } catch (IOException | UnsupportedOperationException e) {
            Files.copy(src, link, StandardCopyOption.REPLACE_EXISTING);
        }
        return link;
    }

    static void deleteTree(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<Path>() {
                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes a) throws IOException {
                    Files.deleteIfExists(f);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            System.err.println("HeapJudge: warning: could not remove " + dir + ": " + e);
        }
    }

    /** The bitmaps command (see the top comment). */
    static final class Bitmaps {
        static final String BITMAP = "android.graphics.Bitmap";
        static final int MAX_ERRORS = 10;

        final boolean stream;
        final Path tmp;
        /** ORIG's arrays by name, their bytes, and ORIG's pictures. */
        final TreeMap<String, byte[]> orig = new TreeMap<>();
        final TreeMap<String, Long> origIds = new TreeMap<>();
        /** SHA-256 (hex) of every byte[] of ORIG with an image signature. */
        final java.util.Set<String> origImages = new java.util.HashSet<>();
        /** A picture's pixels ("W H SHA") by its bytes' SHA-256. */
        final TreeMap<String, String> decoded = new TreeMap<>();
        final List<String> errors = new ArrayList<>();
        String file;

        Bitmaps(boolean stream, Path tmp) {
            this.stream = stream;
            this.tmp = tmp;
        }

        static int main(String[] args) {
            List<String> files = new ArrayList<>();
            boolean stream = false;
            for (int i = 1; i < args.length; i++) {
                if (args[i].equals("--stream")) {
                    stream = true;
                } else {
                    files.add(args[i]);
                }
            }
            if (files.size() < 2) {
                usage();
            }
            Path tmp = null;
            try {
                tmp = makeTempDir();
                Bitmaps b = new Bitmaps(stream, tmp);
                b.readOrig(new File(files.get(0)));
                int status = 0;
                for (String f : files.subList(1, files.size())) {
                    status |= b.judge(new File(f));
                }
                return status;
            } catch (Throwable t) {
                System.err.println("HeapJudge: bitmaps: " + t);
                return 1;
            } finally {
                if (tmp != null) {
                    deleteTree(tmp);
                }
            }
        }

        /** The dump in f, parsed from a fresh directory of its own. */
        Heap open(File f, String name) throws IOException {
            if (!f.isFile() || !f.canRead()) {
                throw new IOException(f + ": not a readable file");
            }
            Path dir = Files.createDirectory(tmp.resolve(name));
            return HeapFactory.createHeap(stage(f, dir).toFile());
        }

        void readOrig(File f) throws IOException, InterruptedException {
            file = f.getPath();
            Heap heap = open(f, "orig");
            TreeMap<String, PrimitiveArrayInstance> arrays = bitmapArrays(heap);
            for (Map.Entry<String, PrimitiveArrayInstance> e : arrays.entrySet()) {
                byte[] b = bytes(e.getValue());
                orig.put(e.getKey(), b);
                origIds.put(e.getKey(), e.getValue().getInstanceId());
                if (e.getKey().startsWith("dumpdata")) {
                    picture(b, e.getKey(), e.getValue().getInstanceId());
                }
            }
            if (!errors.isEmpty() || orig.isEmpty()) {
                throw new IllegalStateException(file + ": " + (orig.isEmpty()
                        ? "no bitmap arrays (not a dump of BitmapHeap's heap)" : errors.get(0)));
            }
            for (PrimitiveArrayInstance a : primitiveArrays(heap)) {
                if (a.getJavaClass().getName().equals("byte[]")) {
                    byte[] b = bytes(a);
                    if (signature(b) != null) {
                        origImages.add(sha(b));
                    }
                }
            }
        }

        /** Judges one RESTORED: 0, or 1 with its errors on stderr. */
        int judge(File f) throws IOException, InterruptedException {
            file = f.getPath();
            errors.clear();
            Heap heap = open(f, "r" + System.nanoTime());
            TreeMap<String, PrimitiveArrayInstance> arrays = bitmapArrays(heap);
            if (!arrays.keySet().equals(orig.keySet())) {
                error("other bitmaps than ORIG's: " + arrays.size() + " arrays, ORIG "
                        + orig.size() + " (not the same bitmaps= and seed=?)");
                return report(null);
            }
            long[] c = new long[6];  // kept, dumpdata kept, mbuffer kept, lost, decoys, zeroed
            boolean sameIds = true;
            java.util.Set<Long> mine = new java.util.HashSet<>();
            for (Map.Entry<String, PrimitiveArrayInstance> e : arrays.entrySet()) {
                long id = e.getValue().getInstanceId();
                mine.add(id);
                sameIds &= id == origIds.get(e.getKey());
                judgeArray(e.getKey(), id, bytes(e.getValue()), c);
            }
            for (PrimitiveArrayInstance a : primitiveArrays(heap)) {
                if (!mine.contains(a.getInstanceId())) {
                    judgeOther(a, c);
                }
            }
            long dd = orig.keySet().stream().filter(k -> k.startsWith("dumpdata")).count();
            return report(String.format("bitmaps %s kept %d of %d dumpdata %d of %d mbuffer %d of %d"
                    + " lost %d decoys %d zeroed %d ids %s", file, c[0], orig.size(), c[1], dd,
                    c[2], orig.size() - dd, c[3], c[4], c[5], sameIds ? "same" : "other"));
        }

        /** A bitmap array of RESTORED against ORIG's of the same name. */
        void judgeArray(String name, long id, byte[] got, long[] c)
                throws IOException, InterruptedException {
            byte[] want = orig.get(name);
            if (Arrays.equals(got, want)) {
                c[0]++;
                c[name.startsWith("dumpdata") ? 1 : 2]++;
                if (name.startsWith("dumpdata")
                        && !picture(got, name, id).equals(picture(want, name, id))) {
                    error("array " + id + " (" + name + "): other pixels than ORIG's");
                }
            } else if (stream && got.length == want.length && zero(got)) {
                c[3]++;
            } else {
                error("array " + id + " (" + name + "): " + got.length + " bytes, ORIG "
                        + want.length + (got.length == want.length
                        ? ", differing first at byte " + Arrays.mismatch(got, want) : ""));
            }
        }

        /** A primitive array no bitmap points at: zero, or (--stream) a decoy. */
        void judgeOther(PrimitiveArrayInstance a, long[] c) {
            String type = a.getJavaClass().getName();
            if (type.equals("byte[]")) {
                byte[] b = bytes(a);
                if (zero(b)) {
                    c[5]++;
                } else if (stream && signature(b) != null && origImages.contains(sha(b))) {
                    c[4]++;
                } else {
                    error("array " + a.getInstanceId() + " (byte[" + b.length
                            + "], no bitmap's) is not zero"
                            + (signature(b) == null ? "" : ": a " + signature(b)));
                }
                return;
            }
            for (String v : a.getValues()) {
                if (!(v.equals("0") || v.equals("0.0") || v.equals("false") || v.equals("\0"))) {
                    error("array " + a.getInstanceId() + " (" + type + ") is not zero: " + v);
                    return;
                }
            }
            c[5]++;
        }

        int report(String summary) {
            for (String e : errors.subList(0, Math.min(errors.size(), MAX_ERRORS))) {
                System.err.println("HeapJudge: bitmaps: " + file + ": " + e);
            }
            if (errors.size() > MAX_ERRORS) {
                System.err.println("HeapJudge: bitmaps: " + file + ": and "
                        + (errors.size() - MAX_ERRORS) + " more");
            }
            if (summary != null) {
                System.out.println(summary);
                System.out.flush();
            }
            return errors.isEmpty() ? 0 : 1;
        }

        void error(String msg) {
            errors.add(msg);
        }

        /** The dump's bitmap arrays by name (dumpdata[I], mbuffer 0xPTR). */
        TreeMap<String, PrimitiveArrayInstance> bitmapArrays(Heap heap) {
            TreeMap<String, PrimitiveArrayInstance> out = new TreeMap<>();
            JavaClass bm = onlyClass(heap, BITMAP);
            Object dd = bm.getValueOfStaticField("dumpData");
            if (dd instanceof Instance) {
                Object buffers = ((Instance) dd).getValueOfField("buffers");
                if (buffers instanceof ObjectArrayInstance) {
                    List<Instance> v = ((ObjectArrayInstance) buffers).getValues();
                    for (int i = 0; i < v.size(); i++) {
                        addByteArray(out, String.format("dumpdata[%03d]", i), v.get(i));
                    }
                }
            }
            for (Iterator<Instance> it = bm.getInstancesIterator(); it.hasNext();) {
                Instance b = it.next();
                Object buf = b.getValueOfField("mBuffer");
                String name = "mbuffer 0x" + Long.toHexString((Long) b.getValueOfField("mNativePtr"));
                if (addByteArray(out, name, buf)) {
                    int w = (Integer) b.getValueOfField("mWidth");
                    int h = (Integer) b.getValueOfField("mHeight");
                    if (out.get(name).getLength() != w * h * 4) {
                        error(name + ": " + out.get(name).getLength() + " bytes for "
                                + w + " x " + h + " pixels");
                    }
                }
            }
            return out;
        }

        boolean addByteArray(TreeMap<String, PrimitiveArrayInstance> out, String name, Object v) {
            if (v instanceof PrimitiveArrayInstance
                    && ((Instance) v).getJavaClass().getName().equals("byte[]")) {
                out.put(name, (PrimitiveArrayInstance) v);
                return true;
            }
            return false;
        }

        /** The dump's primitive arrays, the byte[] first (their errors
         *  are listed first). */
        static List<PrimitiveArrayInstance> primitiveArrays(Heap heap) {
            List<PrimitiveArrayInstance> out = new ArrayList<>();
            List<JavaClass> classes = new ArrayList<>(heap.getAllClasses());
            classes.sort(Comparator.comparing(jc -> !jc.getName().equals("byte[]")));
            for (JavaClass jc : classes) {
                if (!jc.isArray() || !isRuntimeClass(jc.getName())
                        || jc.getName().indexOf('.') >= 0 || jc.getName().endsWith("[][]")) {
                    continue;
                }
                for (Iterator<Instance> it = jc.getInstancesIterator(); it.hasNext();) {
                    Instance i = it.next();
                    if (i instanceof PrimitiveArrayInstance) {
                        out.add((PrimitiveArrayInstance) i);
                    }
                }
            }
            return out;
        }

        static byte[] bytes(PrimitiveArrayInstance a) {
            List<String> v = a.getValues();
            byte[] b = new byte[v.size()];
            for (int i = 0; i < b.length; i++) {
                b[i] = Byte.parseByte(v.get(i));
            }
            return b;
        }

        static boolean zero(byte[] b) {
            for (byte x : b) {
                if (x != 0) {
                    return false;
                }
            }
            return true;
        }

        /** "png", "jpeg" or "webp" by the first bytes, else null. */
        static String signature(byte[] b) {
            byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
            if (b.length >= 8 && Arrays.equals(Arrays.copyOf(b, 8), png)) {
                return "png";
            }
            if (b.length >= 3 && (b[0] & 0xff) == 0xFF && (b[1] & 0xff) == 0xD8
                    && (b[2] & 0xff) == 0xFF) {
                return "jpeg";
            }
            if (b.length >= 12
                    && new String(b, 0, 4, StandardCharsets.ISO_8859_1).equals("RIFF")
                    && new String(b, 8, 4, StandardCharsets.ISO_8859_1).equals("WEBP")) {
                return "webp";
            }
            return null;
        }

        /** The picture in b decoded: "W H SHA-256 of its ARGB pixels". */
        String picture(byte[] b, String name, long id) throws IOException, InterruptedException {
            String key = sha(b);
            String p = decoded.get(key);
            if (p == null) {
                p = decode(b);
                if (p == null) {
                    error("array " + id + " (" + name + "): no PNG, JPEG or WEBP that decodes");
                    p = "undecodable";
                }
                decoded.put(key, p);
            }
            return p;
        }

        String decode(byte[] b) throws IOException, InterruptedException {
            String kind = signature(b);
            if (kind == null) {
                return null;
            }
            java.awt.image.BufferedImage img;
            if (kind.equals("webp")) {
                Path in = tmp.resolve("p.webp");
                Path out = tmp.resolve("p.png");
                Files.write(in, b);
                Files.deleteIfExists(out);
                Process p = new ProcessBuilder("dwebp", "-quiet", in.toString(), "-o",
                        out.toString()).inheritIO().start();
                if (p.waitFor() != 0 || !Files.exists(out)) {
                    return null;
                }
                img = javax.imageio.ImageIO.read(out.toFile());
            } else {
                img = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(b));
            }
            if (img == null) {
                return null;
            }
            int w = img.getWidth();
            int h = img.getHeight();
            int[] px = img.getRGB(0, 0, w, h, null, 0, w);
            ByteBuffer bb = ByteBuffer.allocate(px.length * 4);
            bb.asIntBuffer().put(px);
            return kind + " " + w + " " + h + " " + sha(bb.array());
        }

        static String sha(byte[] b) {
            try {
                byte[] h = MessageDigest.getInstance("SHA-256").digest(b);
                StringBuilder s = new StringBuilder();
                for (byte x : h) {
                    s.append(String.format("%02x", x));
                }
                return s.toString();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /*
     * retained FILE TREE [N]: TREE is hprofstrip --suspects
     * --dominator-tree's file of FILE ("0xID 0xIDOM OBJECTS BYTES" a
     * line). For the N instances (not classes) of TREE with the most
     * retained bytes, by those bytes: "0xID CLASS vv=R ours=S path=L
     * root=0xROOT", R being VisualVM's getRetainedSize(), S the sum of
     * VisualVM's getSize() over the instances TREE says the object
     * dominates (itself too; VisualVM gives classes no size of their
     * own), L the steps of getNearestGCRootPointer() from the object to
     * its GC root ROOT. Equal R and S: the two dominator trees hold the
     * same objects under it, whatever either side's sizes are.
     */
    static void retained(Heap heap, String tree, int n, StringBuilder out)
            throws IOException {
        Map<Long, List<Long>> kids = new java.util.HashMap<>();
        List<long[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(tree))) {
            String[] f = line.trim().split(" ");
            if (f.length != 4) {
                fail(tree + ": not a dominator tree line: " + line);
            }
            long id = Long.parseUnsignedLong(f[0].substring(2), 16);
            long dom = Long.parseUnsignedLong(f[1].substring(2), 16);
            long bytes = Long.parseLong(f[3]);
            kids.computeIfAbsent(dom, k -> new ArrayList<>()).add(id);
            if (heap.getJavaClassByID(id) == null) {
                rows.add(new long[] { id, bytes });
            }
        }
        rows.sort((a, b) -> a[1] != b[1] ? Long.compare(b[1], a[1])
                : Long.compareUnsigned(a[0], b[0]));
        for (int r = 0; r < n && r < rows.size(); r++) {
            long id = rows.get(r)[0];
            Instance inst = heap.getInstanceByID(id);
            if (inst == null) {
                out.append(String.format("0x%x <none> vv=- ours=- path=- root=-%n", id));
                continue;
            }
            long sum = 0;
            ArrayList<Long> stack = new ArrayList<>();
            stack.add(id);
            while (!stack.isEmpty()) {
                long x = stack.remove(stack.size() - 1);
                Instance i = heap.getInstanceByID(x);
                if (i != null && heap.getJavaClassByID(x) == null) {
                    sum += i.getSize();
                }
                List<Long> k = kids.get(x);
                if (k != null) {
                    stack.addAll(k);
                }
            }
            int steps = 0;
            Instance p = inst;
            while (p != null && !p.isGCRoot() && steps < 100000) {
                p = p.getNearestGCRootPointer();
                steps++;
            }
            out.append(String.format("0x%x %s vv=%d ours=%d path=%s root=%s%n", id,
                    inst.getJavaClass().getName(), inst.getRetainedSize(), sum,
                    p == null ? "-" : Integer.toString(steps),
                    p == null ? "-" : String.format("0x%x", p.getInstanceId())));
        }
    }

    /*
     * biggest FILE N: VisualVM's N biggest objects by retained size,
     * "0xID CLASS RETAINED" a line (it computes every object's retained
     * size first: make bench times it against hprofstrip --suspects).
     */

    static void usage() {
        System.err.println("usage: HeapJudge histo FILE | jmap-histo FILE | count FILE CLASSNAME"
                + " | arrays FILE CLASSNAME | markers FILE | strings FILE | long-strings FILE"
                + " | refs FILE | fields FILE CLASSNAME | retained FILE TREE [N] | biggest FILE N"
                + " | bitmaps [--stream] ORIG RESTORED...");
        System.exit(2);
    }

    static void fail(String msg) {
        System.err.println("HeapJudge: " + msg);
        System.exit(1);
    }
}
