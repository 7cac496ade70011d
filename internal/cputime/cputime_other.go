//go:build !unix

package cputime

import "time"

// Used is zero: the process's CPU time is read on Unix systems only.
func Used() time.Duration { return 0 }
