package scene

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// decode turns a scene file into its one YAML document, and refuses what YAML allows
// but a scene must not hold, each at its line: a file over MaxSceneBytes, text that is
// not UTF-8 or holds control characters, YAML tags, anchors and aliases, keys that are
// not names, a key given twice in any mapping (Kafka properties included), and a second
// document.
func decode(file string, data []byte) (*yaml.Node, map[string]bool, *Error) {
	if len(data) > MaxSceneBytes {
		return nil, nil, newError(file, 1, "", fmt.Sprintf("the file is larger than %d bytes (256 KiB), the most a scene file may have", MaxSceneBytes), nil)
	}
	if err := checkText(file, data); err != nil {
		return nil, nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err == io.EOF {
		return nil, nil, newError(file, 1, "", "empty file; expected at least cluster and apps", nil)
	} else if err != nil {
		return nil, nil, yamlError(file, data, err)
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) && doc.Content[0].Value == "" { // nothing, or a lone ---
		return nil, nil, newError(file, 1, "", "empty file; expected at least cluster and apps", nil)
	}
	st := strictWalk{file: file, long: map[string]bool{}}
	if err := st.walk(doc.Content[0], ""); err != nil {
		return nil, nil, err
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case err == io.EOF:
	case err == nil:
		return nil, nil, secondDocument(file, second.Line)
	default:
		line := documentMarkerAfter(data, lastLine(doc.Content[0]))
		if line == 0 {
			line = yamlError(file, data, err).Line
		}
		return nil, nil, secondDocument(file, line)
	}
	return doc.Content[0], st.long, nil
}

func secondDocument(file string, line int) *Error {
	return newError(file, line, "", "a second YAML document starts here (after --- or ...); a scene file holds one document: remove this line and what follows", nil)
}

// checkText refuses bytes that are not UTF-8 and the characters YAML does not allow
// (yaml.v3's reader refuses them too, but without saying where).
func checkText(file string, data []byte) *Error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			msg := fmt.Sprintf("not UTF-8 text: byte 0x%02x at column %d; a scene file is UTF-8", data[i], col)
			if i == 0 && len(data) > 1 && (data[0] == 0xff && data[1] == 0xfe || data[0] == 0xfe && data[1] == 0xff) {
				msg += " (this one starts like UTF-16: save it as UTF-8)"
			}
			return newError(file, line, "", msg, nil)
		case !yamlAllowed(r):
			return newError(file, line, "", fmt.Sprintf("a control character (U+%04X) at column %d; YAML allows printable characters, tabs and line breaks", r, col), nil)
		}
		if n := breakLen(data[i:]); n > 0 {
			line, col = line+1, 1
			i += n
			continue
		}
		col++
		i += size
	}
	return nil
}

