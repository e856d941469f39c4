package play

import (
	"strings"
	"testing"

	"deliverylab/core/scene"
	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The browser's scene editor (LoadSource) refuses a file with scene.Parse's own error,
// at its line: here a Kafka property given twice, which YAML alone would let through
// with the last value.
func TestLoadSourceRefusesAsTheCLIDoes(t *testing.T) {
	data, err := scenes.Read("acks-1-lost")
	require.NoError(t, err)
	text := strings.Replace(string(data), "config: {acks: 1}", "config: {acks: 1, acks: 0}", 1)
	require.NotEqual(t, string(data), text)
	_, err = LoadSource("editor.yaml", []byte(text))
	var perr *scene.Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, "apps[0].config.acks", perr.Key)
	assert.Contains(t, perr.Msg, "key given twice")
	_, want := scene.Parse("editor.yaml", []byte(text))
	assert.Equal(t, want.Error(), err.Error())

	_, err = LoadSource("editor.yaml", []byte(strings.Repeat("#", scene.MaxSceneBytes+1)))
	assert.ErrorContains(t, err, "editor.yaml:1: the file is larger than 262144 bytes")
}

// A fault typed on the page is read as strictly as a scene file, and a long bad value
// comes back short.
func TestAnInjectedFaultIsReadStrictly(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	err = s.Inject(`{crash: broker-1, crash: broker-2}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "crash: key given twice")
	err = s.Inject(`{crash: !!str broker-1}`)
	require.Error(t, err)
	err = s.Inject("{crash: " + strings.Repeat("x", 100000) + "}")
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 300)
	assert.Empty(t, s.State().Faults, "nothing was injected")
}
