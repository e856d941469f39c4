package shard

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"deliverylab/core/play"
	"deliverylab/core/scene"
)

// The found scene's own words, in both languages: they are part of the scene file the
// page loads and saves, like any scene's title and summary.
var (
	foundTitle   = play.Text{En: "Found: ", Zh: "反例："}
	foundSummary = play.Text{
		En: "“Find a failure” found this fault schedule for “%s”: %s. The scene's narration is left out: it told the story of the scene's own faults.",
		Zh: "“寻找反例”为「%s」找到的故障组合：%s。原场景的解说已去掉：它讲的是原场景自己的故障。",
	}
	faultSep = play.Text{En: "; ", Zh: "；"}
)

// Found is a scene file with its faults replaced by a schedule the search found
// (scene.WithFaults), titled as a finding, its summary saying what was found, its
// narration left out (it narrates the scene's own faults, which are gone) and the page's
// seed written in when it has one. sc is the scene as searched; the result parses.
func Found(src []byte, sc *scene.Scene, seed *int64, faults []scene.FaultSpec) ([]byte, error) {
	withFaults, err := scene.WithFaults(src, faults)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(withFaults, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("writing the found scene: %v", err)
	}
	top := doc.Content[0]
	title := sc.Title
	if !strings.HasPrefix(title.En, foundTitle.En) {
		title = scene.Text{En: foundTitle.En + title.En, Zh: foundTitle.Zh + title.Zh}
	}
	var en, zh []string
	for _, f := range faults {
		t := play.SceneFaultText(f)
		en, zh = append(en, t.En), append(zh, t.Zh)
	}
	summary := play.Text{
		En: fmt.Sprintf(foundSummary.En, sc.Title.En, strings.Join(en, faultSep.En)),
		Zh: fmt.Sprintf(foundSummary.Zh, sc.Title.Zh, strings.Join(zh, faultSep.Zh)),
	}
	set(top, "title", text(play.Text(title)))
	set(top, "summary", text(summary))
	drop(top, "narration")
	if seed != nil {
		set(top, "seed", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(*seed, 10)})
	}
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("writing the found scene: %w", err)
	}
	out := []byte(b.String())
	if _, err := scene.Parse(sc.Name+foundSuffix+".yaml", out); err != nil {
		return nil, fmt.Errorf("the found scene does not read back: %w", err)
	}
	return out, nil
}

// text is a {en, zh} flow mapping of double-quoted strings.
func text(t play.Text) *yaml.Node {
	str := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	}
	key := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle,
		Content: []*yaml.Node{key("en"), str(t.En), key("zh"), str(t.Zh)}}
}

// set gives a top-level key a value, the key added after title (or first) when the
// file has none.
func set(top *yaml.Node, name string, value *yaml.Node) {
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == name {
			top.Content[i+1] = value
			return
		}
	}
	at := 0
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "title" || top.Content[i].Value == "summary" {
			at = i + 2
		}
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}
	top.Content = append(top.Content[:at], append([]*yaml.Node{key, value}, top.Content[at:]...)...)
}

// drop removes a top-level key.
func drop(top *yaml.Node, name string) {
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == name {
			top.Content = append(top.Content[:i], top.Content[i+2:]...)
			return
		}
	}
}
