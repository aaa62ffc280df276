/*
 * A stand-in for Android's android.graphics.Bitmap, for
 * tests/java/Sizes.java: some fields of the real one under the same names
 * and types, so that a JDK 17 heap holds instances that redaction must
 * treat as it treats Android's: mWidth and mHeight stay (ahat sizes
 * bitmaps by them), mNativePtr (a pointer) and mDensity go.
 */
package android.graphics;

public final class Bitmap {
    private final long mNativePtr;
    private int mWidth;
    private int mHeight;
    int mDensity;
    private byte[] mNinePatchChunk;

    public Bitmap(long nativePtr, int width, int height, int density) {
        mNativePtr = nativePtr;
        mWidth = width;
        mHeight = height;
        mDensity = density;
        mNinePatchChunk = new byte[] { 1, 2, 3 };
    }
}
