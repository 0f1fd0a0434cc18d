public class Hot {
    static long alpha(long x) { long s = x; for (int i = 0; i < 2000; i++) s = s * 31 + (i ^ (s >>> 7)); return s; }
    static long beta(long x) { long s = x; for (int i = 0; i < 1000; i++) s = s * 31 + (i ^ (s >>> 7)); return s; }
    public static void main(String[] args) throws Exception {
        long end = System.currentTimeMillis() + 1000L * Integer.parseInt(args[0]);
        long s = 0;
        while (System.currentTimeMillis() < end) { s += alpha(s); s += beta(s); }
        System.out.println(s);
    }
}
