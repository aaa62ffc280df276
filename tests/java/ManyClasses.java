/*
 * ManyClasses: a heap with as many classes as a JDK can have. It loads
 * every class file of every module of the running JDK (jrt:/modules)
 * without initializing it, keeps the classes, and dumps its heap:
 *
 *   java -cp "$BUILD/java" ManyClasses FILE
 *
 * prints "loaded N of M class files". JDK 17 loads about 24,000 of
 * 26,500, and its dump lists some 29,500 names with the runtime's
 * prefixes: what the redaction's fixed tables must hold (hprof.h:
 * HS_REDACT_CLASSES, HS_REDACT_FW).
 */
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

public class ManyClasses {
    public static void main(String[] args) throws Exception {
        FileSystem jrt = FileSystems.getFileSystem(URI.create("jrt:/"));
        List<Class<?>> kept = new ArrayList<>();
        ClassLoader loader = ClassLoader.getSystemClassLoader();
        int files = 0;
        try (Stream<Path> s = Files.walk(jrt.getPath("/modules"))) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String n = p.toString();
                if (!n.endsWith(".class") || n.endsWith("module-info.class"))
                    continue;
                // /modules/MODULE/pkg/Name.class -> pkg.Name
                String c = n.substring(n.indexOf('/', "/modules/".length()) + 1,
                                       n.length() - ".class".length());
                files++;
                try {
                    kept.add(Class.forName(c.replace('/', '.'), false, loader));
                } catch (Throwable t) {
                    // not loadable here (a missing optional module): skipped
                }
            }
        }
        System.out.println("loaded " + kept.size() + " of " + files + " class files");
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
            .dumpHeap(args[0], true);
        if (kept.isEmpty())
            System.exit(1);
    }
}
