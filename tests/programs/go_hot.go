// Two hot functions, for prof naming a stripped Go program by its .gopclntab
// (tests/integration/report/go_stripped.sh, tests/unit/analyze/test_gopclntab.c).
package main

import (
	"fmt"
	"os"
	"time"
)

//go:noinline
func alphaWork(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

// small enough for the compiler to inline into betaWork
func mix(i int) int {
	return i * 31 % 11
}

//go:noinline
func betaWork(n int) int {
	s := 1
	for i := 0; i < n; i++ {
		s ^= mix(i)
	}
	return s
}

func main() {
	secs := 2
	if len(os.Args) > 1 {
		fmt.Sscan(os.Args[1], &secs)
	}
	end := time.Now().Add(time.Duration(secs) * time.Second)
	t := 0
	for time.Now().Before(end) {
		t += alphaWork(3000000)
		t += betaWork(1000000)
	}
	fmt.Fprintln(os.Stderr, t)
}
