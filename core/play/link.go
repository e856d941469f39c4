package play

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"path"
	"strconv"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
	"deliverylab/scenes"
)

// linkPrefix is the version of the share link's format.
const linkPrefix = "v1."

// maxLinkBytes bounds what a link may inflate to: a scene file's limit and its faults.
const maxLinkBytes = scene.MaxSceneBytes + 1<<20

// link is what a share link carries: enough to rebuild the exact run.
type link struct {
	Scene     string      `json:"scene,omitempty"`  // a shipped scene's name
	Source    string      `json:"source,omitempty"` // or the user's own scene text
	File      string      `json:"file"`
	Seed      int64       `json:"seed"`
	Changes   [][2]string `json:"changes,omitempty"`
	Faults    []linkFault `json:"faults,omitempty"`
	EventsRun int64       `json:"eventsRun"`
	NowMs     int64       `json:"nowMs"`
	Waiting   int         `json:"waiting"` // the pausing caption the run waits at, or -1
}

type linkFault struct {
	AfterEvents int64  `json:"afterEvents"`
	AtMs        int64  `json:"atMs"`
	Text        string `json:"text"`
	// Desc: what it hit, as said when it was made (the message is not on the wire when
	// the link is opened); Tag: an armed fault's trigger tag.
	Desc Text   `json:"desc"`
	Tag  string `json:"tag,omitempty"`
}

// Link is the session as a share link (the part after '#'): "v1." and the base64url of
// a CRC-32 of the deflated JSON, then the deflated JSON itself.
func (s *Session) Link() string {
	l := link{File: s.source.File, Seed: s.source.Seed, Changes: s.source.Changes, EventsRun: s.run.World.EventsRun(), NowMs: s.NowMs(), Waiting: s.waiting}
	if s.source.Shipped {
		l.Scene = sceneName(s.source.File)
	} else {
		l.Source = string(s.source.Data)
	}
	for _, f := range s.injected {
		l.Faults = append(l.Faults, linkFault{AfterEvents: f.AfterEvents, AtMs: f.AtMs, Text: f.Text, Desc: f.Desc, Tag: f.Tag})
	}
	js, _ := json.Marshal(l) // plain strings and numbers: it cannot fail
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	_, _ = w.Write(js)
	_ = w.Close()
	out := binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(z.Bytes()))
	return linkPrefix + base64.RawURLEncoding.EncodeToString(append(out, z.Bytes()...))
}

var errDamaged = refuse(fate.LinkDamaged)

// OpenLink rebuilds the run a share link describes; a bare shipped scene name (the old
// "#acks-1-lost" form) opens that scene.
func OpenLink(s string) (*Session, error) {
	s = strings.TrimPrefix(s, "#")
	body, ok := strings.CutPrefix(s, linkPrefix)
	if !ok {
		if v, _, dot := strings.Cut(s, "."); dot && len(v) > 1 && v[0] == 'v' && strings.Trim(v[1:], "0123456789") == "" {
			return nil, refuse(fate.LinkNewer, "version", v)
		}
		return Load(s)
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(raw) < 4 || binary.BigEndian.Uint32(raw) != crc32.ChecksumIEEE(raw[4:]) {
		return nil, errDamaged
	}
	js, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw[4:])), maxLinkBytes))
	var l link
	if err != nil || json.Unmarshal(js, &l) != nil {
		return nil, errDamaged
	}
	return l.open()
}

func (l link) open() (*Session, error) {
	data, file := []byte(l.Source), l.File
	if l.Scene != "" {
		var err error
		if data, err = scenes.Read(l.Scene); err != nil {
			return nil, refuse(fate.NoScene, "name", fmt.Sprintf("%q", l.Scene))
		}
		file = l.Scene + ".yaml"
	}
	s, err := newSession(file, data)
	if err != nil {
		return nil, err
	}
	s.source.Shipped = l.Scene != ""
	if len(l.Changes) > 0 || l.Seed != s.sc.Seed {
		sc, err := scene.WithSettings(file, data, l.Changes)
		if err != nil {
			return nil, refuse(fate.LinkSettings, "err", err.Error())
		}
		sc.Seed, s.sc = l.Seed, tagSceneFaults(sc)
		s.source.Changes, s.source.Seed = l.Changes, l.Seed
	}
	for i, f := range l.Faults {
		fault, trigger, err := s.sc.ParseArmedFault(f.Text)
		if err != nil {
			return nil, refuse(fate.LinkFault, "n", strconv.Itoa(i+1), "err", err.Error())
		}
		s.injected = append(s.injected, injected{AfterEvents: f.AfterEvents, AtMs: f.AtMs, Text: f.Text, Fault: fault,
			Armed: trigger != nil, When: trigger, Tag: f.Tag, Desc: f.Desc})
	}
	s.restart()
	s.moveTo(l.EventsRun, l.NowMs)
	if l.Waiting >= 0 && l.Waiting < len(s.sc.Narration) && s.sc.Narration[l.Waiting].Pause {
		s.waiting = l.Waiting
	}
	return s, nil
}

// moveTo brings a fresh run to a position: events run, then the clock.
func (s *Session) moveTo(events, ms int64) {
	if s.run.World.EventsRun() >= events {
		s.applyDue(ms)
		s.run.World.AdvanceClock(ms)
		return
	}
	s.forward(ms, func(w *sim.World) bool { return w.EventsRun() >= events })
	s.applyDue(ms)
	s.run.World.AdvanceClock(ms)
}

// sceneName is a scene file's name without its folder and .yaml.
func sceneName(file string) string { return strings.TrimSuffix(path.Base(file), path.Ext(file)) }
