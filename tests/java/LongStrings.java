/*
 * LongStrings: a Java heap holding long java.lang.Strings of the kind
 * services build (SQL, JSON, URLs), for the tests of --keep-strings and
 * HPROFSTRIP_KEEP=strings on long Strings (bats/strings.bats). HeapJudge's
 * "long-strings" command counts how many of them read back whole.
 *
 *   java -cp DIR LongStrings expect          print the counts (below); exit 0
 *   java -cp DIR LongStrings mxbean FILE     dump via HotSpotDiagnosticMXBean
 *                                            (live=true); exit 0
 *
 * Run it with -Xmx512m or more: the heap holds about 110 MB of Strings.
 *
 * The heap, reachable from static fields of LongStrings, four kinds of
 * Strings by how they are made and how long they are:
 *   - K20: 2,000 of 20,000 chars made by StringBuilder.toString()
 *   - K64: 200 of 65,536 chars made by StringBuilder.toString()
 *   - C20: 2,000 of 20,000 chars made by concatenation (+)
 *   - C64: 200 of 65,536 chars made by concatenation (+)
 * Latin-1, so their values are byte[]s of 20,000 and 65,536 bytes, except
 * every 8th of K64 and C64, which has chars outside Latin-1: a UTF-16 value
 * of 131,072 bytes. The two ways put the value on either side of the
 * String: StringBuilder.toString() runs `new String(Arrays.copyOfRange(..))`,
 * which allocates the String before its value; a concatenation (JDK 9+,
 * StringConcatFactory) fills the value first and then makes the String
 * around it. Where the dump writes the two follows from that, until a
 * garbage collection moves them (see bats/strings.bats). The text of each
 * is appended piece by piece to a StringBuilder of its own that starts at
 * the default capacity, as a service's code does.
 *
 * Every String checks itself, so the judge needs nothing but the dump:
 *   "<kind>-<index, 6 digits>:" TEXT "#" CRC
 * where kind is "k20", "k64", "c20" or "c64", CRC the CRC-32 of the chars
 * before the '#' (each char's low byte, then its high byte) as 8 lower-case
 * hex digits, and the whole String exactly the kind's length. A String
 * whose array was stripped reads as NULs and fails the check.
 *
 * Output of "expect" (and of HeapJudge long-strings for a dump whose
 * Strings all survived), one "KIND LENGTH WHOLE TOTAL" line per kind:
 *   k20 20000 2000 2000
 *   k64 65536 200 200
 *   c20 20000 2000 2000
 *   c64 65536 200 200
 */
import java.util.zip.CRC32;

public final class LongStrings {
    static final String[] KINDS = {"k20", "k64", "c20", "c64"};
    static final int N20 = 2_000;
    static final int LEN20 = 20_000;
    static final int N64 = 200;
    static final int LEN64 = 65_536;
    /** The prefix "kind-NNNNNN:" and the check "#" + 8 hex digits. */
    static final int PREFIX = 11;
    static final int CHECK = 9;

    static String[] K20;
    static String[] K64;
    static String[] C20;
    static String[] C64;

    public static void main(String[] args) {
        try {
            if (args.length == 1 && args[0].equals("expect")) {
                System.out.print(expected());
            } else if (args.length == 2 && args[0].equals("mxbean")) {
                build();
                dump(args[1]);
            } else {
                HeapBuilder.Cli.usage("LongStrings expect | mxbean FILE");
            }
        } catch (OutOfMemoryError | Exception e) {
            HeapBuilder.Cli.fail("LongStrings", e);
        }
        System.exit(0);
    }

    static String expected() {
        StringBuilder out = new StringBuilder();
        for (String kind : KINDS) {
            int n = count(kind);
            out.append(kind).append(' ').append(length(kind)).append(' ').append(n)
                    .append(' ').append(n).append('\n');
        }
        return out.toString();
    }

    static int count(String kind) {
        return kind.endsWith("20") ? N20 : N64;
    }

    static int length(String kind) {
        return kind.endsWith("20") ? LEN20 : LEN64;
    }

    /** One String of each kind in turn, as a service makes them. */
    static void build() {
        K20 = new String[N20];
        K64 = new String[N64];
        C20 = new String[N20];
        C64 = new String[N64];
        for (int i = 0; i < N20; i++) {
            K20[i] = built("k20", i);
            C20[i] = concatenated("c20", i);
            if (i < N64) {
                K64[i] = built("k64", i);
                C64[i] = concatenated("c64", i);
            }
        }
    }

    /** kind-i by StringBuilder.toString(). */
    static String built(String kind, int i) {
        StringBuilder sb = new StringBuilder();
        sb.append(prefix(kind, i));
        text(sb, kind, i, length(kind) - CHECK);
        String crc = crcHex(sb, "");
        return sb.append('#').append(crc).toString();
    }

    /** kind-i by concatenation. */
    static String concatenated(String kind, int i) {
        String prefix = prefix(kind, i);
        StringBuilder sb = new StringBuilder();
        text(sb, kind, i, length(kind) - CHECK - PREFIX);
        String body = sb.toString();
        String crc = crcHex(prefix, body);
        return prefix + body + "#" + crc;
    }

    static String prefix(String kind, int i) {
        return String.format("%s-%06d:", kind, i);
    }

    /** Appends SQL, JSON and URLs to sb up to len chars; chars outside
     *  Latin-1 for every 8th String of 65,536 chars. */
    static void text(StringBuilder sb, String kind, int i, int len) {
        if (length(kind) == LEN64 && i % 8 == 7) {
            sb.append("\u00fcber-\u03b1\u03b2\u03b3-");
        }
        for (int j = 0; sb.length() < len; j++) {
            switch ((i + j) % 3) {
            case 0:
                sb.append("SELECT o.id, o.total, c.name FROM orders o JOIN customers c")
                        .append(" ON c.id = o.customer_id WHERE o.id = ").append(i * 7919 + j)
                        .append(" AND o.state IN ('open', 'paid'); ");
                break;
            case 1:
                sb.append("{\"id\":").append(i).append(",\"seq\":").append(j)
                        .append(",\"name\":\"item-").append(Integer.toHexString(i * 31 + j))
                        .append("\",\"tags\":[\"a\",\"b\"]},");
                break;
            default:
                sb.append("https://api.example.com/v2/items/").append(j).append("?user=")
                        .append(i).append("&token=")
                        .append(Long.toHexString((i + 1L) * (j + 1L) * 0x9E3779B97F4A7C15L))
                        .append('&');
                break;
            }
        }
        sb.setLength(len);
    }

    /** CRC-32 of the chars of a then b, low byte then high byte, as 8 hex
     *  digits. */
    static String crcHex(CharSequence a, CharSequence b) {
        CRC32 crc = new CRC32();
        for (CharSequence s : new CharSequence[] {a, b}) {
            for (int k = 0; k < s.length(); k++) {
                char c = s.charAt(k);
                crc.update(c & 0xff);
                crc.update(c >>> 8);
            }
        }
        return String.format("%08x", crc.getValue());
    }

    static void dump(String file) throws Exception {
        HeapBuilder.dump(file);
    }
}
