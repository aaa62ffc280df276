/*
 * BitmapHeap: builds a Java heap of Android-like bitmaps with real
 * pictures, for the end-to-end tests of hprofstrip --keep-bitmaps and
 * HPROFSTRIP_KEEP=bitmaps (bats/bitmaps.bats), then gets it dumped.
 * "HeapJudge bitmaps ORIG RESTORED" reads them back.
 *
 *   java -cp DIR BitmapHeap mxbean FILE [bitmaps=N] [seed=S] [late=1] [old=1]
 *                          build, then dump via HotSpotDiagnosticMXBean
 *                          (live=true) to FILE; exit 0
 *   java -cp DIR BitmapHeap wait [FILE] [bitmaps=N] [seed=S] [late=1] [old=1]
 *                          build, print "pid N", then wait for
 *                          jcmd N GC.heap_dump, as HeapBuilder wait does
 *
 * N bitmaps (default 200), android.graphics.Bitmap stand-ins
 * (tests/java/android/graphics/Bitmap.java), held by BitmapHeap.BITMAPS;
 * bitmap i has mNativePtr 0x7F5A00000000 + 256 * i and a picture of W x H
 * pixels, each from 16 to 256, drawn (rectangles, ovals, a gradient) from
 * a java.util.Random seeded with S (default 1), so that two runs with the
 * same N and S hold the same pictures. By i % 4:
 *   0 PNG, 1 JPEG (javax.imageio), 2 WEBP (cwebp -q 80, Debian package
 *     webp, from a PNG of the picture): API 35's am dumpheap -b. The
 *     pictures are compressed first, then Bitmap.dumpAll allocates the
 *     Bitmap$DumpData, its natives and buffers, then each picture's byte[]
 *     just after the ByteArrayOutputStream that made it, as AOSP's does
 *     (the streams and the first copies are garbage: a live dump drops
 *     them). The stand-in mixes formats; DumpData.format says PNG (1).
 *     With late=1 the order is reversed (Bitmap.dumpAllLate): the
 *     pictures' byte[], then buffers, natives and the DumpData last.
 *     With old=1 every bitmap is raw, as on API 25 and earlier: no
 *     dumpAll, and Bitmap$DumpData is never loaded (the dump has no
 *     LOAD_CLASS of it).
 *   3 raw: API 25 and earlier: W * H * 4 bytes of ARGB pixels in mBuffer,
 *     allocated before their Bitmap (as Android's native code does), no
 *     DumpData entry.
 * And byte[] that no bitmap points at, which a strip must not keep: 20
 * arrays of nonzero bytes (1 to 4096, first byte 0x42: no image
 * signature) and one PNG of a picture of its own, held by
 * BitmapHeap.DECOYS.
 *
 * Errors go to stderr with exit status 1 (2 for usage errors). The MXBean
 * (JDK 17) refuses a FILE that exists or does not end in ".hprof".
 */
import java.awt.Color;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;

import android.graphics.Bitmap;

public final class BitmapHeap {
    static final String USAGE = "BitmapHeap mxbean FILE | BitmapHeap wait [FILE]"
            + " (then bitmaps=N, seed=S, late=0|1, old=0|1)";
    static final long NATIVE_BASE = 0x7F5A00000000L;
    static final String[] KINDS = {"png", "jpeg", "webp", "raw"};

    static final List<Bitmap> BITMAPS = new ArrayList<>();
    static final List<byte[]> DECOYS = new ArrayList<>();

    public static void main(String[] argv) {
        int[] seed = {1};
        int[] count = {200};
        int[] late = {0};
        int[] old = {0};
        List<String> args = HeapBuilder.Cli.args("BitmapHeap", USAGE, argv, "seed", seed);
        args = HeapBuilder.Cli.args("BitmapHeap", USAGE, args.toArray(new String[0]),
                "bitmaps", count);
        args = HeapBuilder.Cli.args("BitmapHeap", USAGE, args.toArray(new String[0]),
                "late", late);
        args = HeapBuilder.Cli.args("BitmapHeap", USAGE, args.toArray(new String[0]),
                "old", old);
        System.setProperty("java.awt.headless", "true");
        try {
            switch (args.get(0)) {
            case "mxbean":
                HeapBuilder.Cli.expectArgs(USAGE, args, 2, 2);
                build(count[0], seed[0], late[0] != 0, old[0] != 0);
                HeapBuilder.dump(args.get(1));
                break;
            case "wait":
                HeapBuilder.Cli.expectArgs(USAGE, args, 1, 2);
                build(count[0], seed[0], late[0] != 0, old[0] != 0);
                HeapBuilder.waitFor("BitmapHeap", args.size() > 1 ? args.get(1) : null);
                break;
            default:
                HeapBuilder.Cli.usage(USAGE);
            }
        } catch (OutOfMemoryError | Exception e) {
            HeapBuilder.Cli.fail("BitmapHeap", e);
        }
        System.exit(0);
    }

