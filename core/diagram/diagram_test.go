package diagram

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() Input {
	return Input{
		Title: "acks=1 <lost>",
		Nodes: []string{"p1", "broker-1", "broker-2"},
		EndMs: 3000,
		Arrows: []Arrow{
			{From: "p1", To: "broker-1", SentMs: 10, EndMs: 15, Kind: "Produce", Label: "p1#1", Family: "produce"},
			{From: "broker-1", To: "p1", SentMs: 15, EndMs: 20, Kind: "ProduceResponse", Label: "p1#1", Family: "produce"},
			{From: "broker-2", To: "broker-1", SentMs: 100, EndMs: 105, Kind: "Fetch", Family: "fetch", Background: true},
			{From: "p1", To: "broker-1", SentMs: 2000, EndMs: 2005, Kind: "Produce", Label: "p1#2", Family: "produce", Lost: true, Ended: "refused"},
			{From: "p1", To: "nowhere", SentMs: 1, EndMs: 2, Kind: "Produce"},
		},
		Spans: []Span{{Node: "broker-1", FromMs: 1500, ToMs: 2500, What: "down"}},
	}
}

// elements parses the SVG as XML (it must be well formed) and counts elements by
// their class attribute.
func elements(t *testing.T, svg []byte) map[string]int {
	t.Helper()
	counts := map[string]int{}
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return counts
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					counts[a.Value]++
				}
			}
		}
	}
}

// Every node has its line, every message between drawn nodes its arrow; background
// traffic is left out and counted unless asked for; a lost message ends in a cross.
func TestSVGDrawsEveryNodeAndMessage(t *testing.T) {
	in := sample()
	svg := SVG(in)
	c := elements(t, svg)
	assert.Equal(t, 3, c["node"])
	assert.Equal(t, 3, c["msg"], "the background fetch and the message to an unknown node are not drawn")
	assert.Equal(t, 1, c["span"])
	assert.Contains(t, string(svg), "1 background messages (heartbeats, idle fetches) not drawn")
	assert.Contains(t, string(svg), `data-lost="refused"`)
	assert.Contains(t, string(svg), "acks=1 &lt;lost&gt;", "text is escaped")
}

// The highlighted message's arrows are drawn last, thick, in the highlight colour.
func TestSVGHighlightsOneMessage(t *testing.T) {
	in := sample()
	in.Highlight = "p1#1"
	svg := string(SVG(in))
	assert.Equal(t, 2, strings.Count(svg, `stroke="#e6007e"`))
	last := strings.LastIndex(svg, `class="msg"`)
	assert.Contains(t, svg[last:], `data-label="p1#1"`)
	assert.True(t, carries("p1#4 p1#5", "p1#5"))
	assert.False(t, carries("p1#15", "p1#1"))
}

// The same input gives the same bytes.
func TestSVGIsDeterministic(t *testing.T) {
	assert.Equal(t, SVG(sample()), SVG(sample()))
}

// A long stretch with nothing drawn is squeezed and says how long it lasted; where time
// picks up again the clock says when, and time still runs down the page.
func TestQuietStretchesAreSqueezed(t *testing.T) {
	in := sample()
	in.EndMs = 60000
	in.Arrows = append(in.Arrows, Arrow{From: "p1", To: "broker-1", SentMs: 50000, EndMs: 50005, Kind: "Produce", Label: "p1#3", Family: "produce"})
	svg := string(SVG(in))
	assert.Contains(t, svg, "… 47500 ms with nothing drawn …", "from broker-1's restart at 2500 ms to 50000 ms")
	assert.Contains(t, svg, ">50000 ms</text>")
	ax := newAxis([]int64{10, 15, 2005, 50000, 50005}, 60000)
	assert.Less(t, ax.y(60000), 1000.0, "a minute with four busy moments fits a page")
	assert.Less(t, ax.y(10), ax.y(15))
	assert.Less(t, ax.y(2005), ax.y(50000))
	assert.InDelta(t, ax.y(15)-ax.y(10), 5*pxPerMs, 1e-9, "busy moments keep their scale")
	assert.True(t, ax.squeezed(30000))
	assert.False(t, ax.squeezed(12))
}

// Asked for, background traffic is drawn (thin, grey, marked) rather than counted.
func TestSVGShowsBackgroundWhenAsked(t *testing.T) {
	in := sample()
	in.ShowBackground = true
	svg := string(SVG(in))
	assert.Equal(t, 4, elements(t, []byte(svg))["msg"], "the background fetch too")
	assert.Contains(t, svg, `data-background="true"`)
	assert.NotContains(t, svg, "not drawn")
}

// The root says the time axis's knots, which a page maps the run's time through: they
// start at 0 ms, rise with time, end at the run's end, and put each tick where the axis
// does.
func TestSVGSaysItsTimeAxis(t *testing.T) {
	in := sample()
	svg := string(SVG(in))
	i := strings.Index(svg, `data-axis="`)
	require.GreaterOrEqual(t, i, 0)
	knots := strings.Split(svg[i+len(`data-axis="`):][:strings.Index(svg[i+len(`data-axis="`):], `"`)], ";")
	require.GreaterOrEqual(t, len(knots), 2)
	assert.True(t, strings.HasPrefix(knots[0], "0,"))
	assert.True(t, strings.HasPrefix(knots[len(knots)-1], "3000,"))
	ax := newAxis([]int64{10, 15, 20, 2000, 2005, 1500, 2500, 1, 2}, in.EndMs)
	assert.Equal(t, ax.knots(), strings.Join(knots, ";"))
	assert.Contains(t, svg, `>1500 ms</text>`) // a tick drawn where the axis says
}
