// Package cputime reads the CPU time the process has used, for benchmarks that report
// throughput per core: on a busy machine wall time overstates the cost, CPU time is what a
// core pays.
package cputime
