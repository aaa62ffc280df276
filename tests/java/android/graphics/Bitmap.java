/*
 * A stand-in for Android's android.graphics.Bitmap, with some fields of the
 * real one under the same names and types, so that a JDK 17 heap holds
 * instances that hprofstrip must treat as it treats Android's:
 *   - for tests/java/Sizes.java (redaction): mWidth and mHeight stay (ahat
 *     sizes bitmaps by them), mNativePtr (a pointer) and mDensity go;
 *   - for tests/java/BitmapHeap.java (keeping bitmaps): mBuffer, the raw
 *     pixels of API 25 and earlier, and the static dumpData, the pictures
 *     that API 35's dumpAll (am dumpheap -b) compresses into the Java heap
 *     before the dump: a Bitmap$DumpData of AOSP's fields (count, format,
 *     natives: each bitmap's mNativePtr, buffers: each compressed image).
 */
package android.graphics;

import java.io.ByteArrayOutputStream;
import java.util.List;

public final class Bitmap {
    private final long mNativePtr;
    private int mWidth;
    private int mHeight;
    int mDensity;
    private byte[] mNinePatchChunk;
    private byte[] mBuffer;

    /** What dumpAll leaves for the heap dump; null until it runs. */
    public static DumpData dumpData;

    /** AOSP's Bitmap.DumpData: its fields, in its order. */
    public static final class DumpData {
        int count;
        int format;
        long[] natives;
        byte[][] buffers;
        int max;

        DumpData(int format, int max) {
            this.max = max;
            this.format = format;
            this.natives = new long[max];
            this.buffers = new byte[max][];
            this.count = 0;
        }

        /** A DumpData of arrays made before it, count entries filled. */
        DumpData(int format, long[] natives, byte[][] buffers) {
            this.max = natives.length;
            this.format = format;
            this.natives = natives;
            this.buffers = buffers;
            this.count = natives.length;
        }

        void add(long nativePtr, byte[] buffer) {
            natives[count] = nativePtr;
            buffers[count] = buffer;
            count = count >= max ? max : count + 1;
        }
    }

    public Bitmap(long nativePtr, int width, int height, int density) {
        mNativePtr = nativePtr;
        mWidth = width;
        mHeight = height;
        mDensity = density;
        mNinePatchChunk = new byte[] { 1, 2, 3 };
    }

    /** A bitmap of API 25 and earlier: its pixels in the Java heap. */
    public Bitmap(long nativePtr, int width, int height, byte[] buffer) {
        mNativePtr = nativePtr;
        mWidth = width;
        mHeight = height;
        mBuffer = buffer;
    }

    public long nativePtr() {
        return mNativePtr;
    }

    /**
     * As AOSP's dumpAll: a DumpData of format FORMAT (its nativeInt: 0
     * JPEG, 1 PNG, 3 WEBP), then for each bitmap its compressed picture
     * through a ByteArrayOutputStream, whose toByteArray() is the byte[]
     * DumpData.buffers holds, allocated just after the stream's own.
     * images.get(i) is bitmaps.get(i)'s picture (this stand-in does not
     * compress).
     */
    public static void dumpAll(int format, List<Bitmap> bitmaps, List<byte[]> images) {
        dumpData = new DumpData(format, bitmaps.size());
        for (int i = 0; i < bitmaps.size(); i++) {
            ByteArrayOutputStream bas = new ByteArrayOutputStream();
            bas.write(images.get(i), 0, images.get(i).length);
            dumpData.add(bitmaps.get(i).mNativePtr, bas.toByteArray());
        }
    }

    /**
     * dumpAll's DumpData in the reverse order: each picture's byte[]
     * first, then buffers, then natives, then the DumpData (as a dump in
     * memory order may show them when the pictures sit at lower addresses).
     */
    public static void dumpAllLate(int format, List<Bitmap> bitmaps, List<byte[]> images) {
        byte[][] copies = new byte[bitmaps.size()][];
        for (int i = 0; i < copies.length; i++) {
            copies[i] = images.get(i).clone();
        }
        byte[][] buffers = new byte[copies.length][];
        long[] natives = new long[copies.length];
        for (int i = 0; i < copies.length; i++) {
            buffers[i] = copies[i];
            natives[i] = bitmaps.get(i).mNativePtr;
        }
        dumpData = new DumpData(format, natives, buffers);
    }
}
