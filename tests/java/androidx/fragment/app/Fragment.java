/*
 * A stand-in for AndroidX's androidx.fragment.app.Fragment in JDK heaps
 * (tests/java/LeakHeap.java): mFragmentManager, null once the fragment
 * is detached from its manager, as the library names it.
 */
package androidx.fragment.app;

public class Fragment {
	private Object mFragmentManager = new Object();
	private final byte[] mView = new byte[1000];

	public void detach() {
		mFragmentManager = null;
	}
}
