// Package props holds the configuration-key tables of the systems the playground models.
// A protocol package (Kafka's broker, producer and consumer; later Flink and Kafka
// Streams) declares one Table per configuration it reads, with the real system's key
// names, and the scene parser hands every key a teacher writes to the table of its
// section: an unknown key, a value the real system would reject and a real key the
// playground does not model yet are all errors that say so.
package props

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Value is a configuration value as a scene wrote it: its text, and whether it was null.
type Value struct {
	Text string
	Null bool
}

// Setter applies one key's value to a configuration, or says why the value is refused.
type Setter[T any] func(c *T, v Value) error

// Table is the set of keys one configuration accepts.
type Table[T any] struct {
	system  string
	keys    map[string]Setter[T]
	choices map[string][]string // the enumerated keys' words, in the real system's order
}

// NewTable makes an empty table; system names whose keys they are ("Kafka").
func NewTable[T any](system string) *Table[T] {
	return &Table[T]{system: system, keys: map[string]Setter[T]{}, choices: map[string][]string{}}
}

// Key adds a key. Adding one twice is a programming error.
func (t *Table[T]) Key(name string, set Setter[T]) *Table[T] {
	if _, dup := t.keys[name]; dup {
		panic("props: " + t.system + " key " + name + " added twice")
	}
	t.keys[name] = set
	return t
}

// Enum adds a key whose value is one of a fixed set of words (a boolean's true and
// false, an isolation level, acks): the table keeps the words, so whoever offers the key
// as a choice (the playground's toggles) takes them from here, not from a second list.
func (t *Table[T]) Enum(name string, words []string, set Setter[T]) *Table[T] {
	t.Key(name, set)
	t.choices[name] = slices.Clone(words)
	return t
}

// Flag adds a boolean key: Enum with true and false.
func (t *Table[T]) Flag(name string, field func(c *T) *bool) *Table[T] {
	return t.Enum(name, BoolWords, func(c *T, v Value) error { return Bool(v, field(c)) })
}

// Choices are an enumerated key's words (nil for a key that is not enumerated).
func (t *Table[T]) Choices(key string) []string { return slices.Clone(t.choices[key]) }

// NotYet adds a real key that the playground does not model yet: setting it is an
// error that says so and why, so nothing a teacher writes is silently ignored.
func (t *Table[T]) NotYet(name, why string) *Table[T] {
	return t.Key(name, func(*T, Value) error {
		return fmt.Errorf("is a real %s setting but not modelled yet: %s", t.system, why)
	})
}

// Set applies one key.
func (t *Table[T]) Set(c *T, key string, v Value) error {
	set, ok := t.keys[key]
	if !ok {
		if near, ok := closest(key, t.Keys()); ok {
			// The real clients and brokers only log a key they do not know
			// (AbstractConfig.logUnused) and go on without it: a typo is silently inert.
			return fmt.Errorf("unknown key; did you mean %s? A real %s client or broker only logs a warning for a key it does not know and goes on without it, so the setting would silently do nothing", near, t.system)
		}
		return fmt.Errorf("unknown key; expected one of: %s", strings.Join(t.Keys(), ", "))
	}
	return set(c, v)
}

// Has reports whether the table knows a key (a modelled one or a NotYet one).
func (t *Table[T]) Has(key string) bool { _, ok := t.keys[key]; return ok }

// Keys lists the keys, sorted.
func (t *Table[T]) Keys() []string { return slices.Sorted(maps.Keys(t.keys)) }

// BoolWords are a boolean key's values.
var BoolWords = []string{"true", "false"}

// Bool parses true or false.
func Bool(v Value, out *bool) error {
	switch strings.ToLower(v.Text) {
	case "true":
		*out = true
	case "false":
		*out = false
	default:
		return fmt.Errorf("expected true or false, got %q", v.Text)
	}
	return nil
}

// Int64 parses a whole number from lo to hi.
func Int64(v Value, lo, hi int64, out *int64) error {
	n, err := strconv.ParseInt(v.Text, 10, 64)
	if err != nil || n < lo || n > hi {
		return fmt.Errorf("expected a whole number from %d to %d, got %q", lo, hi, v.Text)
	}
	*out = n
	return nil
}

// Int is Int64 into an int.
func Int(v Value, lo, hi int64, out *int) error {
	var n int64
	if err := Int64(v, lo, hi, &n); err != nil {
		return err
	}
	*out = int(n)
	return nil
}

// MaxMs bounds every duration a table accepts.
const MaxMs = 1 << 40

// Ms parses a duration in milliseconds, at least lo.
func Ms(v Value, lo int64, out *int64) error { return Int64(v, lo, MaxMs, out) }

// Named is an enumerated setting's value: it spells itself as the real system does.
type Named interface {
	comparable
	String() string
}

// Words are the values' spellings, in order.
func Words[E Named](values []E) []string {
	words := make([]string, len(values))
	for i, a := range values {
		words[i] = a.String()
	}
	return words
}

// OneOf accepts the spelling of one of the allowed values, exactly.
func OneOf[E Named](v Value, allowed []E, out *E) error {
	for _, a := range allowed {
		if v.Text == a.String() {
			*out = a
			return nil
		}
	}
	return fmt.Errorf("expected one of %s, got %q", strings.Join(Words(allowed), ", "), v.Text)
}
