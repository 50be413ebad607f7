// Command testsum reads `go test -json` events on stdin and prints what a
// person needs: one ok/FAIL line per package, the full output of failing
// tests, and a closing "N passed, N failed, N skipped" count of tests. It
// exits 1 when anything failed.
//
//	go test -json ./... | go run .ci/testsum.go
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	out := map[string][]string{} // package/test -> output lines
	var passed, failed, skipped int
	bad := false
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Println(sc.Text()) // build errors arrive as plain text
			continue
		}
		key := e.Package + "/" + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				if l := strings.TrimRight(e.Output, "\n"); strings.HasPrefix(l, "ok") || strings.HasPrefix(l, "FAIL") ||
					strings.HasPrefix(l, "?") || strings.HasPrefix(l, "panic") || strings.HasPrefix(l, "#") {
					fmt.Println(l)
				} else {
					out[key] = append(out[key], e.Output)
				}
			} else {
				out[key] = append(out[key], e.Output)
			}
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(out, key)
		case "skip":
			if e.Test != "" {
				skipped++
			}
			delete(out, key)
		case "fail":
			bad = true
			if e.Test != "" {
				failed++
			}
			fmt.Print(strings.Join(out[key], ""))
			delete(out, key)
		}
	}
	fmt.Printf("go: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if bad || failed > 0 {
		os.Exit(1)
	}
}
