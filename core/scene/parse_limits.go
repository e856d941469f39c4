package scene

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The limits of a scene (scenes/README.md, Input limits). A classroom scene stays far
// below each of them; they are there so that a file a student pastes into the browser
// cannot freeze the tab or take gigabytes before the run even starts.
const (
	// MaxSceneBytes is the largest scene file: 256 KiB, some 60 times the largest
	// shipped scene. It is refused before it is parsed.
	MaxSceneBytes = 256 << 10
	// MaxBrokers is the most brokers a cluster may have.
	MaxBrokers = 9
	// MaxTopics is the most topics of cluster.topics.
	MaxTopics = 16
	// MaxTopicPartitions is the most partitions of one topic (so at most 128 in all).
	MaxTopicPartitions = 8
	// MaxApps is the most applications (producers and consumers) of a scene.
	MaxApps = 32
	// MaxSinks is the most sinks of a scene.
	MaxSinks = 16
	// MaxMessages is the most messages the producers of a scene send in all (the sum
	// of their send.count): fifty times a large classroom scene.
	MaxMessages = 5000
	// MaxFaults and MaxCaptions are the most entries of faults and of narration: every
	// `when` among them is matched against every protocol point of the run.
	MaxFaults   = 200
	MaxCaptions = 200
	// MaxRunEvents is the most events one run may take before it is ended ("event
	// limit"): far more than any shipped scene needs, few enough for a browser tab.
	MaxRunEvents = 2_000_000
)

const (
	// quoteRunes is how much of a bad value an error quotes.
	quoteRunes = 40
	// keyRunes is how much of a key path an error shows.
	keyRunes = 100
	// msgRunes is the longest error message; the longest one the parser writes (a list of
	// the keys allowed somewhere) is well under it.
	msgRunes = 1000
)

// newError is an *Error with a bounded key path and message. long holds the file's
// values longer than quoteRunes: where the message quotes one of them (a %q of a bad
// value, in the parser's words or a Kafka key table's), only its first quoteRunes runes
// are kept, so that a megabyte value gives a short line.
func newError(file string, line int, key, msg string, long map[string]bool) *Error {
	return &Error{File: file, Line: line, Key: cutRunes(key, keyRunes), Msg: cutRunes(shortenQuoted(msg, long), msgRunes)}
}

// cutRunes keeps the first n runes of s, then "…".
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// shortenQuoted shortens every Go-quoted string in msg that quotes one of the long
// values to its first quoteRunes runes. It reads msg once: a quote that does not close
// is copied as it is.
func shortenQuoted(msg string, long map[string]bool) string {
	if len(long) == 0 || !strings.Contains(msg, `"`) {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		if msg[i] != '"' {
			b.WriteByte(msg[i])
			i++
			continue
		}
		end, closed := quotedEnd(msg, i)
		q := msg[i:end]
		if s, err := strconv.Unquote(q); closed && err == nil && long[s] {
			q = strconv.Quote(cutRunes(s, quoteRunes))
		}
		b.WriteString(q)
		i = end
	}
	return b.String()
}

// quotedEnd is the index just past the closing quote of the quoted string that starts
// at msg[i]; when it does not close on its line, the index of the line's end.
func quotedEnd(msg string, i int) (int, bool) {
	for j := i + 1; j < len(msg); j++ {
		switch msg[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		case '\n':
			return j, false
		}
	}
	return len(msg), false
}
