// Package layers checks which way Strait's imports run: the architecture's layering, kept
// by a test rather than by review. Its rules read `go list -json` of the module (each
// package's own Go files; tests may reach further), and a broken rule fails naming the
// package, the file and line, and the import.
package layers
