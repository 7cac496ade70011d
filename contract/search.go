package contract

import (
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
)

// Search attributes Strait registers and keeps current on every job workflow.
const (
	SAJobName  = "StraitJobName"
	SAJobState = "StraitJobState"
	SAJobMode  = "StraitJobMode"
	// SAJobID is the job's number: a job started under a workflow id of Temporal's choosing
	// (`temporal workflow start` without --workflow-id) is found by it.
	SAJobID = "StraitJobId"
)

// SearchAttributes are the custom search attributes Strait's workflows use, with their
// types, as a namespace must have them registered.
var SearchAttributes = map[string]enumspb.IndexedValueType{
	SAJobName:  enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	SAJobState: enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	SAJobMode:  enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	SAJobID:    enumspb.INDEXED_VALUE_TYPE_INT,
}

// The search attributes as typed keys, for workflows that upsert them and clients that
// start jobs with them.
var (
	JobNameKey  = temporal.NewSearchAttributeKeyKeyword(SAJobName)
	JobStateKey = temporal.NewSearchAttributeKeyKeyword(SAJobState)
	JobModeKey  = temporal.NewSearchAttributeKeyKeyword(SAJobMode)
	JobIDKey    = temporal.NewSearchAttributeKeyInt64(SAJobID)
)
