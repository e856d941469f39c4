package view

import (
	"hash/fnv"
	"image/color"
	"strings"
)

// The palette: a dark slate canvas with one hue per node kind and per message family.
// web/style.css repeats the fate colours for the DOM ledger.
var (
	Background = rgb(0x0f172a)
	BoxFill    = rgb(0x1e293b)
	DownFill   = rgb(0x3a1616)
	Text       = rgb(0xe2e8f0)
	TextDim    = rgb(0x94a3b8)
	Grid       = rgb(0x334155)
	HighWater  = rgb(0xfbbf24)
	LeaderMark = rgb(0xfbbf24)
	Down       = rgb(0xef4444)
	CutLink    = rgb(0xef4444)
	Committed  = rgb(0x4c1d95)
	Pending    = rgb(0x1e1b4b)
	ControlRec = rgb(0x78350f) // an offset commit
	CommitMark = rgb(0x166534) // a transaction's COMMIT marker
	AbortedRec = rgb(0x334155) // a record of an aborted transaction: read_committed skips it
	StableMark = rgb(0x4ade80) // the last stable offset
	AbortMark  = rgb(0x991b1b) // a transaction's ABORT marker
	Duplicate  = rgb(0xf97316)
	Blocked    = rgb(0xfacc15) // a producer whose send() waits for buffer memory
	Fenced     = rgb(0xfb923c) // a broker that is up but fenced by the controller
	Reordered  = rgb(0xe879f9) // a record that landed behind a later send of its key
	GroupMark  = rgb(0x2dd4bf) // a group's committed offset (the group protocol's colour)
	ReaderMark = rgb(0x34d399) // a consumer's position (the consumer's colour)
	Hover      = rgb(0xffffff)
)

var kindColors = map[string]color.RGBA{
	"producer":   rgb(0x38bdf8),
	"controller": rgb(0xf59e0b),
	"broker":     rgb(0xa78bfa),
	"consumer":   rgb(0x34d399),
	"streams":    rgb(0xa3e635),
	"sink":       rgb(0xf472b6),
}

// KindColor is the border colour of a node of the given kind.
func KindColor(kind string) color.RGBA {
	if c, ok := kindColors[kind]; ok {
		return c
	}
	return TextDim
}

// message families by the Kafka API name a kind starts with; the first match wins.
var messageFamilies = []struct {
	prefix string
	c      color.RGBA
}{
	{"Produce", rgb(0x38bdf8)},
	{"Fetch", rgb(0xa78bfa)},
	{"OffsetCommit", rgb(0x34d399)},
	{"OffsetFetch", rgb(0x34d399)},
	{"JoinGroup", rgb(0x2dd4bf)},
	{"SyncGroup", rgb(0x2dd4bf)},
	{"Heartbeat", rgb(0x2dd4bf)},
	{"InitProducerId", rgb(0xfb923c)},
	{"AddPartitionsToTxn", rgb(0xfb923c)},
	{"AddOffsetsToTxn", rgb(0xfb923c)},
	{"EndTxn", rgb(0xfb923c)},
	{"WriteTxnMarkers", rgb(0xfb923c)},
	{"TxnOffsetCommit", rgb(0xfb923c)},
	{"LeaderAndIsr", rgb(0xf59e0b)},
	{"UpdateMetadata", rgb(0xf59e0b)},
	{"Metadata", rgb(0xf59e0b)},
	{"AlterPartition", rgb(0xf59e0b)},
	{"BrokerHeartbeat", rgb(0xf59e0b)},
	{"Write", rgb(0xf472b6)}, // writes to a sink
	{"Insert", rgb(0xf472b6)},
	{"Put", rgb(0xf472b6)},
	{"Commit", rgb(0xf472b6)},
}

// MessageColor is the colour of a message dot. Responses are a lighter shade of their
// request, and a kind nobody listed still gets a stable colour of its own.
func MessageColor(kind string) color.RGBA {
	base, response := kind, false
	if b, ok := strings.CutSuffix(kind, "Response"); ok {
		base, response = b, true
	}
	c, found := color.RGBA{}, false
	for _, f := range messageFamilies {
		if strings.HasPrefix(base, f.prefix) {
			c, found = f.c, true
			break
		}
	}
	if !found {
		h := fnv.New32a()
		h.Write([]byte(base))
		c = fallback[h.Sum32()%uint32(len(fallback))]
	}
	if response {
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
	return TextDim
}

// Lighten mixes c with white; f=0 keeps c, f=1 is white.
func Lighten(c color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*clamp(f, 0, 1) + 0.5) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), c.A}
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}
