import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Random;

/**
 * A heap for the compression section of tests/bench/bench.sh, dumped from
 * outside with jcmd GC.heap_dump (which has -gz=1).
 *
 * Usage: java DumpBench KIND MB STOPFILE
 *
 *   arrays  MB megabytes (10^6) of heap: 4% small linked objects, the rest
 *           in primitive arrays of 1-4 MB filled with pseudo-random bytes
 *           (incompressible, as images and buffers are)
 *   nodes   MB megabytes of 40-byte objects in 1024 linked chains and no
 *           arrays to speak of: a dump that stripping cannot shrink
 *
 * Builds the heap (fixed seed), collects garbage, prints "ready", then
 * waits until STOPFILE exists.
 */
public final class DumpBench {
	/* 12-byte header, two compressed references, a long and two ints:
	 * 40 bytes on a 64-bit JVM with compressed oops */
	static final class Node {
		Node next, other;
		long a;
		int b, c;
	}

	static Object[] roots;

	public static void main(String[] args) throws Exception {
		if (args.length != 3) {
			System.err.println("usage: java DumpBench arrays|nodes MB STOPFILE");
			System.exit(2);
		}
		long bytes = Long.parseLong(args[1]) * 1_000_000L;
		Random rnd = new Random(20261123L);
		if (args[0].equals("arrays")) {
			long small = bytes / 25;
			roots = new Object[2];
			roots[0] = chains(small / 40, rnd);
			roots[1] = arrays(bytes - small, rnd);
		} else if (args[0].equals("nodes")) {
			roots = new Object[] { chains(bytes / 40, rnd) };
		} else {
			System.err.println("DumpBench: unknown kind " + args[0]);
			System.exit(2);
		}
		System.gc();
		System.gc();
		System.out.println("ready");
		System.out.flush();
		while (!Files.exists(Paths.get(args[2])))
			Thread.sleep(50);
	}

	/* n nodes in 1024 chains, each also pointing at a random node of its
	 * chain */
	static Node[] chains(long n, Random rnd) {
		Node[] heads = new Node[1024];
		for (long i = 0; i < n; i++) {
			int k = (int) (i & 1023);
			Node x = new Node();
			x.next = heads[k];
			x.other = heads[k] == null ? x : heads[k].other;
			x.a = i * 0x9E3779B97F4A7C15L;
			x.b = (int) i;
			x.c = k;
			if ((i & 15) == 0)
				x.other = x;
			heads[k] = x;
		}
		return heads;
	}

	static Object[] arrays(long bytes, Random rnd) {
		int n = (int) (bytes / 2_500_000L) + 1;
		Object[] out = new Object[n];
		long left = bytes;
		for (int i = 0; i < n && left > 0; i++) {
			int len = (int) Math.min(left, 1_000_000 + rnd.nextInt(3_000_000));
			byte[] b = new byte[len];
			rnd.nextBytes(b);
			out[i] = b;
			left -= len;
		}
		return out;
	}
}
