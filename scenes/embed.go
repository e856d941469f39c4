// Package scenes embeds the shipped scene files, so the CLI, the tests and the browser
// all run the same scenes.
package scenes

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Names lists the shipped scenes (file names without .yaml) in display order: the
// order of their file names.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(out)
	return out
}

// Read returns a shipped scene's file.
func Read(name string) ([]byte, error) { return files.ReadFile(name + ".yaml") }
