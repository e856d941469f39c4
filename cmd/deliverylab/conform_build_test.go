package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The runner runs Kafka 3.9 from the main build and Kafka 4.4 from kafka-4's: each from
// its own jar and its own release's jars; any other release is refused, saying which run.
func TestEachKafkaReleaseRunsFromItsOwnBuild(t *testing.T) {
	old, err := runnerFor("3.9")
	require.NoError(t, err)
	four, err := runnerFor("4.4")
	require.NoError(t, err)
	cp := func(b runnerBuild) string { return b.args("conformance", "Main")[1] }
	assert.Contains(t, cp(old), filepath.Join("conformance", "target", "conformance-1.jar"))
	assert.Contains(t, cp(old), filepath.Join("conformance", "target", "lib", "*"))
	assert.Contains(t, cp(four), filepath.Join("conformance", "target", "kafka-4", "conformance-kafka-4-1.jar"))
	assert.Contains(t, cp(four), filepath.Join("conformance", "target", "kafka-4", "lib", "*"))
	assert.NotContains(t, cp(four), filepath.Join("target", "lib", "*"), "no Kafka 3.9 jar on Kafka 4's class path")
	assert.Equal(t, filepath.Join("kafka-4", "pom.xml"), four.pom)

	_, err = runnerFor("4.0")
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "3.9 or 4.4"), err.Error())
}

// Scenes that need the same cluster run one after another, each group where its first
// scene was; a scene that makes no real run stays where it is.
func TestScenesOnOneClusterRunOneAfterAnother(t *testing.T) {
	assert.Equal(t, []int{0, 2, 4, 1, 5, 3}, runOrder([]string{"a", "b", "a", "", "a", "b"}))
}
