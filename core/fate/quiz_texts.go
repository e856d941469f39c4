package fate

// The questions of a scene's quiz (core/scene's QuizQuestion, asked by the page): one for
// the verdict and one for each count; {output} is the output the verdict is about.
const (
	QuizVerdict     Code = "quiz-verdict"     // {output}
	QuizSent        Code = "quiz-sent"        //
	QuizAcked       Code = "quiz-acked"       //
	QuizDelivered   Code = "quiz-delivered"   // {output}
	QuizDuplicated  Code = "quiz-duplicated"  // {output}
	QuizLost        Code = "quiz-lost"        // {output}
	QuizUnavailable Code = "quiz-unavailable" // {output}
	QuizFailed      Code = "quiz-failed"      //
)
