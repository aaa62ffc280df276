/*
 * Secrets: builds a small Java heap holding known secret values, for the
 * end-to-end tests of hprofstrip --redact and HPROFSTRIP_REDACT=values
 * (bats/redact.bats), then prints them or gets the heap dumped. Its
 * application's names are secrets too, for the names level (--redact=names,
 * HPROFSTRIP_REDACT=names).
 *
 *   java -cp DIR Secrets expect            print the secrets' byte patterns
 *                                          (below); exit 0
 *   java -cp DIR Secrets fields            print what "HeapJudge fields
 *                                          DUMP com.acme.secret.Customer"
 *                                          prints for an unredacted dump of
 *                                          this heap (below); exit 0
 *   java -cp DIR Secrets names             print the application's names
 *                                          that a dump of this heap holds
 *                                          and the names level must hide
 *                                          (below); exit 0
 *   java -cp DIR Secrets literals          print the secret parts of the
 *                                          literals the names level must
 *                                          tokenize (below); exit 0
 *   java -cp DIR Secrets dump FILE...      build, then dump via
 *                                          HotSpotDiagnosticMXBean
 *                                          (live=true) to each FILE in turn,
 *                                          all of the one heap; exit 0
 *
 * The heap, reachable from static fields of Secrets:
 *   - CUSTOMERS: CUSTOMER_COUNT instances of com.acme.secret.Customer
 *     (tests/java/com/acme/secret/Customer.java), each holding the same
 *     long cardNumber, int pin, double balance and booleans isAdmin and vip
 *     (true), and a reference, referrer: customer i > 0 was referred by
 *     customer (i - 1) / 2, customer 0 by nobody (null). Customer's static
 *     long KEY is the class's.
 *   - WORKER: a started daemon thread named "payments-worker", parked until
 *     the program ends. Its name is joined at run time from THREAD_WORDS,
 *     so that no String literal in the heap holds it whole.
 *   - LITERALS: String literals (symbols in a HotSpot dump) that start as
 *     the runtime's names do, or are shaped like them, and hold a secret
 *     part: markup, '=' and ':' after a runtime class name, a descriptor
 *     with a space or of an application class, tabs and newlines, a
 *     runtime class name longer than the 256 bytes a writer decides on.
 *     javac folds each "..." + CONSTANT into one literal, as it would a
 *     password constant joined to a property name.
 *
 * The expected output is read from the classes by reflection (or from the
 * constants the heap is built with), never written twice: the tests scan
 * for what the program holds.
 *
 * Output of "expect": one "NAME HEX" line for each primitive field of
 * Customer that is not a boolean (a boolean's one byte is no pattern), in
 * the order of their names: the field's name and its value's bytes as a
 * dump holds them (big-endian), in lower-case hex, as tests/find-bytes
 * takes them. The static KEY included.
 *
 * Output of "fields", the format of HeapJudge fields: for each primitive
 * static field of Customer, by name, "static NAME=VALUE"; then for each
 * distinct set of primitive instance field values, "instances N
 * NAME=VALUE ..." with the fields by name, N the instances holding them.
 * VALUE is the value as String.valueOf writes it (what VisualVM's heap
 * library gives for a field).
 *
 * Output of "names": one "NAME HEX" line per name, NAME the text and HEX
 * its bytes (UTF-8, as a dump's STRING records hold names) as
 * tests/find-bytes takes them, in this order: Customer's class name as the
 * JVM writes it (com/acme/secret/Customer: the dump's names), as Java
 * writes it (com.acme.secret.Customer: only Strings hold it, the Class
 * object's name, which stripping removes with every String's contents),
 * its simple name; then the names of Customer's and Secrets' fields, by
 * name, and THREAD_WORDS, the String literals of the thread's name (a
 * HotSpot dump holds every symbol of the VM: literals too). Of the fields
 * and words only those of 8 characters or more: a shorter one may be a
 * part of a name the runtime keeps ("pin" of "spin") or of a token, whose
 * letters are a hash's (a 1.6 MB map of tokens holds each 4-letter word a
 * few times by chance, an 8-letter one once in ~10^5 dumps).
 *
 * "hold N DIR FILE" builds the heap, opens N files DIR/hold<i>.hprof for
 * writing (FileOutputStream: created, truncated) and keeps them open while
 * it dumps the heap to FILE; then prints "dumped" or "failed: MESSAGE"
 * (the MXBean's IOException), closes them and exits 0. Under the shim
 * the held files take its dump slots, so FILE is a dump it cannot
 * strip.
 *
 * Output of "literals": one "PART HEX" line per secret part of LITERALS
 * (SECRET_PARTS), in that order, as "names" prints names: none may be
 * left in a names-level dump, each is in its names map.
 *
 * Standard output carries only the documented lines; errors go to stderr
 * with exit status 1 (2 for usage errors). The MXBean (JDK 17) refuses a
 * FILE that exists or does not end in ".hprof".
 */
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

