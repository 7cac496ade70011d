package jobclient

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/strait-dev/strait/contract"
)

func testCluster() *contract.ClusterStatus {
	return &contract.ClusterStatus{Runners: []contract.RunnerView{
		{RunnerInfo: contract.RunnerInfo{ID: "a", Slots: 4, Tags: map[string]string{"zone": "x"}}, State: contract.RunnerStateAlive, Free: 1,
			Owner: []string{"p1#1", "", "p1#1", "p2#1"}, Load: &contract.Load{CPU: 0.5, Memory: 0.25}},
		{RunnerInfo: contract.RunnerInfo{ID: "b", Slots: 2}, State: contract.RunnerStateAlive, Free: 2, Owner: []string{"", ""}},
		{RunnerInfo: contract.RunnerInfo{ID: "c", Slots: 8, Tags: map[string]string{"zone": "x"}}, State: contract.RunnerStateLost, Owner: make([]string, 8)},
	}}
}

func TestCapacity(t *testing.T) {
	cases := []struct {
		name                 string
		filter               map[string]string
		runners, slots, free int
	}{
		{"every alive runner", nil, 2, 6, 3},
		{"a tag", map[string]string{"zone": "x"}, 1, 4, 1},
		{"a tag no runner has", map[string]string{"zone": "y"}, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runners, slots, free := Capacity(testCluster(), c.filter)
			if runners != c.runners || slots != c.slots || free != c.free {
				t.Fatalf("got %d runners, %d slots, %d free; want %d, %d, %d", runners, slots, free, c.runners, c.slots, c.free)
			}
		})
	}
}

func TestOwnersAreListedOnce(t *testing.T) {
	cs := testCluster()
	cases := []struct {
		runner int
		want   []string
	}{
		{0, []string{"p1#1", "p2#1"}},
		{1, nil},
	}
	for _, c := range cases {
		if got := Owners(cs.Runners[c.runner]); !reflect.DeepEqual(got, c.want) {
			t.Errorf("runner %s: owners %v, want %v", cs.Runners[c.runner].ID, got, c.want)
		}
	}
}

func TestPrintCluster(t *testing.T) {
	var b bytes.Buffer
	if err := PrintCluster(&b, testCluster()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "RUNNER") {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{{"a", "ALIVE", "cpu 50% mem 25%", "[p1#1 p2#1]"}, {"b", "ALIVE", " - "}, {"c", "LOST"}} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("line %q lacks %q", lines[i+1], w)
			}
		}
	}
}

func TestStartRefusesARestoreWithoutItsJob(t *testing.T) {
	_, _, err := Start(context.Background(), nil, StartRequest{Restore: true})
	if err == nil || !strings.Contains(err.Error(), "give the id of the job to restore") {
		t.Fatalf("error %v", err)
	}
}
