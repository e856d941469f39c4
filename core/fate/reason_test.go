package fate

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each reason code has a template in every language, and the templates of one code use
// the same placeholders: a reason cannot say more in one language than in the other.
func TestReasonTemplatesSayTheSameInEveryLanguage(t *testing.T) {
	en := templates[En]
	for _, lang := range Langs {
		require.ElementsMatch(t, slices.Collect(maps.Keys(en)), slices.Collect(maps.Keys(templates[lang])), "codes of %s", lang)
		for code, tmpl := range templates[lang] {
			assert.ElementsMatch(t, placeholders(en[code]), placeholders(tmpl), "%s in %s", code, lang)
			assert.NotEmpty(t, tmpl, "%s in %s", code, lang)
		}
	}
	assert.Equal(t, []string{"ms", "offset", "partition"}, placeholders(en[AckedAtOffset]))
	assert.Equal(t, "3 effects in db", Because(ManyEffects, "count", "3", "output", "db").Text(En))
}