import com.acme.secret.Customer;

public final class Secrets {
    static final int CUSTOMER_COUNT = 500;

    static Customer[] CUSTOMERS;
    static Thread WORKER;

    /** The thread's name, joined: "payments-worker". */
    static final String[] THREAD_WORDS = { "payments", "-worker" };

    /** The shortest field name or word "names" prints (see above). */
    static final int NAME_MIN = 8;

    /** The secret parts of LITERALS, one a literal (a word of 8 letters
     * and digits or more: no part of a name the runtime keeps). */
    static final String S_XML = "XmlSecretJ0", S_PW = "S3cr3tPW",
        S_JAAS = "LongSecretM3xxxxxxxx", S_EQ = "SecretEq4wd",
        S_TAG = "SecretTag5x", S_SHADOW = "secretpw6Q", S_SPACE = "SecretSp7",
        S_SIG = "SecretSig8", S_SEMI = "SecretSemi9", S_COLON = "SecretColonA1",
        S_TAB = "SecretTabB2", S_NL = "SecretNlC3", S_ARRAY = "SecretArrF6",
        S_ART = "SecretArtG7", S_ANGLE = "SecretAngleH8", S_HEAD = "SecretHeadE5";
    static final String[] SECRET_PARTS = { S_XML, S_PW, S_JAAS, S_EQ, S_TAG,
        S_SHADOW, S_SPACE, S_SIG, S_SEMI, S_COLON, S_TAB, S_NL, S_ARRAY, S_ART,
        S_ANGLE, S_HEAD };
    /** 50 letters: six make a runtime class name longer than 256 bytes. */
    static final String X50 = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwx";
    static final Object[] LITERALS = {
        "<apiKey>" + S_XML + "</apiKey>",
        "javax.net.ssl.keyStorePassword=" + S_PW,
        "java.security.auth.login.config=/etc/x.conf;user=admin;password=" + S_JAAS,
        "java.lang.String=" + S_EQ,
        "<a>" + S_TAG + "</a>",
        "shadow$" + S_SHADOW,
        "Ljava/lang/" + S_SPACE + " PW;",
        "(Lcom/acme/" + S_SIG + ";)V",
        "java/util/Map;password=" + S_SEMI,
        "sun.misc.Secret: " + S_COLON,
        "java.lang.Object\t" + S_TAB,
        "java.lang.Object\n" + S_NL,
        "[Ljava/lang/String;" + S_ARRAY,
        "java.lang.String[]" + S_ART,
        "<" + S_ANGLE + ">",
        "java/lang/" + X50 + X50 + X50 + X50 + X50 + X50 + S_HEAD,
    };

    static final String USAGE = "Secrets expect | fields | names | literals | dump FILE... | hold N DIR FILE";

    public static void main(String[] argv) {
        List<String> args = Arrays.asList(argv);
        if (args.isEmpty()) {
            HeapBuilder.Cli.usage(USAGE);
        }
        try {
            switch (args.get(0)) {
            case "expect":
            case "fields":
            case "names":
            case "literals":
                HeapBuilder.Cli.expectArgs(USAGE, args, 1, 1);
                System.out.print(text(args.get(0)));
                break;
            case "dump":
                HeapBuilder.Cli.expectArgs(USAGE, args, 2, Integer.MAX_VALUE);
                build();
                for (String f : args.subList(1, args.size())) {
                    HeapBuilder.dump(f);
                }
                break;
            case "hold":
                HeapBuilder.Cli.expectArgs(USAGE, args, 4, 4);
                build();
                hold(Integer.parseInt(args.get(1)), args.get(2), args.get(3));
                break;
            default:
                HeapBuilder.Cli.usage(USAGE);
            }
            System.out.flush();
        } catch (OutOfMemoryError | Exception e) {
            HeapBuilder.Cli.fail("Secrets", e);
        }
        System.exit(0);
    }

    /** What "expect", "fields" (of the heap built), "names" and
     *  "literals" print. */
    static String text(String cmd) throws Exception {
        switch (cmd) {
        case "expect":
            return expected();
        case "fields":
            build();
            return fields();
        case "names":
            return names();
        default:
            return literals();
        }
    }