    static void build(int n, int seed, boolean late, boolean old)
            throws IOException, InterruptedException {
        Random rnd = new Random(seed);
        List<Bitmap> compressed = new ArrayList<>();
        List<byte[]> images = new ArrayList<>();
        Path tmp = Files.createTempDirectory("bitmapheap");
        try {
            for (int i = 0; i < n; i++) {
                BufferedImage img = picture(rnd, 16 + rnd.nextInt(241), 16 + rnd.nextInt(241));
                long ptr = NATIVE_BASE + 256L * i;
                int w = img.getWidth();
                int h = img.getHeight();
                if (i % 4 == 3 || old) {
                    byte[] pixels = argb(img);
                    BITMAPS.add(new Bitmap(ptr, w, h, pixels));
                    continue;
                }
                Bitmap b = new Bitmap(ptr, w, h, 160);
                BITMAPS.add(b);
                compressed.add(b);
                images.add(encode(img, KINDS[i % 4], tmp));
            }
            for (int i = 0; i < 20; i++) {
                byte[] d = new byte[1 + rnd.nextInt(4096)];
                rnd.nextBytes(d);
                d[0] = 0x42;
                DECOYS.add(d);
            }
            DECOYS.add(encode(picture(rnd, 64, 48), "png", tmp));
        } finally {
            deleteDir(tmp);
        }
        if (old) {
            return;  // API 25: no dumpAll, DumpData never loaded
        }
        if (late) {
            Bitmap.dumpAllLate(1, compressed, images);
        } else {
            Bitmap.dumpAll(1, compressed, images);
        }
    }

    /** A w x h picture drawn from rnd: a gradient, rectangles, ovals. */
    static BufferedImage picture(Random rnd, int w, int h) {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setPaint(new GradientPaint(0, 0, new Color(rnd.nextInt(0x1000000)),
                w, h, new Color(rnd.nextInt(0x1000000))));
        g.fillRect(0, 0, w, h);
        for (int k = 0; k < 6; k++) {
            g.setColor(new Color(rnd.nextInt(0x1000000)));
            int x = rnd.nextInt(w);
            int y = rnd.nextInt(h);
            int rw = 1 + rnd.nextInt(w);
            int rh = 1 + rnd.nextInt(h);
            if (k % 2 == 0) {
                g.fillRect(x, y, rw, rh);
            } else {
                g.fillOval(x, y, rw, rh);
            }
        }
        g.dispose();
        return img;
    }

    /** The picture's pixels, 4 bytes each, A R G B, row by row. */
    static byte[] argb(BufferedImage img) {
        int w = img.getWidth();
        int h = img.getHeight();
        byte[] out = new byte[w * h * 4];
        int k = 0;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int p = img.getRGB(x, y);
                out[k++] = (byte) (p >>> 24);
                out[k++] = (byte) (p >>> 16);
                out[k++] = (byte) (p >>> 8);
                out[k++] = (byte) p;
            }
        }
        return out;
    }

    /** The picture as a PNG or JPEG file's bytes (ImageIO), or a WEBP's
     *  (cwebp from a PNG written in dir). */
    static byte[] encode(BufferedImage img, String kind, Path dir)
            throws IOException, InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (!ImageIO.write(img, kind.equals("jpeg") ? "jpeg" : "png", out)) {
            throw new IOException("ImageIO has no " + kind + " writer");
        }
        if (!kind.equals("webp")) {
            return out.toByteArray();
        }
        Path png = dir.resolve("in.png");
        Path webp = dir.resolve("out.webp");
        Files.write(png, out.toByteArray());
        Files.deleteIfExists(webp);
        Process p = new ProcessBuilder("cwebp", "-quiet", "-q", "80", png.toString(),
                "-o", webp.toString()).inheritIO().start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("cwebp failed (apt-get install webp)");
        }
        byte[] b = Files.readAllBytes(webp);
        if (b.length < 12 || !new String(Arrays.copyOfRange(b, 8, 12), "US-ASCII").equals("WEBP")) {
            throw new IOException("cwebp wrote no WEBP file");
        }
        return b;
    }

    static void deleteDir(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> s = Files.list(dir)) {
            for (Path f : (Iterable<Path>) s::iterator) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }
}
