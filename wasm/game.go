//go:build js

package main

import (
	"fmt"
	"math"
	"reflect"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// At speed 1 the playground shows virtualMsPerSecond of virtual time per real second:
// slow enough to follow a single request across the wire.
const (
	virtualMsPerSecond = 25.0
	speedMin           = 0.05
	speedMax           = 1000.0
)

// Game is the Ebiten game around one play.Session. Update turns input into session
// commands and advances virtual time; Draw only paints the latest snapshot.
type Game struct {
	mu sync.Mutex // the JS bridge and the game loop both drive the session

	sess      *play.Session
	st        play.State // the session's snapshot after the last command
	fresh     bool       // st belongs to sess (false right after a load)
	view      uint64     // bumps whenever anything the page shows changes
	speed     float64
	accumUs   int64 // virtual time owed to the session, below one millisecond
	ticks     int64
	notice    notice // the last click that could not be applied
	lastClick click

	// Geometry: recomputed when the nodes, the cut links or the canvas size change.
	widthCSS, heightCSS, scale float64
	layout                     *view.Layout
	layoutView                 uint64 // g.view the layout was checked against
	layoutGen                  uint64 // bumps when the picture's static part changes
	laidNodes                  []play.NodeState
	laidCuts                   []play.Link
	hover                      view.Hit
	// talked: the pairs of nodes that have had a message on the wire since the load;
	// their links (and every cut one) are drawn as lanes, one per direction.
	talked map[play.Link]bool
	lanes  []view.Lane

	// How the canvas speaks and looks: the page's language, projector mode (bigger type,
	// high contrast) and what the page points at.
	lang      view.Lang
	projector bool
	highlight view.Highlight
	textStats textStats // the texts of the last Draw

	painter painter
	// A picture for slides (capture.go): asked for by the page, painted by the next
	// Draw, kept until the page takes it.
	captureWanted bool
	capture       captured
	perf          perf
	onReady       func() // called once, after the first frame is on screen
	onChange      func() // called from Update when the page has something new to show
	notifiedView  uint64 // g.view when onChange was last called
	// learned counts the ticks that learned more of the timeline (learn): the page hears
	// of them, the canvas has nothing new to draw.
	learned, notifiedLearned uint64

	// Sleeping: after idleTicks quiet ticks the game asks the page to stop its frame
	// loop (onIdle); any input or command wakes it, and the next tick clears asleep.
	onIdle func()
	quiet  int
	asleep bool

	// learnedAt: when the last learning of the timeline ended (learn).
	learnedAt time.Time
}

// idleTicks is how long nothing must change before the frame loop sleeps: a second.
const idleTicks = 60

// notice is a user-facing message about a click that failed (e.g. the session refused
// the fault); Seq lets the page show each one once.
type notice struct {
	Seq    int    `json:"seq"`
	Text   string `json:"text"`
	TextZh string `json:"textZh,omitempty"` // the Chinese, when the session gave one
}

func newGame() *Game {
	return &Game{speed: 1, scale: 1, lang: view.En, talked: map[play.Link]bool{}}
}

// LayoutF makes the screen as many device pixels as the canvas has, so text and lines
// stay sharp on high-DPI screens; all geometry is in CSS pixels times g.scale.
func (g *Game) LayoutF(outsideWidth, outsideHeight float64) (float64, float64) {
	s := ebiten.Monitor().DeviceScaleFactor()
	if s <= 0 {
		s = 1
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if outsideWidth != g.widthCSS || outsideHeight != g.heightCSS || s != g.scale {
		g.widthCSS, g.heightCSS, g.scale = outsideWidth, outsideHeight, s
		g.layoutView = math.MaxUint64 // force relayout
	}
	return math.Max(1, outsideWidth*s), math.Max(1, outsideHeight*s)
}

// Layout is required by ebiten.Game; LayoutF takes precedence.
func (g *Game) Layout(outsideWidth, outsideHeight int) (int, int) {
	w, h := g.LayoutF(float64(outsideWidth), float64(outsideHeight))
	return int(w), int(h)
}

// Update runs once per tick (60 a second): input first, then virtual time.
func (g *Game) Update() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in Update: %v\n%s", r, debug.Stack())
		}
	}()
	start := time.Now()
	changed, sleep := g.tick(readPointer())
	// Outside the lock: the page may call straight back into the bridge.
	if changed && g.onChange != nil {
		g.onChange()
	}
	if sleep && g.onIdle != nil {
		g.onIdle()
	}
	g.mu.Lock()
	g.perf.addUpdate(time.Since(start))
	g.mu.Unlock()
	return nil
}

// tick is one Update under the lock. It reports whether the page has something new to
// show since the last tick, and whether the frame loop may now sleep.
func (g *Game) tick(in pointerInput) (changed, sleep bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ticks++
	g.asleep = false
	hover := g.hover
	g.relayout()
	g.pointer(in)
	g.learn()
	g.advance()
	changed = g.view != g.notifiedView || g.learned != g.notifiedLearned
	g.notifiedView, g.notifiedLearned = g.view, g.learned
	if changed || hover != g.hover || (g.st.Playing && !g.st.Ended) {
		g.quiet = 0
	} else {
		g.quiet++
	}
	if g.quiet >= idleTicks {
		g.quiet, g.asleep = 0, true
		return changed, true
	}
	return changed, false
}

