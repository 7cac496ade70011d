// Package monitoring_test checks the Grafana dashboard and the Prometheus alert rules shipped
// beside it against the metrics Strait exports.
package monitoring_test

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"gopkg.in/yaml.v3"

	"github.com/strait-dev/strait/exchange"
	"github.com/strait-dev/strait/metrics"
	"github.com/strait-dev/strait/taskrunner"
)

// exported is every metric family name Strait's collectors describe: a runner's, the
// exchange's, a worker's (jobs, runners, checkpoints).
func exported(t *testing.T) map[string]bool {
	t.Helper()
	r := taskrunner.New(taskrunner.Config{ID: "r"}, nil)
	defer r.Close()
	reg := prometheus.NewRegistry()
	if _, err := exchange.NewMetrics(reg); err != nil {
		t.Fatal(err)
	}
	cs := []prometheus.Collector{taskrunner.NewCollector(r), metrics.NewCheckpoints(), metrics.NewJobs(nil, "default", nil)}
	ch := make(chan *prometheus.Desc, 256)
	go func() {
		for _, c := range cs {
			c.Describe(ch)
		}
		reg.Describe(ch)
		close(ch)
	}()
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	names := map[string]bool{}
	for d := range ch {
		m := fq.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("description without a name: %s", d)
		}
		names[m[1]] = true
	}
	return names
}

// metricName finds the Strait series a PromQL expression reads.
var metricName = regexp.MustCompile(`\b(strait_[a-z0-9_]+)\b`)

// seriesLike finds identifiers shaped like a metric name of any exporter (a unit or _total
// suffix), so an expression cannot read a series Strait does not export under another prefix.
var seriesLike = regexp.MustCompile(`\b([a-z][a-z0-9_]*_(?:total|seconds|bytes|records))\b`)

func checkExpr(t *testing.T, names map[string]bool, where, expr string) {
	t.Helper()
	if strings.TrimSpace(expr) == "" {
		t.Errorf("%s: empty expression", where)
		return
	}
	found := metricName.FindAllStringSubmatch(expr, -1)
	if len(found) == 0 {
		t.Errorf("%s: reads no Strait metric: %s", where, expr)
	}
	for _, m := range append(found, seriesLike.FindAllStringSubmatch(expr, -1)...) {
		if !names[m[1]] {
			t.Errorf("%s: %s is not a metric Strait exports", where, m[1])
		}
	}
}

type dashboard struct {
	Title      string  `json:"title"`
	UID        string  `json:"uid"`
	Panels     []panel `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Type       string `json:"type"`
			Query      any    `json:"query"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
}

type panel struct {
	Title   string `json:"title"`
	Type    string `json:"type"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

func TestDashboardReadsExportedMetrics(t *testing.T) {
	names := exported(t)
	b, err := os.ReadFile("grafana/strait-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	if d.Title == "" || d.UID == "" {
		t.Fatalf("the dashboard has no title or uid: %q %q", d.Title, d.UID)
	}
	exprs := 0
	var titles []string
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		titles = append(titles, p.Title)
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			checkExpr(t, names, "panel "+p.Title, q.Expr)
			exprs++
		}
	}
	for _, v := range d.Templating.List {
		if v.Type == "datasource" {
			// the data source is asked for, so the file works provisioned and imported
			if v.Query != "prometheus" {
				t.Errorf("variable %s picks a data source of type %v, want prometheus", v.Name, v.Query)
			}
			continue
		}
		checkExpr(t, names, "variable "+v.Name, v.Definition)
	}
	if strings.Contains(string(b), "${DS_") {
		t.Error("the dashboard names an import-time input (${DS_...}), which provisioning does not fill in")
	}
	// what an operator looks for first
	for _, want := range []string{"Jobs by state", "Rows/s in", "Rows/s out", "Checkpoint duration", "Age of the last completed checkpoint",
		"Checkpoints completed and failed", "Restarts", "lag", "Busy time", "Back-pressured time", "skipped by sources"} {
		if !containsPart(titles, want) {
			t.Errorf("no panel shows %q: %v", want, titles)
		}
	}
	if exprs < 10 {
		t.Fatalf("%d queries", exprs)
	}
}

func containsPart(list []string, part string) bool {
	for _, s := range list {
		if strings.Contains(s, part) {
			return true
		}
	}
	return false
}

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []rule `yaml:"rules"`
	} `yaml:"groups"`
}

type rule struct {
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

var promDuration = regexp.MustCompile(`^([0-9]+(ms|s|m|h|d|w|y))+$`)

func TestAlertRules(t *testing.T) {
	names := exported(t)
	b, err := os.ReadFile("prometheus/alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true) // a misspelt field is an error, as Prometheus makes it
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("the alert rules are not a valid rule file: %v", err)
	}
	if len(f.Groups) == 0 {
		t.Fatal("no rule groups")
	}
	alerts := map[string]bool{}
	groups := map[string]bool{}
	for _, g := range f.Groups {
		if g.Name == "" || groups[g.Name] {
			t.Errorf("group name %q empty or repeated", g.Name)
		}
		groups[g.Name] = true
		for _, r := range g.Rules {
			if r.Alert == "" || r.Record != "" {
				t.Errorf("group %s: a rule must be an alert: %+v", g.Name, r)
				continue
			}
			if alerts[r.Alert] {
				t.Errorf("alert %s defined twice", r.Alert)
			}
			alerts[r.Alert] = true
			if r.For != "" && !promDuration.MatchString(r.For) {
				t.Errorf("alert %s: for %q is not a duration", r.Alert, r.For)
			}
			if r.Labels["severity"] == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %s: needs a severity label, a summary and a description", r.Alert)
			}
			checkExpr(t, names, "alert "+r.Alert, r.Expr)
		}
	}
	var got []string
	for a := range alerts {
		got = append(got, a)
	}
	sort.Strings(got)
	for _, want := range []string{"StraitJobFailed", "StraitCheckpointsNotCompleting", "StraitRunnerLost", "StraitSourceLagGrowing", "StraitSourceSkippingRecords"} {
		if !alerts[want] {
			t.Errorf("no alert %s among %v", want, got)
		}
	}
}
