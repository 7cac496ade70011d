package contract

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A zero tunable is its default; one that is set is kept.
func TestTunablesEffective(t *testing.T) {
	got := Tunables{PipelineEventsBeforeContinue: 3, ProgressInterval: 50 * time.Millisecond}.Effective()
	want := Tunables{
		JobEventsBeforeContinue:      DefaultJobEventsBeforeContinue,
		PipelineSilence:              DefaultPipelineSilence,
		PipelineEventsBeforeContinue: 3,
		FailoverRunnerWait:           DefaultFailoverRunnerWait,
		ProgressInterval:             50 * time.Millisecond,
		ProgressHeartbeat:            DefaultProgressHeartbeat,
		ResourceEventsBeforeContinue: DefaultResourceEventsBeforeContinue,
	}
	if got != want {
		t.Fatalf("effective %+v, want %+v", got, want)
	}
}

// Inputs without tunables encode as they did before the inputs had them, so recorded
// histories keep their shape; inputs with some carry only those.
func TestTunablesLeftOutWhenZero(t *testing.T) {
	for _, v := range []any{JobInput{Config: "env {}"}, PipelineInput{}, ResourceState{}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "tunables") {
			t.Errorf("%T encodes its zero tunables: %s", v, b)
		}
	}
	b, err := json.Marshal(JobInput{Tunables: Tunables{JobEventsBeforeContinue: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"tunables":{"jobEventsBeforeContinue":3}`) {
		t.Errorf("encoded %s", b)
	}
}
