package sim

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every field of an Observation comes back as it was added, set alone or together, so a
// field added to Observation and not to keptObservation fails here.
func TestAKeptObservationIsTheObservationAdded(t *testing.T) {
	var names nameTable
	var chunk obsChunkOf
	// keep keeps o in the chunk; back reads it out.
	keep := func(o Observation) keptObservation { chunk.add(&names, &o); return chunk.obs[len(chunk.obs)-1] }
	back := func() Observation { return chunk.observation(len(chunk.obs)-1, names.all()) }
	full := Observation{}
	v := reflect.ValueOf(&full).Elem()
	for i := 0; i < v.NumField(); i++ {
		one := Observation{}
		set(reflect.ValueOf(&one).Elem().Field(i), i)
		set(v.Field(i), i)
		keep(one)
		assert.Equal(t, one, back(), v.Type().Field(i).Name)
	}
	k := keep(full)
	assert.Equal(t, full, back())
	assert.NotZero(t, k.rare)
	assert.NotZero(t, k.group)

	// A member assigned nothing says so: an empty list is kept as set.
	keep(Observation{Event: "assigned", Assigned: []string{}})
	assert.NotNil(t, back().Assigned)
	keep(Observation{Event: "polled", Msgs: []string{}})
	assert.NotNil(t, back().Msgs, "an empty list of messages is kept as set")
	common := keep(Observation{Node: "p1", Event: "sent", Msgs: []string{"p1#1"}})
	assert.True(t, common.rare == 0 && common.group == 0, "a common point needs no rare fields")
	commit := keep(Observation{Event: "offset-committed", Group: "g", Committed: []string{"orders-0=4"}})
	assert.True(t, commit.rare == 0 && commit.group != 0, "a commit needs only the group's")

	// The list reads them back in order, both ways.
	obs := []Observation{{AtMs: 1, Node: "a", Err: "X"}, {AtMs: 2, Node: "b"}, {AtMs: 3, Group: "g", Generation: 2}}
	l := ListOf(obs)
	assert.Equal(t, obs, l.Slice())
	var backwards []Observation
	for _, o := range l.Backward() {
		backwards = append(backwards, o)
	}
	assert.Equal(t, []Observation{obs[2], obs[1], obs[0]}, backwards)

	// Of yields only the events asked for, at their indexes in the whole list.
	obs[1].Event, obs[2].Event = "sent", "acked"
	idx := map[int]Observation{}
	for i, o := range ListOf(obs).Of("acked", "polled") {
		idx[i] = o
	}
	assert.Equal(t, map[int]Observation{2: obs[2]}, idx)
}

func set(f reflect.Value, i int) {
	switch f.Kind() {
	case reflect.String:
		f.SetString("v" + string(rune('a'+i)))
	case reflect.Int64, reflect.Int32, reflect.Int:
		f.SetInt(int64(i + 1))
	case reflect.Slice:
		f.Set(reflect.ValueOf([]string{"x", string(rune('a' + i))}))
	default:
		panic("a field of a kind this test does not set: " + f.Kind().String())
	}
}
