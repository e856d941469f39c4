package scene

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/sim"

	"go.yaml.in/yaml/v3"
)

// FaultsYAML writes faults in the scene file's syntax, one list entry each, ready to
// paste under a scene's faults: key (Parse reads them back as they were).
func FaultsYAML(faults []FaultSpec) string {
	var b strings.Builder
	for _, f := range faults {
		b.WriteString("- ")
		b.WriteString(faultYAML(f))
		b.WriteString("\n")
	}
	return b.String()
}

// faultYAML is one fault as a flow mapping: its time or point, its action, its for.ms.
func faultYAML(f FaultSpec) string {
	var parts []string
	if f.When != nil {
		parts = append(parts, "when: "+triggerYAML(*f.When))
	} else {
		parts = append(parts, "at.ms: "+strconv.FormatInt(f.AtMs, 10))
	}
	parts = append(parts, actionYAML(f.Fault, f.When)...)
	if f.Fault.ForMs > 0 {
		parts = append(parts, "for.ms: "+strconv.FormatInt(f.Fault.ForMs, 10))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func triggerYAML(t sim.Trigger) string {
	var parts []string
	if t.Node != "" {
		parts = append(parts, "node: "+quote(t.Node))
	}
	parts = append(parts, "event: "+quote(string(t.Event)))
	if t.Message != "" {
		parts = append(parts, "message: "+quote(t.Message))
	}
	if t.Detail != "" {
		parts = append(parts, "detail: "+quote(t.Detail))
	}
	if t.Checkpoint != 0 {
		parts = append(parts, "checkpoint: "+strconv.FormatInt(t.Checkpoint, 10))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// actionYAML is a fault's action; a wire fault at a point names the request or the
// response just sent there.
func actionYAML(f sim.Fault, when *sim.Trigger) []string {
	switch f.Kind {
	case sim.FaultCrash, sim.FaultRestart, sim.FaultPause, sim.FaultResume:
		return []string{string(f.Kind) + ": " + quote(f.Node)}
	case sim.FaultCut, sim.FaultCutOneway, sim.FaultHeal, sim.FaultHealOneway:
		return []string{fmt.Sprintf("%s: [%s, %s]", f.Kind, quote(f.From), quote(f.To))}
	case sim.FaultHealAll:
		return []string{"heal: all"}
	case sim.FaultPartition:
		var gs []string
		for _, g := range f.Groups {
			var names []string
			for _, n := range g {
				names = append(names, quote(n))
			}
			gs = append(gs, "["+strings.Join(names, ", ")+"]")
		}
		return []string{"partition: [" + strings.Join(gs, ", ") + "]"}
	}
	what := "message"
	if when != nil {
		what = "response"
		if spec, ok := sim.LookupEvent(string(when.Event)); ok && slices.Contains(spec.Fields, sim.FieldRequestWire) {
			what = "request"
		}
	}
	out := []string{string(f.Kind) + ": " + what}
	if what == "message" {
		out = append(out, "id: "+strconv.FormatInt(f.WireID, 10))
	}
	if f.Kind == sim.FaultDelay {
		out = append(out, "delay.ms: "+strconv.FormatInt(f.DelayMs, 10))
	}
	return out
}

// quote writes a name as a YAML scalar, quoted when it needs to be ("p1#3": # starts a
// comment after a space, * an alias).
func quote(s string) string {
	var n yaml.Node
	n.SetString(s)
	out, err := yaml.Marshal(&n)
	if err != nil || strings.ContainsAny(s, "#*&!|>'\"%@`{}[],:") {
		return strconv.Quote(s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// WithFaults is a scene file's text with its faults replaced by these (the key added at
// the end when the scene had none): what `explore` hands back as a counterexample to
// run, share or save.
func WithFaults(src []byte, faults []FaultSpec) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 ||
		doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a scene file: expected a mapping at the top")
	}
	var list yaml.Node
	if err := yaml.Unmarshal([]byte(FaultsYAML(faults)), &list); err != nil {
		return nil, fmt.Errorf("writing faults: %w", err)
	}
	value := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if len(list.Content) > 0 {
		value = list.Content[0]
	}
	top := doc.Content[0]
	replaced := false
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "faults" {
			top.Content[i+1], replaced = value, true
		}
	}
	if !replaced {
		key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "faults"}
		top.Content = append(top.Content, key, value)
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("writing the scene: %w", err)
	}
	return []byte(b.String()), nil
}
