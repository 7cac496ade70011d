package contract

import "go.temporal.io/sdk/temporal"

// Search attributes Strait registers and keeps current on every job workflow.
const (
	SAJobName  = "StraitJobName"
	SAJobState = "StraitJobState"
	SAJobMode  = "StraitJobMode"
)

// The search attributes as typed keys, for workflows that upsert them and clients that
// start jobs with them.
var (
	JobNameKey  = temporal.NewSearchAttributeKeyKeyword(SAJobName)
	JobStateKey = temporal.NewSearchAttributeKeyKeyword(SAJobState)
	JobModeKey  = temporal.NewSearchAttributeKeyKeyword(SAJobMode)
)
