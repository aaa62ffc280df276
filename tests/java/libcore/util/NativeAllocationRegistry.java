/*
 * A stand-in for Android's libcore.util.NativeAllocationRegistry, for
 * tests/java/Sizes.java: the fields of the real one (a loader, a native
 * free function's address, the native bytes of each allocation) under the
 * same names, so that a JDK 17 heap holds instances that redaction must
 * treat as it treats Android's: size stays (ahat and perflib add it to
 * the owner's native size), freeFunction (a pointer) goes.
 */
package libcore.util;

public class NativeAllocationRegistry {
    private final ClassLoader classLoader;
    private final long freeFunction;
    private final long size;

    public NativeAllocationRegistry(ClassLoader classLoader, long freeFunction, long size) {
        this.classLoader = classLoader;
        this.freeFunction = freeFunction;
        this.size = size;
    }
}
