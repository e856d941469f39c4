package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type familied struct{ ping }

func (familied) Family() Family { return Fetch }

func TestFamilyOf(t *testing.T) {
	assert.Equal(t, Unknown, FamilyOf(ping{}), "a payload that does not say")
	assert.Equal(t, Fetch, FamilyOf(familied{}))
	assert.Equal(t, Fetch, FamilyOf(Refused{Orig: familied{}}), "a refusal is its request's")
	assert.Equal(t, "unknown", FamilyOf(Refused{Orig: ping{}}).String())
	for _, f := range Families {
		assert.NotEqual(t, "unknown", f.String())
	}
	assert.Equal(t, "unknown", Family(200).String())
}
