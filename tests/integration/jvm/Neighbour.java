// Another tenant's JVM, run beside a recorded one (jvm/shares, jvm/javac): none of its
// names may reach the recorded tenant's file.
public class Neighbour {
    static long neighbourSpin(long x) { long s = x; for (int i = 0; i < 3000; i++) s = s * 7 + (i ^ (s >>> 3)); return s; }
    public static void main(String[] args) {
        long end = System.currentTimeMillis() + 1000L * Integer.parseInt(args[0]), s = 0;
        while (System.currentTimeMillis() < end) s += neighbourSpin(s);
        System.out.println(s);
    }
}
