package scene

import (
	"testing"

	"deliverylab/scenes"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingsEditTheSceneFile: a setting written into the YAML tree is read back by
// Parse; one the parser refuses gives its error.
func TestSettingsEditTheSceneFile(t *testing.T) {
	data, err := scenes.Read("acks-1-lost")
	require.NoError(t, err)
	s, err := WithSettings("acks-1-lost.yaml", data, [][2]string{{"producers.p1.config.acks", "all"},
		{"cluster.config.min.insync.replicas", "2"}, {"consumers.c1.config.isolation.level", "read_committed"}})
	require.NoError(t, err)
	assert.Equal(t, "all", s.Producers[0].Config.Properties()["acks"])
	assert.Equal(t, 2, s.Cluster.Config.MinInsyncReplicas, "a cluster.config mapping is added")
	assert.Equal(t, "read_committed", s.Consumers[0].Config.Properties()["isolation.level"], "a key is added to the config")

	_, err = WithSettings("acks-1-lost.yaml", data, [][2]string{{"producers.p1.config.enable.idempotence", "true"}})
	var se *Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "apps[0].config", se.Key)
	assert.Contains(t, se.Msg, "acks")
	_, err = WithSettings("acks-1-lost.yaml", data, [][2]string{{"producers.p7.config.acks", "1"}})
	assert.ErrorContains(t, err, `no setting "producers.p7.config.acks"`)
}

// TestAJobsCheckpointingModeIsASetting: the settings panel flips a Flink job between
// aligned and unaligned barriers, written into its checkpointing mapping.
func TestAJobsCheckpointingModeIsASetting(t *testing.T) {
	data, err := scenes.Read("flink-fails-during-alignment")
	require.NoError(t, err)
	s, err := Parse("x.yaml", data)
	require.NoError(t, err)
	var mode *Setting
	for _, st := range s.Settings() {
		if st.Key == "jobs.cases.checkpointing.mode" {
			mode = &st
		}
	}
	require.NotNil(t, mode)
	assert.Equal(t, "EXACTLY_ONCE", mode.Value)
	assert.Equal(t, []string{"EXACTLY_ONCE", "AT_LEAST_ONCE"}, mode.Choices)
	assert.Equal(t, "cases checkpointing.mode", mode.Label.En)
	c, err := WithSettings("x.yaml", data, [][2]string{{"jobs.cases.checkpointing.mode", "AT_LEAST_ONCE"}})
	require.NoError(t, err)
	assert.Equal(t, "AT_LEAST_ONCE", c.Jobs[0].Spec.Checkpointing.Mode.String())
	_, err = WithSettings("x.yaml", data, [][2]string{{"jobs.nojob.checkpointing.mode", "AT_LEAST_ONCE"}})
	assert.ErrorContains(t, err, `no setting "jobs.nojob.checkpointing.mode"`)
}

// TestEverySceneTakesItsOwnSettings: writing each shipped scene's settings back as they
// are parses to the same run (the edit and re-encoding lose nothing).
func TestEverySceneTakesItsOwnSettings(t *testing.T) {
	for _, name := range scenes.Names() {
		data, err := scenes.Read(name)
		require.NoError(t, err)
		s, err := Parse(name+".yaml", data)
		require.NoError(t, err)
		var same [][2]string
		for _, st := range s.Settings() {
			require.Contains(t, st.Choices, st.Value, "%s %s", name, st.Key)
			if st.Key != "producers.p1.config.enable.idempotence" { // written, it is no longer Kafka's default (R11)
				same = append(same, [2]string{st.Key, st.Value})
			}
		}
		c, err := WithSettings(name+".yaml", data, same)
		require.NoError(t, err, name)
		a, b := s.NewRun(), c.NewRun()
		a.AdvanceTo(3000)
		b.AdvanceTo(3000)
		assert.Equal(t, a.World.Trace().Hash(), b.World.Trace().Hash(), name)
	}
}

// TestAGroupsProtocolIsOneSetting: under Kafka 4 the settings panel offers
// group.protocol once per group, and the toggle writes it into every consumer of the
// group (a group runs one protocol; a consumer of another group keeps its own). Kafka
// 3.9 offers no toggle.
func TestAGroupsProtocolIsOneSetting(t *testing.T) {
	data, err := scenes.Read("consumer-joins")
	require.NoError(t, err)
	s, err := Parse("x.yaml", data)
	require.NoError(t, err)
	for _, st := range s.Settings() {
		assert.NotContains(t, st.Key, "group.protocol", "Kafka 3.9 has no consumer protocol to toggle")
	}
	k4, err := WithSettings("x.yaml", data, [][2]string{{KafkaVersionKey, "4.x"}})
	require.NoError(t, err)
	var keys []string
	for _, st := range k4.Settings() {
		if st.Label.En == "dashboard group.protocol" {
			keys = append(keys, st.Key)
			assert.Equal(t, "classic", st.Value)
			assert.Equal(t, []string{"classic", "consumer"}, st.Choices)
		}
	}
	require.Equal(t, []string{"consumers.c1.config.group.protocol"}, keys, "one toggle for the group")
	c, err := WithSettings("x.yaml", data, [][2]string{{KafkaVersionKey, "4.x"}, {keys[0], "consumer"}})
	require.NoError(t, err)
	for _, cs := range c.Consumers {
		assert.Equal(t, "consumer", cs.Config.GroupProtocol.String(), "%s follows its group", cs.Name)
	}
	run := c.NewRun()
	run.ToEnd()
	assert.Equal(t, 10, run.Judge().Messages["duplicated"], "the twin's outcome: only orders-1 moves")
}
