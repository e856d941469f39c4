package scene

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCaptionKeysReachTheScene: pause and highlight are read into the caption, and
// Nodes falls back to the trigger's node.
func TestCaptionKeysReachTheScene(t *testing.T) {
	s, err := Parse("captions.yaml", []byte(keysApply(t, keysBase, keysEdit{"narration",
		"[{at.ms: 100, pause: true, highlight: [broker-1, c1], en: a, zh: b}, {when: {node: p1, event: sent}, en: a, zh: b}, {at.ms: 5, pause: false, en: a, zh: b}]"})))
	require.NoError(t, err)
	assert.True(t, s.Narration[0].Pause)
	assert.Equal(t, []string{"broker-1", "c1"}, s.Narration[0].Nodes())
	assert.False(t, s.Narration[1].Pause)
	assert.Equal(t, []string{"p1"}, s.Narration[1].Nodes())
	assert.Equal(t, []string{}, s.Narration[2].Nodes())
}

func TestCaptionKeysRefuseWhatTheyCannotUse(t *testing.T) {
	for edit, want := range map[string]string{
		"[{at.ms: 1, highlight: [broker-7], en: a, zh: b}]": `narration[0].highlight: expected a node of this scene (`,
		"[{at.ms: 1, highlight: [], en: a, zh: b}]":         "narration[0].highlight: expected a list of this scene's nodes",
		"[{at.ms: 1, highlight: broker-1, en: a, zh: b}]":   "narration[0].highlight: expected a list",
		"[{at.ms: 1, pause: yes, en: a, zh: b}]":            `narration[0].pause: expected true or false, got "yes"`,
	} {
		_, err := Parse("bad.yaml", []byte(keysApply(t, keysBase, keysEdit{"narration", edit})))
		require.Error(t, err, edit)
		assert.Contains(t, err.Error(), want)
		var se *Error
		require.ErrorAs(t, err, &se)
		assert.Greater(t, se.Line, 0)
		assert.Contains(t, se.Key, "narration[0].")
	}
}
