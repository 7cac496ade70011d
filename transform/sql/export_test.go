package sql

import "time"

// SetLocalZone replaces the zone of "now" and instant conversions for a test; the returned
// function restores it.
func SetLocalZone(loc *time.Location) func() {
	old := localZone
	localZone = loc
	return func() { localZone = old }
}
