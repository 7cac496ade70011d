//go:build race

package codec

// raceEnabled: the race detector makes sync.Pool drop items, so allocation counts differ.
const raceEnabled = true
