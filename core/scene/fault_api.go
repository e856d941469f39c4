package scene

import (
	"fmt"

	"deliverylab/core/sim"

	"go.yaml.in/yaml/v3"
)

// ParseFault reads one interactive fault in the scene file's syntax (YAML or JSON, such
// as {"crash": "broker-1"} or {"drop": "message", "id": 42}); it happens now, so it
// takes neither at.ms nor when.
func (s *Scene) ParseFault(text string) (sim.Fault, error) {
	f, _, err := s.parseInteractive(text, false)
	return f, err
}

// ParseArmedFault reads an interactive fault that may wait for a protocol point: with
// `when` (the scene file's trigger) it returns the trigger to arm, its Fault set; without,
// the fault to apply now and a nil trigger. It takes no at.ms.
func (s *Scene) ParseArmedFault(text string) (sim.Fault, *sim.Trigger, error) {
	return s.parseInteractive(text, true)
}

func (s *Scene) parseInteractive(text string, armed bool) (sim.Fault, *sim.Trigger, error) {
	// The scene file's strict reading: one document, no tags, aliases or repeated keys,
	// and errors that quote a short prefix of what was typed.
	n, long, derr := decode("fault", []byte(text))
	p := &parser{file: "fault", long: long}
	switch {
	case derr != nil && derr.Key != "":
		return sim.Fault{}, nil, fmt.Errorf("fault: %s: %s", derr.Key, derr.Msg)
	case derr != nil || n.Kind != yaml.MappingNode:
		return sim.Fault{}, nil, fmt.Errorf("fault: expected a mapping such as {crash: broker-1}, got %q", cutRunes(text, quoteRunes))
	}
	for i := 0; i < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "at.ms" || (k == "when" && !armed) {
			return sim.Fault{}, nil, fmt.Errorf("fault: %s is for scene files; an injected fault happens now", k)
		}
	}
	fs, ok := p.fault(s, n, "fault", true)
	if !ok {
		return sim.Fault{}, nil, fmt.Errorf("%s: %s", p.err.Key, p.err.Msg)
	}
	return fs.Fault, fs.When, nil
}
