package view

import (
	"hash/fnv"
	"image/color"
	"strings"
)

// Palette is the canvas's colours. Dark is the everyday one: a dark slate canvas with
// one hue per node kind and per message family (web/style.css repeats the fate colours
// for the DOM ledger). Projector is for a room: near-black, white text, saturated
// marks, so a washed-out beamer still separates them.
type Palette struct {
	Background, BoxFill, DownFill, Text, TextDim, Grid           color.RGBA
	HighWater, LeaderMark, Down, CutLink, Link                   color.RGBA
	Committed, Pending, ControlRec, CommitMark, AbortedRec       color.RGBA
	StableMark, AbortMark, Duplicate, Blocked, Fenced, Reordered color.RGBA
	GroupMark, ReaderMark, Hover, Highlight, Paused              color.RGBA
}

// Dark is the default palette.
var Dark = Palette{
	Background: rgb(0x0f172a),
	BoxFill:    rgb(0x1e293b),
	DownFill:   rgb(0x3a1616),
	Text:       rgb(0xe2e8f0),
	TextDim:    rgb(0x94a3b8),
	Grid:       rgb(0x334155),
	HighWater:  rgb(0xfbbf24),
	LeaderMark: rgb(0xfbbf24),
	Down:       rgb(0xef4444),
	CutLink:    rgb(0xef4444),
	Link:       rgb(0x334155), // a link between nodes that talk: calm, under everything
	Committed:  rgb(0x4c1d95),
	Pending:    rgb(0x1e1b4b),
	ControlRec: rgb(0x78350f), // an offset commit
	CommitMark: rgb(0x166534), // a transaction's COMMIT marker
	AbortedRec: rgb(0x334155), // a record of an aborted transaction: read_committed skips it
	StableMark: rgb(0x4ade80), // the last stable offset
	AbortMark:  rgb(0x991b1b), // a transaction's ABORT marker
	Duplicate:  rgb(0xf97316),
	Blocked:    rgb(0xfacc15), // a producer whose send() waits for buffer memory
	Fenced:     rgb(0xfb923c), // a broker that is up but fenced by the controller
	Reordered:  rgb(0xe879f9), // a record that landed behind a later send of its key
	GroupMark:  rgb(0x2dd4bf), // a group's committed offset (the group protocol's colour)
	ReaderMark: rgb(0x34d399), // a consumer's position (the consumer's colour)
	Hover:      rgb(0xffffff),
	Highlight:  rgb(0xfde047), // what the narration or the ledger points at
	Paused:     rgb(0x60a5fa), // a paused process (SIGSTOP, a long GC pause)
}

// Projector is the high-contrast palette.
var Projector = Palette{
	Background: rgb(0x050505),
	BoxFill:    rgb(0x111111),
	DownFill:   rgb(0x4a0000),
	Text:       rgb(0xffffff),
	TextDim:    rgb(0xe5e5e5),
	Grid:       rgb(0x8a8a8a),
	HighWater:  rgb(0xffd000),
	LeaderMark: rgb(0xffd000),
	Down:       rgb(0xff2d2d),
	CutLink:    rgb(0xff2d2d),
	Link:       rgb(0x6b6b6b),
	Committed:  rgb(0x6d28d9),
	Pending:    rgb(0x1e1b4b),
	ControlRec: rgb(0xb45309),
	CommitMark: rgb(0x15803d),
	AbortedRec: rgb(0x525252),
	StableMark: rgb(0x22ff88),
	AbortMark:  rgb(0xdc2626),
	Duplicate:  rgb(0xff8800),
	Blocked:    rgb(0xffee00),
	Fenced:     rgb(0xff9900),
	Reordered:  rgb(0xff44ff),
	GroupMark:  rgb(0x00ffdd),
	ReaderMark: rgb(0x00ff88),
	Hover:      rgb(0xffffff),
	Highlight:  rgb(0xffff00),
	Paused:     rgb(0x3b9bff),
}

// PaletteFor picks the palette of the mode.
func PaletteFor(projector bool) Palette {
	if projector {
		return Projector
	}
	return Dark
}

var kindColors = map[string]color.RGBA{
	"producer":   rgb(0x38bdf8),
	"controller": rgb(0xf59e0b),
	"broker":     rgb(0xa78bfa),
	"consumer":   rgb(0x34d399),
	"streams":    rgb(0xa3e635),
	"sink":       rgb(0xf472b6),
	"job":        rgb(0xf0abfc), // a Flink job: its frame, and its checkpoint coordinator's traffic
}

// KindColor is the border colour of a node of the given kind.
func KindColor(kind string) color.RGBA {
	if c, ok := kindColors[kind]; ok {
		return c
	}
	return Dark.TextDim
}

// familyColors is each message family's hue (sim.Family's names): a family shares its
// hue with the node kind that starts it where there is one (produce, sink), and metadata
// and the controller's traffic share the controller's.
var familyColors = map[string]color.RGBA{
	"produce":     rgb(0x38bdf8),
	"fetch":       rgb(0xa78bfa),
	"offsets":     rgb(0x34d399),
	"group":       rgb(0x2dd4bf),
	"transaction": rgb(0xfb923c),
	"metadata":    rgb(0xf59e0b),
	"control":     rgb(0xf59e0b),
	"sink":        rgb(0xf472b6),
	"stream":      rgb(0x22d3ee), // a Flink job's records and barriers between its subtasks
	"checkpoint":  rgb(0xf0abfc), // the checkpoint coordinator's: the job's own hue
}

// MessageColor is the colour of a message dot: its family's (play.Flight.Family).
// Responses are a lighter shade of their request, and a message of no known family
// still gets a stable colour of its own, by its kind.
func MessageColor(family, kind string) color.RGBA {
	c, found := familyColors[family]
	if !found {
		h := fnv.New32a()
		h.Write([]byte(strings.TrimSuffix(kind, "Response")))
		c = fallback[h.Sum32()%uint32(len(fallback))]
	}
	if strings.HasSuffix(kind, "Response") {
		c = Lighten(c, 0.45)
	}
	return c
}

var fallback = []color.RGBA{rgb(0xe879f9), rgb(0x22d3ee), rgb(0xa3e635), rgb(0xfacc15), rgb(0xf87171), rgb(0x818cf8)}

var fateColors = map[string]color.RGBA{
	"delivered":   rgb(0x22c55e),
	"duplicated":  rgb(0xf97316),
	"lost":        rgb(0xef4444),
	"unavailable": rgb(0xeab308),
	"failed":      rgb(0xa855f7),
	"pending":     rgb(0x64748b),
}

// FateColor is the colour the ledger uses for a message's fate.
func FateColor(fate string) color.RGBA {
	if c, ok := fateColors[fate]; ok {
		return c
	}
	return Dark.TextDim
}

// Lighten mixes c with white; f=0 keeps c, f=1 is white.
func Lighten(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*clamp(f, 0, 1) + 0.5) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), c.A}
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}
