package scenes

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	sceneLink  = regexp.MustCompile(`href="\.\./index\.html#([a-z0-9-]+)"`)
	lessonLink = regexp.MustCompile(`href="([a-z0-9-]+\.html)"`)
	han        = regexp.MustCompile(`\p{Han}`)
)

// TestLessonsLinkShippedScenesInBothLanguages: every lesson (web/lessons) is listed on
// the lessons' index, says its plan in English and in Chinese, links only shipped
// scenes, and links the same scenes in the same order in both languages.
func TestLessonsLinkShippedScenesInBothLanguages(t *testing.T) {
	dir := filepath.Join("..", "web", "lessons")
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	require.NoError(t, err)
	var listed []string
	for _, m := range lessonLink.FindAllStringSubmatch(string(index), -1) {
		if m[1] != "index.html" && !slices.Contains(listed, m[1]) {
			listed = append(listed, m[1])
		}
	}
	require.Len(t, listed, len(files)-1, "the index lists every lesson")
	names := Names()
	for _, f := range files {
		if filepath.Base(f) == "index.html" {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			assert.Contains(t, listed, filepath.Base(f))
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			page := string(data)
			en, zh := section(t, page, "en"), section(t, page, "zh")
			enScenes, zhScenes := links(en), links(zh)
			assert.GreaterOrEqual(t, len(enScenes), 4, "a lesson is a sequence of scenes")
			assert.Equal(t, enScenes, zhScenes, "both languages follow the same scenes")
			for _, s := range enScenes {
				assert.Contains(t, names, s, "a shipped scene")
			}
			assert.Greater(t, len(han.FindAllString(zh, -1)), 200, "the Chinese section is in Chinese")
		})
	}
}

// section is the text of the page's <section lang="…">.
func section(t *testing.T, page, lang string) string {
	t.Helper()
	open := `<section lang="` + lang + `"`
	i := strings.Index(page, open)
	require.GreaterOrEqual(t, i, 0, "no %s section", lang)
	j := strings.Index(page[i:], "</section>")
	require.Greater(t, j, 0)
	return page[i : i+j]
}

func links(s string) []string {
	var out []string
	for _, m := range sceneLink.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
