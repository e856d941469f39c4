package scene

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a scene file problem: where it is and what was expected.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
}

// parser walks a YAML document and stops at the first error.
type parser struct {
	file  string
	long  map[string]bool // the file's long values, which errors quote in part
	lines int             // the file's lines (0: unknown)
	err   *Error
}

func (p *parser) fail(n *yaml.Node, key, format string, args ...any) {
	if p.err != nil {
		return
	}
	line := 1
	if n != nil {
		line = n.Line
	}
	if p.lines > 0 {
		// yaml.v3 puts an empty value at the end of a file on the line after it
		line = min(max(line, 1), p.lines)
	}
	p.err = newError(p.file, line, key, fmt.Sprintf(format, args...), p.long)
}

// field is one key of a mapping.
type field struct {
	key   string
	keyN  *yaml.Node
	value *yaml.Node
}

// mapping checks that n is a mapping with only the allowed keys and returns its fields
// by key. Unknown keys are errors that list what is allowed.
func (p *parser) mapping(n *yaml.Node, path string, allowed ...string) map[string]field {
	out := map[string]field{}
	if n == nil {
		return out
	}
	if n.Kind != yaml.MappingNode {
		p.fail(n, path, "expected a mapping of keys (%s)", strings.Join(allowed, ", "))
		return out
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := join(path, k.Value)
		if !ok[k.Value] {
			sorted := append([]string(nil), allowed...)
			slices.Sort(sorted)
			p.fail(k, name, "unknown key; expected one of: %s", strings.Join(sorted, ", "))
			return out
		}
		if _, dup := out[k.Value]; dup {
			p.fail(k, name, "key given twice")
			return out
		}
		out[k.Value] = field{key: k.Value, keyN: k, value: v}
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (p *parser) str(f field, path string) string {
	if f.value == nil {
		return ""
	}
	if f.value.Kind != yaml.ScalarNode {
		p.fail(f.value, join(path, f.key), "expected a single value")
		return ""
	}
	return f.value.Value
}

func (p *parser) integer(f field, path string, lo, hi int64) int64 {
	s := p.str(f, path)
	if p.err != nil {
		return 0
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < lo || v > hi {
		p.fail(f.value, join(path, f.key), "expected a whole number from %d to %d, got %q", lo, hi, s)
		return 0
	}
	return v
}

func (p *parser) list(f field, path string) []*yaml.Node {
	if f.value == nil {
		return nil
	}
	if f.value.Kind != yaml.SequenceNode {
		p.fail(f.value, join(path, f.key), "expected a list")
		return nil
	}
	return f.value.Content
}

func (p *parser) strings(f field, path string) []string {
	var out []string
	for _, n := range p.list(f, path) {
		if n.Kind != yaml.ScalarNode {
			p.fail(n, join(path, f.key), "expected a list of names")
			return nil
		}
		out = append(out, n.Value)
	}
	return out
}

// Text is a caption in English and Chinese.
type Text struct {
	En string `json:"en"`
	Zh string `json:"zh"`
}

// text reads {en: ..., zh: ...}; both languages are required.
func (p *parser) text(f field, path string) Text {
	path = join(path, f.key)
	m := p.mapping(f.value, path, "en", "zh")
	t := Text{En: p.str(m["en"], path), Zh: p.str(m["zh"], path)}
	if p.err == nil && (t.En == "" || t.Zh == "") {
		p.fail(f.value, path, "expected both en and zh text")
	}
	return t
}

// isNull reports a YAML null (~, null or an empty value).
func isNull(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}
