package scenes

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryShippedSceneHasItsPlaceInTheLessons(t *testing.T) {
	names := Names()
	assert.Equal(t, lessons, names, "a new scene needs its place in lessons")
	for _, n := range names {
		_, err := Read(n)
		assert.NoError(t, err)
	}
}