    /** "hold": n dump files held open while the heap is dumped to file. */
    static void hold(int n, String dir, String file) throws IOException {
        List<java.io.FileOutputStream> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                held.add(new java.io.FileOutputStream(dir + "/hold" + i + ".hprof"));
            }
            try {
                HeapBuilder.dump(file);
                System.out.println("dumped");
            } catch (IOException e) {
                System.out.println("failed: " + e.getMessage());
            }
        } finally {
            for (java.io.FileOutputStream f : held) {
                f.close();
            }
        }
    }

    static void build() throws InterruptedException {
        CUSTOMERS = new Customer[CUSTOMER_COUNT];
        for (int i = 0; i < CUSTOMER_COUNT; i++) {
            CUSTOMERS[i] = new Customer(i == 0 ? null : CUSTOMERS[(i - 1) / 2]);
        }
        // the words are literals (interned Strings in the heap, symbols in
        // the VM); the name is another String, made here
        StringBuilder joined = new StringBuilder();
        for (String w : THREAD_WORDS) {
            joined.append(w);
        }
        String name = joined.toString();
        CountDownLatch running = new CountDownLatch(1);
        WORKER = new Thread(() -> {
            running.countDown();
            while (true) {
                LockSupport.park();
            }
        }, name);
        WORKER.setDaemon(true);
        WORKER.start();
        running.await();
    }

    /** Customer's primitive fields, static or not as asked, by name. */
    static List<Field> primitives(boolean statics) {
        List<Field> out = new ArrayList<>();
        for (Field f : Customer.class.getDeclaredFields()) {
            if (f.getType().isPrimitive() && Modifier.isStatic(f.getModifiers()) == statics) {
                f.setAccessible(true);
                out.add(f);
            }
        }
        out.sort(Comparator.comparing(Field::getName));
        return out;
    }

    /** The "expect" lines: a fresh Customer's values and KEY. */
    static String expected() throws IllegalAccessException {
        Customer c = new Customer(null);
        List<Field> all = primitives(false);
        all.addAll(primitives(true));
        all.sort(Comparator.comparing(Field::getName));
        StringBuilder out = new StringBuilder();
        for (Field f : all) {
            if (f.getType() == boolean.class) {
                continue;
            }
            out.append(f.getName()).append(' ').append(hex(f, c)).append('\n');
        }
        return out.toString();
    }

    /** f's value in c (or f's static value) as a dump holds it. */
    static String hex(Field f, Customer c) throws IllegalAccessException {
        Class<?> t = f.getType();
        ByteBuffer b = ByteBuffer.allocate(8);  // big-endian, as HPROF
        if (t == long.class) {
            b.putLong(f.getLong(c));
        } else if (t == double.class) {
            b.putDouble(f.getDouble(c));
        } else if (t == int.class) {
            b.putInt(f.getInt(c));
        } else if (t == float.class) {
            b.putFloat(f.getFloat(c));
        } else if (t == short.class) {
            b.putShort(f.getShort(c));
        } else if (t == char.class) {
            b.putChar(f.getChar(c));
        } else {
            b.put(f.getByte(c));
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < b.position(); i++) {
            s.append(String.format("%02x", b.get(i) & 0xff));
        }
        return s.toString();
    }

    /** The "fields" lines for the heap built. */
    static String fields() throws IllegalAccessException {
        StringBuilder out = new StringBuilder();
        for (Field f : primitives(true)) {
            out.append("static ").append(f.getName()).append('=').append(f.get(null)).append('\n');
        }
        // every customer holds the same values: one line
        StringBuilder line = new StringBuilder();
        for (Field f : primitives(false)) {
            line.append(' ').append(f.getName()).append('=').append(f.get(CUSTOMERS[0]));
        }
        for (Customer c : CUSTOMERS) {
            for (Field f : primitives(false)) {
                if (!f.get(c).equals(f.get(CUSTOMERS[0]))) {
                    throw new IllegalStateException("customers differ in " + f.getName());
                }
            }
        }
        out.append("instances ").append(CUSTOMER_COUNT).append(line).append('\n');
        return out.toString();
    }

    /** The "literals" lines; each part in its literal, once. */
    static String literals() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < SECRET_PARTS.length; i++) {
            String p = SECRET_PARTS[i], l = (String) LITERALS[i];
            if (p.length() < NAME_MIN || l.indexOf(p) < 0 || l.indexOf(p) != l.lastIndexOf(p)) {
                throw new IllegalStateException("literal " + i + " does not hold " + p + " once");
            }
            out.append(p).append(' ').append(hexOf(p)).append('\n');
        }
        return out.toString();
    }

    /** s's bytes (UTF-8) in lower-case hex, as tests/find-bytes takes them. */
    static String hexOf(String s) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            out.append(String.format("%02x", b & 0xff));
        }
        return out.toString();
    }

    /** The "names" lines. */
    static String names() {
        List<String> names = new ArrayList<>();
        String dotted = Customer.class.getName();
        names.add(dotted.replace('.', '/'));
        names.add(dotted);
        names.add(Customer.class.getSimpleName());
        List<String> more = new ArrayList<>();
        for (Class<?> c : new Class<?>[] { Customer.class, Secrets.class }) {
            for (Field f : c.getDeclaredFields()) {
                more.add(f.getName());
            }
        }
        more.sort(Comparator.naturalOrder());
        more.addAll(Arrays.asList(THREAD_WORDS));
        for (String n : more) {
            if (n.length() >= NAME_MIN && !names.contains(n)) {
                names.add(n);
            }
        }
        StringBuilder out = new StringBuilder();
        for (String n : names) {
            out.append(n).append(' ').append(hexOf(n)).append('\n');
        }
        return out.toString();
    }
}
