/*
 * A stand-in for Android's android.app.Activity in JDK heaps
 * (tests/java/LeakHeap.java): the field hprofstrip --suspects reads,
 * mDestroyed, as the framework names it.
 */
package android.app;

public class Activity {
	private boolean mResumed;
	private boolean mDestroyed;
	private final Object mWindow = new Object();

	public void destroy() {
		mDestroyed = true;
		mResumed = false;
	}
}
