import com.sun.management.HotSpotDiagnosticMXBean;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Heap generator for tests/bench/bench.sh.
 *
 * Usage: java BigHeap OUT.hprof MB
 *
 * Builds a heap whose HPROF dump is about MB megabytes (10^6 bytes): about
 * 20% in millions of small linked objects (nodes, strings, boxed integers,
 * small int[] and Object[], a HashMap), the rest in large primitive arrays
 * of every type (1 to 16 MB each, filled with pseudo-random data). Then it
 * dumps the heap with HotSpotDiagnosticMXBean.dumpHeap(OUT, true), timing
 * only that call, and prints key=value lines on stdout:
 *
 *   dump_ms      wall time of dumpHeap, System.nanoTime
 *   gc_ms        of which collection time (the full GC for live objects),
 *                from the GarbageCollectorMXBeans
 *   jit_ms       JIT compilation time that ended during the dump (the
 *                program waits for the JIT to go idle first: compiler
 *                arenas freed or not during the dump move RSS by MBs)
 *   hwm_dump_kb  VmHWM after the dump; the peak was reset through
 *                /proc/self/clear_refs just before dumpHeap (hwm_reset=1),
 *                so this is the peak RSS during the dump
 *   shim_rss_kb  Rss of libhprofstrip.so's mappings (and the anonymous
 *                mapping right after them: its .bss), -1 if not loaded
 *
 * The heap is deterministic (fixed seed), so every run dumps the same
 * objects.
 */
public final class BigHeap {
	static final class Node {
		Node next, other;
		Object payload;
		int id;
		long stamp;

		Node(int id, long stamp) {
			this.id = id;
			this.stamp = stamp;
		}
	}

	/* Roots: everything stays reachable through these until exit. */
	static Node[] nodes;
	static Map<String, Node> index;
	static Object[] arrays;

	/* Dump bytes per node with its payload, measured on JDK 17 (8-byte
	 * ids): instance 61, payload about 55 on average. */
	static final int NODE_DUMP_BYTES = 120;
	static final long MB = 1_000_000L;

	public static void main(String[] args) throws Exception {
		if (args.length != 2) {
			System.err.println("usage: java BigHeap OUT.hprof MB");
			System.exit(2);
		}
		String out = args[0];
		long target = Long.parseLong(args[1]) * MB;
		Random rnd = new Random(20240601L);

		long b0 = System.nanoTime();
		int n = (int) (target / 5 / NODE_DUMP_BYTES);
		buildSmall(n, rnd);
		long arrayBytes = buildArrays(target - (long) n * NODE_DUMP_BYTES, rnd);
		long b1 = System.nanoTime();

		/* collect garbage now, so the full GC inside dumpHeap(live=true)
		 * finds little to do and the timing is mostly the dump itself */
		System.gc();
		System.gc();
		settleJit();
		int reset = resetPeakRss();
		long rssBefore = status("VmRSS");

		HotSpotDiagnosticMXBean bean =
		    ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
		long j0 = jitMillis();
		long g0 = gcMillis();
		long d0 = System.nanoTime();
		bean.dumpHeap(out, true);
		long d1 = System.nanoTime();
		long g1 = gcMillis();
		long j1 = jitMillis();

		long hwm = status("VmHWM");
		Path p = Paths.get(out);
		System.out.printf("nodes=%d%n", n);
		System.out.printf("small_objects=%d%n", smallObjects);
		System.out.printf("arrays=%d%n", arrays.length);
		System.out.printf("array_bytes=%d%n", arrayBytes);
		System.out.printf("build_ms=%.1f%n", (b1 - b0) / 1e6);
		System.out.printf("dump_ms=%.1f%n", (d1 - d0) / 1e6);
		System.out.printf("gc_ms=%d%n", g1 - g0);
		System.out.printf("jit_ms=%d%n", j1 - j0);
		System.out.printf("file_bytes=%d%n", Files.exists(p) ? Files.size(p) : -1);
		System.out.printf("hwm_reset=%d%n", reset);
		System.out.printf("rss_before_kb=%d%n", rssBefore);
		System.out.printf("hwm_dump_kb=%d%n", hwm);
		System.out.printf("shim_rss_kb=%d%n", shimRss());
		System.out.printf("reachable=%d%n",
		    nodes.length + index.size() + arrays.length);
	}

	static long smallObjects;

	/* n nodes, each linked to the previous one and to a random earlier one,
	 * each holding a small payload; a String -> Node map over a tenth. */
	static void buildSmall(int n, Random rnd) {
		nodes = new Node[n];
		index = new HashMap<>(n / 10 * 2);
		Node prev = null;
		for (int i = 0; i < n; i++) {
			Node x = new Node(i, rnd.nextLong());
			x.next = prev;
			x.other = i > 0 ? nodes[rnd.nextInt(i)] : null;
			switch (i & 3) {
			case 0: x.payload = "node-" + i; break;               /* String + byte[] */
			case 1: x.payload = Integer.valueOf(1000 + i); break; /* Integer */
			case 2: x.payload = new int[3 + i % 5]; break;        /* small int[] */
			default: x.payload = new Object[] { prev, x.other }; break;
			}
			if (i % 10 == 0)
				index.put("k" + i, x);
			nodes[i] = x;
			prev = x;
		}
		/* nodes, payloads (a String's byte[] too), the map's entries,
		 * keys and their byte[] */
		smallObjects = 2L * n + (n + 3) / 4 + 3L * ((n + 9) / 10);
	}

