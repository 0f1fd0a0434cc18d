import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

// prof's 60/30/10 program (tests/integration/jvm/shares.sh): sixty(), thirty() and
// ten() spin 6, 3 and 1 ms of the thread's own CPU time in turns, each iteration the
// same work between two readings of the clock.  Decoys: helper() is reached from
// sixty() and thirty(), each on a line of its own; Left.work and Right.work have the
// same name in two classes; ten() takes a branch it never took once main() flips
// `late` (5/8 into the run: C2 has compiled it by then), so its compiled code is
// deoptimized (an uncommon trap) and compiled again.
public class Shares {
    static final ThreadMXBean T = ManagementFactory.getThreadMXBean();
    static volatile boolean late;

    static long helper(long x) {
        long s = x; for (int i = 0; i < 16000; i++) s = s * 31 + (i ^ (s >>> 7)); return s;
    }

    static long sixty(long ns, long s) {
        long end = T.getCurrentThreadCpuTime() + ns;
        while (T.getCurrentThreadCpuTime() < end) {
            s = Left.work(s);
            s += helper(s);
        }
        return s;
    }

    static long thirty(long ns, long s) {
        long end = T.getCurrentThreadCpuTime() + ns;
        while (T.getCurrentThreadCpuTime() < end) {
            s = Right.work(s);
            s += helper(s);
        }
        return s;
    }

    static long ten(long ns, long s) {
        long end = T.getCurrentThreadCpuTime() + ns;
        while (T.getCurrentThreadCpuTime() < end) {
            for (int i = 0; i < 32000; i++) s = s * 31 + (i ^ (s >>> 7));
            if (late && (s & 7) == 0) s += String.valueOf(s).length();
        }
        return s;
    }

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime(), secs = Long.parseLong(args[0]);
        long s = 0;
        while (System.nanoTime() - start < secs * 1_000_000_000L) {
            if (!late && System.nanoTime() - start > secs * 1_000_000_000L * 5 / 8) late = true;
            s = sixty(6_000_000, s);
            s = thirty(3_000_000, s);
            s = ten(1_000_000, s);
        }
        System.out.println(s);
    }
}

class Left {
    static long work(long x) { long s = x; for (int i = 0; i < 16000; i++) s = s * 17 + (i ^ (s >>> 5)); return s; }
}

class Right {
    static long work(long x) { long s = x; for (int i = 0; i < 16000; i++) s = s * 13 + (i ^ (s >>> 3)); return s; }
}
