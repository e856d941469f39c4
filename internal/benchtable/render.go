package benchtable

import (
	"fmt"
	"io"
	"strconv"
)

// Render writes the rows as a Markdown table: figure, measured, budget, met. It returns
// how many budgets were measured and not met.
func Render(w io.Writer, rows []Row, res Results) int {
	missed := 0
	fmt.Fprintln(w, "| figure | measured | budget | met |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, r := range rows {
		v, ok := r.Value(res)
		measured, budget, met := "—", "—", ""
		if ok {
			measured = format(v, r.Unit)
		} else if r.Missing != "" {
			measured = r.Missing
		} else {
			measured = "not measured in this run"
		}
		if r.Budget != 0 {
			op := "≥ "
			if r.AtMost {
				op = "≤ "
			}
			budget = op + format(r.Budget, r.Unit)
			switch {
			case !ok:
				met = "?"
			case r.AtMost && v <= r.Budget, !r.AtMost && v >= r.Budget:
				met = "yes"
			default:
				met = "**no**"
				missed++
			}
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", r.Figure, measured, budget, met)
	}
	return missed
}

// format prints a figure in its unit: sizes in MB from bytes, rates grouped by thousands.
func format(v float64, unit string) string {
	switch unit {
	case "MB":
		return strconv.FormatFloat(v/megabytes, 'f', 2, 64) + " MB"
	case "×":
		return strconv.FormatFloat(v, 'f', 2, 64) + "×"
	case "events/s", "schedules/s":
		return thousands(int64(v+0.5)) + " " + unit
	}
	prec := 1
	if v >= 100 {
		prec = 0
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + unit
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
