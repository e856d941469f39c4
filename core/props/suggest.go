package props

// closest returns the key nearest to name in edit distance (insertions, deletions,
// substitutions and swaps of two neighbours), if one is near enough to be a slip of
// the keyboard: at most two edits, and fewer than a third of the key's length.
// "enable.idempotent", "enabled.idempotence" and "transcational.id" all find theirs.
func closest(name string, keys []string) (string, bool) {
	best, bestD := "", -1
	for _, k := range keys {
		d := editDistance(name, k)
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > 2 || 3*bestD >= len(best) {
		return "", false
	}
	return best, true
}

// editDistance is the optimal string alignment distance between a and b.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
