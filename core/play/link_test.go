package play

import (
	"strconv"
	"strings"
	"testing"

	"deliverylab/core/scene"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

func sameRun(t *testing.T, want, got *Session) {
	t.Helper()
	h1, l1 := traceOf(want)
	h2, l2 := traceOf(got)
	assert.Equal(t, h1, h2)
	assert.Equal(t, l1, l2)
	assert.Equal(t, want.NowMs(), got.NowMs())
	assert.Equal(t, want.run.World.EventsRun(), got.run.World.EventsRun())
	assert.Equal(t, comparable(want.State()), comparable(got.State()))
}

func TestAShareLinkReproducesTheRun(t *testing.T) {
	s := twoFaults(t)
	require.NoError(t, s.SetSetting("producers.p1.config.acks", "1"))
	require.NoError(t, s.SeekTo(2000)) // the second fault lies ahead: the link keeps it
	s.Step()
	link := s.Link()
	assert.True(t, strings.HasPrefix(link, "v1."))
	got, err := OpenLink(link)
	require.NoError(t, err)
	sameRun(t, s, got)
	assert.Equal(t, Source{Kind: "shipped", Name: "acks-all-safe"}, got.State().Source)
	s.RunToEnd()
	got.RunToEnd()
	sameRun(t, s, got)
}

func TestAShareLinkCarriesAnOwnSceneAndTheSeed(t *testing.T) {
	s, err := LoadSource("my lesson.yaml", mustRead(t, "retry-duplicate"))
	require.NoError(t, err)
	s.SetSeed(42)
	s.Advance(1234)
	got, err := OpenLink("#" + s.Link())
	require.NoError(t, err)
	sameRun(t, s, got)
	assert.Equal(t, Source{Kind: "own", Name: "my lesson.yaml"}, got.State().Source)
}

func TestABareSceneNameIsALink(t *testing.T) {
	s, err := OpenLink("acks-1-lost")
	require.NoError(t, err)
	assert.Equal(t, "acks-1-lost", s.State().Scene)
	var ue UserError
	_, err = OpenLink("no-such-scene")
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.En, `no scene named "no-such-scene"`)
	assert.Contains(t, ue.Zh, "没有名为")
}

func TestADamagedLinkSaysSo(t *testing.T) {
	link := twoFaults(t).Link()
	var ue UserError
	for _, bad := range []string{link[:len(link)-3], link[:10] + flip(link[10]) + link[11:], "v1.!!!", "v1."} {
		_, err := OpenLink(bad)
		require.ErrorAs(t, err, &ue, bad)
		assert.Contains(t, ue.En, "damaged (checksum)")
		assert.Contains(t, ue.Zh, "已损坏")
	}
	_, err := OpenLink("v2." + link[3:])
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.En, "newer version")
}

func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func TestAnOwnScenesErrorSaysItsLineAndKey(t *testing.T) {
	_, err := LoadSource("mine.yaml", []byte("cluster: {brokers: 3, topics: [{name: t}]}\napps:\n  - producer: p1\n    config: {acks: 2}\n    send: {topic: t}\n"))
	var se *scene.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 4, se.Line)
	assert.Equal(t, "apps[0].config.acks", se.Key)
}
