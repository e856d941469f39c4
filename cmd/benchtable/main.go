// Command benchtable reads the output of make bench's benchmarks on standard input and
// prints one table: each figure, its budget and whether it is met (internal/benchtable).
// It exits 0 whether or not every budget is met: the table says so.
package main

import (
	"fmt"
	"os"

	"deliverylab/internal/benchtable"
)

func main() {
	res, err := benchtable.Parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(2)
	}
	missed := benchtable.Render(os.Stdout, benchtable.Rows, res)
	fmt.Printf("\n%d budget(s) measured and not met\n", missed)
}
