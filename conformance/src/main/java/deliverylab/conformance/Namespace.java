package deliverylab.conformance;

import java.util.ArrayList;
import java.util.List;

/**
 * The names a run gives the server-side state it makes, on a cluster kept up from an
 * earlier run (Stage): every group id, Streams application id, transactional id and Flink
 * transactional-id prefix gets a prefix of its own, so that nothing an earlier run left in
 * {@code __consumer_offsets} or {@code __transaction_state} (a group with dead members, a
 * transactional id with its producer id and epoch) is this run's.
 *
 * <p>A broker knows such an id only by itself and by its coordinator, the partition
 * {@code Utils.abs(id.hashCode()) % partitions} of its internal topic
 * (GroupMetadataManager.partitionFor, TransactionStateManager.partitionFor). Every prefix
 * here has Java's hashCode 0, and {@code (P + X).hashCode() == P.hashCode() * 31^|X| +
 * X.hashCode()}, so the prefixed id — and any id built from it by appending, as Flink's
 * sink builds {@code prefix-subtask-checkpoint} — has the hashCode, and so the coordinator,
 * of the scene's own. The first run on a cluster has the empty prefix: its ids are the
 * scene's, as on a fresh cluster they always were.
 */
final class Namespace {
    private Namespace() {}

    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz";
    private static List<String> words;

    /** The prefix of the run with this number on its cluster (0: the first run, no prefix). */
    static String prefix(int run) {
        if (run < 0) throw new IllegalArgumentException("run " + run);
        List<String> w = words();
        StringBuilder out = new StringBuilder();
        for (int n = run; n > 0; n /= w.size()) out.insert(0, w.get(n % w.size()));
        return out.toString();
    }

    /** An id as the scene names it, from the prefixed id a run's client reported. */
    static String unprefixed(String prefix, String id) {
        return id != null && !prefix.isEmpty() && id.startsWith(prefix) ? id.substring(prefix.length()) : id;
    }

    /**
     * The eight-letter words whose hashCode is 0, in alphabetical order. A word is two
     * halves a and b with {@code a.hashCode() * 31^4 + b.hashCode() == 0} (mod 2^32): for
     * each a, the b it needs is looked up among every four-letter half (their hashCodes
     * are distinct: each letter's weight is 31 times the next one's, and letters span 26).
     */
    static synchronized List<String> words() {
        if (words != null) return words;
        int n = 26 * 26 * 26 * 26;
        int[] hashes = new int[n];
        int min = Integer.MAX_VALUE, max = Integer.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            hashes[i] = half(i).hashCode();
            min = Math.min(min, hashes[i]);
            max = Math.max(max, hashes[i]);
        }
        int[] byHash = new int[max - min + 1]; // index + 1 of the half with that hashCode
        for (int i = 0; i < n; i++) byHash[hashes[i] - min] = i + 1;
        int pow = 31 * 31 * 31 * 31;
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int need = -(hashes[i] * pow);
            if (need < min || need > max || byHash[need - min] == 0) continue;
            out.add(half(i) + half(byHash[need - min] - 1));
        }
        words = List.copyOf(out);
        return words;
    }

    private static String half(int i) {
        char[] c = new char[4];
        for (int k = 3; k >= 0; k--, i /= 26) c[k] = LETTERS.charAt(i % 26);
        return new String(c);
    }
}
