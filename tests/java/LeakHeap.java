/*
 * LeakHeap: heaps with a known leak, for hprofstrip --suspects's tests
 * (bats/suspects.bats) and its benchmark.
 *
 *   java -cp DIR LeakHeap cache FILE [N]   a cache leak: LeakHeap.CACHE, a
 *                                          HashMap of N (default 100000)
 *                                          LeakHeap$Order, each with a
 *                                          byte[64] and a String; beside it
 *                                          a WeakHashMap of 1000 entries
 *                                          whose keys a strong list holds,
 *                                          a SoftReference to a byte[200000],
 *                                          a byte[300000] held only by a
 *                                          local of the main thread, two
 *                                          destroyed activities (one held
 *                                          by LeakHeap.LISTENERS) and one
 *                                          live, a detached fragment and an
 *                                          attached one; dumped via the
 *                                          MXBean (live) to FILE
 *   java -cp DIR LeakHeap chain FILE N     a doubly linked chain of N
 *                                          LeakHeap$Link from LeakHeap.HEAD,
 *                                          dumped to FILE
 *   java -cp DIR LeakHeap oom              the cache grows until
 *                                          OutOfMemoryError (run with
 *                                          -Xmx and
 *                                          -XX:+HeapDumpOnOutOfMemoryError)
 *   java -cp DIR LeakHeap wait STOP        the cache heap, "pid N" on
 *                                          stdout, then waits until the
 *                                          file STOP exists (jcmd dumps it)
 *
 * Errors go to stderr with exit status 1.
 */
import android.app.Activity;
import androidx.fragment.app.Fragment;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.ref.SoftReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

public final class LeakHeap {
	static final class Order {
		final int id;
		final byte[] payload = new byte[64];
		final String name;

		Order(int id) {
			this.id = id;
			this.name = "order-" + id;
		}
	}

	static final class Link {
		Link next, prev;
		int v;
	}

	static final class MainActivity extends Activity {
		final byte[] bitmap = new byte[50000];
	}

	static final class DetailFragment extends Fragment {
	}

	static final Map<Integer, Order> CACHE = new HashMap<>();
	static final List<Object> LISTENERS = new ArrayList<>();
	static final List<Object> KEYS = new ArrayList<>();
	static final Map<Object, byte[]> WEAK = new WeakHashMap<>();
	static SoftReference<byte[]> SOFT;
	static final List<Object> ALIVE = new ArrayList<>();
	static Link HEAD;

	private static void build(int n) {
		for (int i = 0; i < n; i++)
			CACHE.put(i, new Order(i));
		for (int i = 0; i < 1000; i++) {
			Object k = new Object();
			KEYS.add(k);
			WEAK.put(k, new byte[16]);
		}
		SOFT = new SoftReference<>(new byte[200000]);
		MainActivity gone = new MainActivity();
		gone.destroy();
		LISTENERS.add(gone);
		MainActivity gone2 = new MainActivity();
		gone2.destroy();
		LISTENERS.add(new Object[] { gone2 });
		ALIVE.add(new MainActivity());
		DetailFragment f = new DetailFragment();
		f.detach();
		LISTENERS.add(f);
		ALIVE.add(new DetailFragment());
	}

	/* in a frame of its own, so that no local of main's holds the tail:
	   the chain is reached from HEAD alone */
	private static void chain(int n) {
		Link prev = null;
		for (int i = 0; i < n; i++) {
			Link l = new Link();
			l.v = i;
			l.prev = prev;
			if (prev == null)
				HEAD = l;
			else
				prev.next = l;
			prev = l;
		}
	}

	private static void dump(String file) throws Exception {
		com.sun.management.HotSpotDiagnosticMXBean bean =
			ManagementFactory.getPlatformMXBean(
				com.sun.management.HotSpotDiagnosticMXBean.class);
		bean.dumpHeap(file, true);
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("usage: LeakHeap cache|chain|oom|wait ...");
			System.exit(1);
		}
		byte[] local = new byte[300000];
		switch (args[0]) {
		case "cache":
			build(args.length > 2 ? Integer.parseInt(args[2]) : 100000);
			dump(args[1]);
			break;
		case "chain":
			chain(Integer.parseInt(args[2]));
			dump(args[1]);
			break;
		case "oom":
			build(1000);
			for (int i = 1000;; i++)
				CACHE.put(i, new Order(i));
		case "wait":
			build(100000);
			System.out.println("pid " + ProcessHandle.current().pid());
			System.out.flush();
			for (int i = 0; i < 1200 && !new File(args[1]).exists(); i++)
				Thread.sleep(100);
			break;
		default:
			System.err.println("LeakHeap: unknown mode " + args[0]);
			System.exit(1);
		}
		if (local.length != 300000)
			System.exit(1);
	}
}