// learn goes on learning the session's timeline (play.Session.LearnFor) for at most
// learnBudget of this tick: a long run's length is learned over many frames, and the
// page answers meanwhile. Ebiten runs several Updates in one frame when it is behind;
// only the first of them learns. A tick that learns is not quiet: the loop does not
// sleep before the timeline is learned.
func (g *Game) learn() {
	if g.sess == nil || !g.sess.Learning() || time.Since(g.learnedAt) < learnRest {
		return
	}
	g.learnFor(learnBudget)
	// Only the timeline changed (the scrubber's length, its marks): a new snapshot for the
	// page, but the same view, so the canvas is not painted again for it (a paint of the
	// whole canvas each frame had been most of a learning frame with software GL).
	g.st, g.fresh = g.sess.State(), true
	g.learned++
}

// learnFor learns the timeline in chunks of learnChunk events until it is learned or
// budget has passed. Its clock is the page's, not the simulation's: what is learned
// does not depend on where the chunks end (play's tests), only how soon.
func (g *Game) learnFor(budget time.Duration) {
	start := time.Now()
	for g.sess != nil && g.sess.Learning() && time.Since(start) < budget {
		g.sess.LearnFor(learnChunk)
	}
	g.learnedAt = time.Now()
}

// Learning a timeline takes at most learnBudget of a frame, in chunks of learnChunk
// events (a millisecond or two under WebAssembly even for a heavy run; a chunk of 500
// had run past the budget by up to 50 ms while the collector made it help), and then rests
// learnRest, which the Updates Ebiten runs back to back to catch up fall within and the
// next frame does not. The page's longest stop while it learns is a frame's learning
// and then the collector marking the heap, which Go's js/wasm runtime finishes in one go
// before it hands the thread back: 30 ms a frame had made those stops 30 ms longer, and
// a rest of 8 ms after a frame's learning had skipped every other frame (learning a
// 2,000,000-event run: 30 ms and 8 ms, 10.5 s; 10 ms and 4 ms, 9.1 s).
const (
	learnBudget = 10 * time.Millisecond
	learnChunk  = 200
	learnRest   = 4 * time.Millisecond
)

// quietFactor: while only background traffic (heartbeats, empty long polls) is on the
// wire, time passes this many times faster. The session stops the hurry the moment a
// message worth watching is sent, so nothing is skipped: scenes wait seconds for
// timeouts that are not worth watching at the speed of a request.
const quietFactor = 200

// advance moves virtual time while playing. The session takes whole milliseconds, so
// the remainder is carried to the next tick (and used by Draw to interpolate).
func (g *Game) advance() {
	if g.sess == nil || !g.st.Playing || g.st.Ended {
		g.accumUs = 0
		return
	}
	add := int64(math.Round(g.speed * virtualMsPerSecond * 1000 / float64(ebiten.TPS())))
	quiet := g.st.Quiet
	if quiet {
		add *= quietFactor
	}
	g.accumUs += add
	if ms := g.accumUs / 1000; ms > 0 {
		g.accumUs -= ms * 1000
		if quiet {
			g.sess.FastForward(ms)
		} else {
			g.sess.Advance(ms)
		}
		g.refresh()
	}
}

// refresh takes a new snapshot after a session command, unless the session says
// nothing visible changed (Version is cheap; State builds the whole picture).
func (g *Game) refresh() {
	if g.fresh && g.sess.Version() == g.st.Version {
		return
	}
	g.st, g.fresh = g.sess.State(), true
	g.view++
	g.relayout()
}

// relayout recomputes the geometry when what it depends on changed. It compares the
// nodes only when the session's version moved, so an idle tick costs nothing.
func (g *Game) relayout() {
	if g.sess == nil || g.widthCSS <= 0 || g.layoutView == g.view {
		return
	}
	resized := g.layoutView == math.MaxUint64
	g.layoutView = g.view
	grew := view.Talked(g.talked, g.st.InFlight)
	sameNodes := !resized && g.layout != nil && reflect.DeepEqual(g.laidNodes, g.st.Nodes)
	if sameNodes && !grew && reflect.DeepEqual(g.laidCuts, g.st.CutLinks) {
		return
	}
	if !sameNodes {
		g.layout = view.ComputeWith(g.st.Nodes, g.widthCSS, g.heightCSS, view.MetricsFor(g.widthCSS, g.heightCSS, g.projector))
	}
	g.lanes = g.layout.Lanes(view.SortedLinks(g.talked), g.st.CutLinks)
	g.laidNodes, g.laidCuts = g.st.Nodes, g.st.CutLinks
	g.layoutGen++
}

// drawNowMs is the virtual time the picture shows: the session's time plus the part of
// a millisecond already owed to it, so messages glide instead of stepping.
func (g *Game) drawNowMs() float64 {
	return float64(g.st.NowMs) + float64(g.accumUs)/1000
}
