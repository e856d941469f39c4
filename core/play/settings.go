package play

import (
	"fmt"
	"slices"

	"deliverylab/core/fate"
	"deliverylab/core/scene"
)

// sceneSource is what the session's scene was made from: the file, and the user's
// changes to it (settings, seed), which a share link carries.
type sceneSource struct {
	Shipped bool
	File    string
	Data    []byte
	Seed    int64
	Changes [][2]string // setting key and value, one per key, in the order first made
	base    []scene.Setting
}

func (src sceneSource) state() Source {
	if src.Shipped {
		return Source{Kind: "shipped", Name: sceneName(src.File)}
	}
	return Source{Kind: "own", Name: src.File}
}

// Setting is one of the scene's key settings as a toggle.
type Setting struct {
	Key     string   `json:"key"`
	Label   Text     `json:"label"`
	Value   string   `json:"value"`
	Choices []string `json:"choices"`
	Changed bool     `json:"changed"` // differs from the scene file
	Default string   `json:"default"` // the scene file's value: what Reset goes back to
}

func (s *Session) settings() []Setting {
	out := []Setting{}
	for _, st := range s.sc.Settings() {
		changed, def := false, st.Value
		for _, b := range s.source.base {
			if b.Key == st.Key {
				changed, def = b.Value != st.Value, b.Value
			}
		}
		out = append(out, Setting{Key: st.Key, Label: Text(st.Label), Value: st.Value, Choices: st.Choices, Changed: changed, Default: def})
	}
	return out
}

// SetSetting changes one of the scene's key settings and re-runs from 0 ms with the
// same recorded faults, back to the current time. A change the scene parser refuses is
// refused with its error, and nothing is lost.
func (s *Session) SetSetting(key, value string) error {
	i := slices.IndexFunc(s.sc.Settings(), func(st scene.Setting) bool { return st.Key == key })
	if i < 0 {
		return refuse(fate.NoSetting, "key", fmt.Sprintf("%q", key))
	}
	if choices := s.sc.Settings()[i].Choices; !slices.Contains(choices, value) {
		return refuse(fate.SettingChoices, "key", key, "choices", fmt.Sprint(choices), "value", fmt.Sprintf("%q", value))
	}
	changes := slices.Clone(s.source.Changes)
	if j := slices.IndexFunc(changes, func(c [2]string) bool { return c[0] == key }); j >= 0 {
		changes[j][1] = value
	} else {
		changes = append(changes, [2]string{key, value})
	}
	sc, err := scene.WithSettings(s.source.File, s.source.Data, changes)
	if err != nil {
		return refuse(fate.SettingRefused, "key", key, "value", value, "err", err.Error())
	}
	s.source.Changes = changes
	s.rerun(sc)
	return nil
}

// SetSeed re-runs the scene with another seed, with the same faults, back to the
// current time.
func (s *Session) SetSeed(seed int64) {
	s.source.Seed = seed
	sc := *s.sc // the seed only picks the run's randomness: the parsed scene is the same
	s.rerun(&sc)
}

// rerun starts the changed scene from 0 ms and goes back to the current time. The
// recorded faults' event counts belong to the old run: they are replayed by time.
func (s *Session) rerun(sc *scene.Scene) {
	at := s.NowMs()
	sc.Seed = s.source.Seed
	s.sc, s.branch = tagSceneFaults(sc), nil
	for i := range s.injected {
		s.injected[i].AfterEvents = -1
	}
	s.restart()
	_ = s.SeekTo(at) // at is not negative: it was the run's time
}