	/* Large primitive arrays of every type until bytes element bytes. */
	static long buildArrays(long bytes, Random rnd) {
		List<Object> list = new java.util.ArrayList<>();
		long total = 0;
		int k = 0;
		while (total < bytes) {
			int size = (1 + rnd.nextInt(16)) << 20;
			if (bytes - total < size)
				size = (int) Math.max(bytes - total, 8);
			Object a;
			switch (k++ % 8) {
			case 0: { byte[] v = new byte[size]; rnd.nextBytes(v); a = fill(v, 0, v.length); break; }
			case 1: { int[] v = new int[size / 4]; for (int i = 0; i < Math.min(v.length, 4096); i++) v[i] = rnd.nextInt(); a = fill(v, 4096, v.length); break; }
			case 2: { long[] v = new long[size / 8]; for (int i = 0; i < Math.min(v.length, 4096); i++) v[i] = rnd.nextLong(); a = fill(v, 4096, v.length); break; }
			case 3: { double[] v = new double[size / 8]; for (int i = 0; i < Math.min(v.length, 4096); i++) v[i] = rnd.nextDouble(); a = fill(v, 4096, v.length); break; }
			case 4: { char[] v = new char[size / 2]; for (int i = 0; i < Math.min(v.length, 4096); i++) v[i] = (char) rnd.nextInt(); a = fill(v, 4096, v.length); break; }
			case 5: { short[] v = new short[size / 2]; for (int i = 0; i < Math.min(v.length, 4096); i++) v[i] = (short) rnd.nextInt(); a = fill(v, 4096, v.length); break; }
			case 6: { float[] v = new float[size / 4]; for (int i = 0; i < Math.min(v.length, 4096); i++) v[i] = rnd.nextFloat(); a = fill(v, 4096, v.length); break; }
			default: { boolean[] v = new boolean[size]; for (int i = 0; i < Math.min(v.length, 4096); i++) v[i] = rnd.nextBoolean(); a = fill(v, 4096, v.length); break; }
			}
			list.add(a);
			total += size;
		}
		arrays = list.toArray();
		return total;
	}

	/* Repeats the first `have` elements over the whole array, doubling. */
	static Object fill(Object a, int have, int len) {
		if (have == 0)
			return a;   /* already random all through */
		have = Math.min(have, len);
		while (have < len) {
			int k = Math.min(have, len - have);
			System.arraycopy(a, 0, a, have, k);
			have += k;
		}
		return a;
	}

	/* Collection time of all collectors so far, in ms. */
	static long gcMillis() {
		long t = 0;
		for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans())
			t += Math.max(b.getCollectionTime(), 0);
		return t;
	}

	/* Total JIT compilation time so far, in ms; 0 if not monitored. */
	static long jitMillis() {
		CompilationMXBean c = ManagementFactory.getCompilationMXBean();
		return c != null && c.isCompilationTimeMonitoringSupported()
		    ? c.getTotalCompilationTime() : 0;
	}

	/* Waits (at most 5 s) until no compilation has ended for 300 ms. */
	static void settleJit() throws InterruptedException {
		long last = jitMillis();
		for (int i = 0; i < 17; i++) {
			Thread.sleep(300);
			long now = jitMillis();
			if (now == last)
				return;
			last = now;
		}
	}

	/* Resets VmHWM to the current RSS (Linux >= 4.0); 1 if it worked. */
	static int resetPeakRss() {
		try (FileOutputStream f = new FileOutputStream("/proc/self/clear_refs")) {
			f.write("5".getBytes(StandardCharsets.US_ASCII));
			return 1;
		} catch (IOException e) {
			return 0;
		}
	}

	/* A "Key:  N kB" line of /proc/self/status, in kB; -1 if absent. */
	static long status(String key) throws IOException {
		for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
			if (line.startsWith(key + ":"))
				return Long.parseLong(line.substring(key.length() + 1)
				    .replace("kB", "").trim());
		}
		return -1;
	}

	/* Rss of the shim's own mappings, plus the nameless mapping that starts
	 * where its last one ends (its .bss beyond the file); -1 if not mapped. */
	static long shimRss() throws IOException {
		long sum = -1, lastEnd = -1;
		boolean counting = false;
		for (String line : Files.readAllLines(Paths.get("/proc/self/smaps"))) {
			int dash = line.indexOf('-');
			int sp = line.indexOf(' ');
			if (dash > 0 && sp > dash && line.substring(0, dash).matches("[0-9a-f]+")) {
				long start = Long.parseUnsignedLong(line.substring(0, dash), 16);
				long end = Long.parseUnsignedLong(line.substring(dash + 1, sp), 16);
				String[] f = line.trim().split("\\s+");
				String path = f.length >= 6 ? f[5] : "";
				if (path.contains("libhprofstrip")) {
					counting = true;
					lastEnd = end;
					if (sum < 0)
						sum = 0;
				} else {
					counting = path.isEmpty() && start == lastEnd;
				}
			} else if (counting && line.startsWith("Rss:")) {
				sum += Long.parseLong(line.substring(4).replace("kB", "").trim());
			}
		}
		return sum;
	}
}