// yamlAllowed is YAML 1.1's set of characters a stream may hold, as yaml.v3's reader
// checks it (readerc.go, yaml_parser_update_buffer).
func yamlAllowed(r rune) bool {
	switch {
	case r == 0x09, r == 0x0A, r == 0x0D, r >= 0x20 && r <= 0x7E, r == 0x85:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// breakLen is the length of the line break that starts data, or 0. YAML 1.1, as yaml.v3
// counts lines, breaks at CR LF, CR, LF, NEL, LS and PS.
func breakLen(data []byte) int {
	switch {
	case bytes.HasPrefix(data, []byte("\r\n")):
		return 2
	case len(data) > 0 && (data[0] == '\r' || data[0] == '\n'):
		return 1
	}
	for _, b := range []string{"\u0085", "\u2028", "\u2029"} {
		if bytes.HasPrefix(data, []byte(b)) {
			return len(b)
		}
	}
	return 0
}

// lineStarts lists the offset of the start of every line of data (the first is 0).
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i := 0; i < len(data); {
		if n := breakLen(data[i:]); n > 0 {
			i += n
			starts = append(starts, i)
			continue
		}
		i++
	}
	return starts
}

// strictWalk refuses, in document order, what the scene parser must never see: tags,
// anchors and aliases, keys that are not names, and keys given twice. It notes the
// long values, which errors quote only in part.
type strictWalk struct {
	file string
	long map[string]bool
}

func (st *strictWalk) walk(n *yaml.Node, path string) *Error {
	fail := func(n *yaml.Node, path, format string, args ...any) *Error {
		return newError(st.file, n.Line, path, fmt.Sprintf(format, args...), nil)
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return fail(n, path, "YAML tags such as %s are not accepted in a scene: write the plain value (in quotes when it is text, as \"3\")", cutRunes(n.Tag, quoteRunes))
	}
	// An alias always comes after its anchor (or is an unknown anchor, which yaml.v3
	// refuses), so refusing anchors refuses aliases too.
	if n.Anchor != "" {
		a := cutRunes(n.Anchor, quoteRunes)
		return fail(n, path, "YAML anchors (&%s) and aliases (*%s) are not accepted in a scene: write each value out where it is used", a, a)
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if utf8.RuneCountInString(n.Value) > quoteRunes {
			st.long[n.Value] = true
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := st.walk(c, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case yaml.MappingNode:
		first := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return fail(k, path, "expected a name as key, got a %s", kindName(k))
			}
			if err := st.walk(k, join(path, k.Value)); err != nil {
				return err
			}
			if line, dup := first[k.Value]; dup {
				return fail(k, join(path, k.Value), "key given twice (first at line %d); YAML would take the last silently, a scene refuses it", line)
			}
			first[k.Value] = k.Line
			if err := st.walk(v, join(path, k.Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "value"
}

// lastLine is the last line a node of the tree starts on.
func lastLine(n *yaml.Node) int {
	line := n.Line
	for _, c := range n.Content {
		line = max(line, lastLine(c))
	}
	return line
}

// documentMarkerAfter is the first line after the given one that starts with a YAML
// document marker (--- or ...), or 0.
func documentMarkerAfter(data []byte, after int) int {
	starts := lineStarts(data)
	for i := after; i < len(starts); i++ {
		rest := data[starts[i]:]
		for _, m := range []string{"---", "..."} {
			if bytes.HasPrefix(rest, []byte(m)) && (len(rest) == 3 || strings.ContainsRune(" \t\r\n", rune(rest[3]))) {
				return i + 1
			}
		}
	}
	return 0
}

// yamlParserProblems are the problems yaml.v3's parser (parserc.go) reports; unlike its
// scanner's, their "line N" counts from 0.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'", "did not find expected '-' indicator",
	"did not find expected <document start>", "did not find expected <stream-start>", "did not find expected key",
	"did not find expected node content", "found duplicate %TAG directive", "found duplicate %YAML directive",
	"found incompatible YAML document", "found undefined tag handle",
}

// yamlError is a YAML syntax error at the line it is on.
func yamlError(file string, data []byte, err error) *Error {
	line, problem := splitYAMLError(err)
	switch {
	case line > 0 && slices.Contains(yamlParserProblems, problem):
		line++
	case line == 0:
		// yaml.v3 gives no line for its first line (and for some errors, such as an
		// unknown alias, none at all): the line is the first one whose prefix of the
		// file already fails so.
		line = firstFailingLine(data, problem)
	}
	starts := lineStarts(data)
	line = min(max(line, 1), len(starts))
	return newError(file, line, "", "not valid YAML: "+problem, nil)
}

// splitYAMLError reads "yaml: line N: problem" (the line is 0 when it is not given).
func splitYAMLError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return 0, msg
	}
	num, problem, ok := strings.Cut(rest, ": ")
	line, convErr := strconv.Atoi(num)
	if !ok || convErr != nil {
		return 0, msg
	}
	return line, problem
}

// firstFailingLine is the smallest N such that the file's first N lines give the
// same YAML problem, by bisection (a prefix that holds the cause fails the same way).
func firstFailingLine(data []byte, problem string) int {
	starts := lineStarts(data)
	fails := func(lines int) bool {
		end := len(data)
		if lines < len(starts) {
			end = starts[lines]
		}
		err := decodeAll(data[:end])
		if err == nil {
			return false
		}
		_, p := splitYAMLError(err)
		return p == problem
	}
	lo, hi := 1, len(starts)
	if !fails(hi) {
		return 1
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// decodeAll decodes the documents of data (at most two, as decode does) and returns the
// first error.
func decodeAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for range 2 {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
	return nil
}
