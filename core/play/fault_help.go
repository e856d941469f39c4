package play

import (
	"fmt"
	"strings"

	"deliverylab/core/fate"
	"deliverylab/core/show"
)

// FaultHelp is the fault box's syntax, one example of each kind it takes, with the
// scene's own node names so every example can be pasted as it is.
func (s *Session) FaultHelp() Text {
	w := s.run.World
	broker, app, other := "broker-1", "p1", "broker-2"
	job, task := "", "" // a Flink job and one of its operator subtasks
	brokers := 0
	for _, n := range w.NodeNames() {
		switch show.Kind(nodeState(w, n).Kind) {
		case show.Broker:
			if brokers == 0 {
				broker = n
			} else if brokers == 1 {
				other = n
			}
			brokers++
		case show.Job:
			if job == "" {
				job, task = n, jobTask(nodeState(w, n).Parts)
			}
		case show.Producer, show.Consumer, show.Streams:
			if app == "p1" {
				app = n
			}
		}
	}
	wire := int64(42)
	if ms := w.InFlight(); len(ms) > 0 {
		wire = ms[0].ID
	}
	type line struct {
		syntax string
		does   fate.Code
	}
	lines := []line{
		{"{crash: " + broker + "}", fate.HelpCrash},
		{"{crash: " + broker + ", for.ms: 2000}", fate.HelpCrashFor},
		{"{restart: " + broker + "}", fate.HelpRestart},
		{"{pause: " + app + "}", fate.HelpPause},
		{"{pause: " + app + ", for.ms: 3000}", fate.HelpPauseFor},
		{"{resume: " + app + "}", fate.HelpResume},
		{"{cut: [" + app + ", " + broker + "]}", fate.HelpCut},
		{"{cut-oneway: [" + broker + ", " + app + "]}", fate.HelpCutOneway},
		{"{heal: [" + app + ", " + broker + "]}", fate.HelpHeal},
		{"{heal-oneway: [" + broker + ", " + app + "]}", fate.HelpHealOneway},
		{"{heal: all}", fate.HelpHealAll},
		{"{partition: [[" + broker + "], [" + other + "]]}", fate.HelpPartition},
		{fmt.Sprintf("{drop: message, id: %d}", wire), fate.HelpDrop},
		{fmt.Sprintf("{delay: message, id: %d, delay.ms: 500}", wire), fate.HelpDelay},
		{fmt.Sprintf("{duplicate: message, id: %d}", wire), fate.HelpDuplicate},
		{"{when: {node: " + broker + ", event: appended}, crash: " + broker + "}", fate.HelpWhenNode},
		{"{when: {event: responded}, drop: response}", fate.HelpWhenResponse},
		{"{when: {event: requested}, delay: request, delay.ms: 500}", fate.HelpWhenRequest},
	}
	if job != "" && task != "" {
		lines = append(lines,
			line{"{crash: " + job + "/" + task + "}", fate.HelpCrashTask},
			line{"{when: {node: " + job + "/jobmanager, event: checkpoint-completed}, crash: " + job + "}", fate.HelpWhenJob})
	}
	help := say(fate.HelpIntro)
	for _, l := range lines {
		help = help.then(Text{En: "\n" + l.syntax + "  — ", Zh: "\n" + l.syntax + "  — "}).then(say(l.does))
	}
	return help
}

// jobTask is the subtask the help's example fails: the first operator subtask (neither
// a source nor a sink), else the first subtask.
func jobTask(parts []show.Part) string {
	for _, p := range parts {
		if !strings.HasPrefix(p.Name, "source-") && !strings.HasPrefix(p.Name, "sink-") {
			return p.Name
		}
	}
	if len(parts) > 0 {
		return parts[0].Name
	}
	return ""
}
