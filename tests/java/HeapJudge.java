/*
 * HeapJudge: an independent reader of HPROF files for hprofstrip's tests,
 * built on VisualVM's heap library (Debian package visualvm, jar
 * org-graalvm-visualvm-lib-jfluid-heap.jar, which needs nothing else).
 *
 *   histo FILE              one line per class with instances, sorted by
 *                           name: "NAME COUNT TOTALSIZE"; then "roots N";
 *                           then "total-instances N total-bytes N"
 *   count FILE CLASSNAME    instance count of CLASSNAME (0 if absent)
 *   arrays FILE CLASSNAME   for a primitive array class ("byte[]"): the
 *                           array lengths as "LENGTH COUNT", by length
 *   markers FILE            "markers N" for HeapBuilder$Marker, then
 *                           "marker-array-length L COUNT" for the lengths of
 *                           the byte[] the markers reference, by length
 *                           ("marker-array-length null COUNT" for nulls)
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
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.graalvm.visualvm.lib.jfluid.heap.Heap;
import org.graalvm.visualvm.lib.jfluid.heap.HeapFactory;
import org.graalvm.visualvm.lib.jfluid.heap.Instance;
import org.graalvm.visualvm.lib.jfluid.heap.JavaClass;
import org.graalvm.visualvm.lib.jfluid.heap.PrimitiveArrayInstance;

public final class HeapJudge {
    static final String MARKER_CLASS = "HeapBuilder$Marker";
    static final String MARKER_FIELD = "data";

    public static void main(String[] args) {
        if (args.length < 2) {
            usage();
        }
        String cmd = args[0];
        int want;
        switch (cmd) {
        case "histo":
        case "markers":
            want = 2;
            break;
        case "count":
        case "arrays":
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
            case "count":
                out.append(count(heap, args[2])).append('\n');
                break;
            case "arrays":
                arrays(heap, args[2], out);
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

    static void usage() {
        System.err.println("usage: HeapJudge histo FILE | count FILE CLASSNAME"
                + " | arrays FILE CLASSNAME | markers FILE");
        System.exit(2);
    }

    static void fail(String msg) {
        System.err.println("HeapJudge: " + msg);
        System.exit(1);
    }
}
