package play

import (
	"deliverylab/core/fate"
	"deliverylab/core/scene"
)

// QuizItem is one of the scene's questions (quiz:) as the page asks it: the question
// and the choices before the run, and once the run has ended its answer — taken from
// the run as the ledger reports it, faults and all — with what explains it.
type QuizItem struct {
	Ask      string   `json:"ask"` // verdict | delivered | lost | duplicated | acked | failed | unavailable | sent
	Question Text     `json:"question"`
	Choices  []string `json:"choices"`
	// Answer is "" until the run has ended.
	Answer string `json:"answer"`
	// Why is the question's own explanation, else the last caption the run reached;
	// empty until the run has ended.
	Why Text `json:"why"`
}

// quizQuestions words each question a quiz may ask (scene.QuizAsks), in fate's tables.
var quizQuestions = map[string]fate.Code{
	scene.QuizVerdict: fate.QuizVerdict, "sent": fate.QuizSent, "acked": fate.QuizAcked,
	"delivered": fate.QuizDelivered, "duplicated": fate.QuizDuplicated, "lost": fate.QuizLost,
	"unavailable": fate.QuizUnavailable, "failed": fate.QuizFailed,
}

// quizState is the scene's quiz as of rep; captions are those reached so far.
func (s *Session) quizState(rep scene.Report, captions []Caption) []QuizItem {
	var out []QuizItem
	for _, q := range s.sc.Quiz {
		item := QuizItem{Ask: q.Ask, Question: say(quizQuestions[q.Ask], "output", rep.Output), Choices: q.Choices}
		if s.run.Ended {
			item.Answer = q.Answer(rep)
			item.Why = Text(q.Why)
			if item.Why.En == "" && len(captions) > 0 {
				last := captions[len(captions)-1]
				item.Why = Text{En: last.En, Zh: last.Zh}
			}
		}
		out = append(out, item)
	}
	return out
}
