package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/gateway"
	"github.com/strait-dev/strait/jobclient"
)

// zoneJob is a job whose slots must be on a runner tagged zone = b.
const zoneJob = `
env { job.mode = BATCH, tag_filter { zone = "b" } }
source { FakeSource { plugin_output = "fake", row.num = 5, schema = { fields { id = bigint } } } }
sink { Console { plugin_input = "fake", log.print.data = false } }`

// runnerGW is runner gw as the resource manager sees it.
func runnerGW(t *testing.T) contract.RunnerView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := jobclient.Cluster(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cs.Runners {
		if r.ID == "gw" {
			return r
		}
	}
	t.Fatalf("runner gw is not in the cluster status %+v", cs.Runners)
	return contract.RunnerView{}
}

func workers(t *testing.T, query string) string {
	t.Helper()
	var o gateway.Overview
	callJSON(t, "GET", "/overview"+query, "", &o)
	return o.Workers
}

// SeaTunnel's RestApiIT testUpdateTagsSuccess and testClearTags: the tags posted become the
// runner's, /overview filters on them, strait cluster status shows them beside the runner's
// own, a job whose tag_filter only they match gets its slots, and {} clears them.
func TestUpdateTags(t *testing.T) {
	t.Cleanup(func() { call(t, "POST", "/update-tags", `{"zone": "a"}`) }) // the runner's own again

	var sub gateway.SubmitResponse
	callJSON(t, "POST", "/submit-job?format=hocon&jobName=zone-b-before", zoneJob, &sub)
	if v := waitState(t, sub.JobID, "FAILED"); !strings.Contains(string(v.ErrorMsg), "zone=b") {
		t.Fatalf("a job for zone b before the update failed with %s", v.ErrorMsg)
	}
	if n := workers(t, "?zone=b"); n != "0" {
		t.Fatalf("overview?zone=b before the update: %s workers", n)
	}

	var done map[string]string
	callJSON(t, "POST", "/update-tags?runner=gw", `{"zone": "b", "team": "x", "rack": 7}`, &done)
	if done["status"] != "success" || done["message"] != "update node tags done." {
		t.Fatalf("update-tags answered %v", done)
	}
	if a, b := workers(t, "?zone=a"), workers(t, "?zone=b&team=x&rack=7"); a != "0" || b != "1" {
		t.Fatalf("overview after the update: zone=a %s workers, zone=b %s", a, b)
	}
	r := runnerGW(t)
	if !r.TagsUpdated || r.Tags["zone"] != "b" || r.Tags["rack"] != "7" || r.FlagTags["zone"] != "a" {
		t.Fatalf("cluster status of gw after the update: tags %v, updated %v, flags %v", r.Tags, r.TagsUpdated, r.FlagTags)
	}
	callJSON(t, "POST", "/submit-job?format=hocon&jobName=zone-b-after", zoneJob, &sub)
	waitState(t, sub.JobID, "FINISHED")

	// the only runner when none is named; {} clears its tags
	callJSON(t, "POST", "/update-tags", `{}`, &done)
	if n := workers(t, "?zone=b"); n != "0" {
		t.Fatalf("overview?zone=b after clearing: %s workers", n)
	}
	if r := runnerGW(t); len(r.Tags) != 0 || !r.TagsUpdated {
		t.Fatalf("cluster status of gw after clearing: tags %v, updated %v", r.Tags, r.TagsUpdated)
	}
	// the runner's own tags again: no update is kept
	callJSON(t, "POST", "/hazelcast/rest/maps/update-tags", `{"zone": "a"}`, &done)
	if r := runnerGW(t); r.TagsUpdated || r.Tags["zone"] != "a" || workers(t, "?zone=a") != "1" {
		t.Fatalf("cluster status of gw with its own tags: tags %v, updated %v", r.Tags, r.TagsUpdated)
	}
}
