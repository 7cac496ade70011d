package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// dashboardToken is the gateway token of the dashboard tests.
const dashboardToken = "dashboard-test-token"

// The job dashboard, in a real browser against `strait dev` with gateway tokens: a browser
// without the token sees the sign-in form and no job; signed in, it sees the job list, a
// running job's DAG (its vertices, fused task groups and exchange) with counters that rise,
// the slow sink marked as the bottleneck its input is backpressured by, the checkpoints
// completing, the config with its secret masked, the runners and their slots; cancel on the
// page cancels the job. Screenshots of each page go to bin/test-artifacts.
func TestDashboard(t *testing.T) {
	t.Parallel()
	bin := browser(t)
	port, uiPort, gwPort := freePort(t), freePort(t), freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	gw := fmt.Sprintf("127.0.0.1:%d", gwPort)
	startEnv(t, "dev", []string{"STRAIT_GATEWAY_TOKENS=" + dashboardToken}, "dev", "--gateway", gw,
		"--port", strconv.Itoa(port), "--ui-port", strconv.Itoa(uiPort), "--slots", "6")
	awaitListening(t, gw, "gateway up")
	awaitListening(t, addr, "dev server up")

	// a source of two tasks fused with its transform, a hash exchange, and a sink that waits
	// 2 ms a row: the sink cannot keep up
	job := writeJob(t, `
env { job.name = "dashboard-slow-sink", parallelism = 2, job.mode = STREAMING, checkpoint.interval = 1000 }
source {
  FakeSource {
    plugin_output = "fake"
    row.num = 100000000, split.num = 1000, split.read-interval = 1
    string.template = ["${api_token}"]
    schema = { fields { id = bigint, name = string } }
  }
}
transform {
  Sql { plugin_input = "fake", plugin_output = "shaped", query = "select id, upper(name) as name from fake" }
}
sink { Console { plugin_input = "shaped", partition_by = ["id"], log.print.data = false, log.print.delay.ms = 2 } }`)
	code, out := run(t, "run", "-m", "cluster", "--address", addr, "--async", "-i", "api_token=hunter2-secret", "-c", job)
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	id := strings.Fields(out)[0]
	eventually(t, 90*time.Second, "the job running with a checkpoint", func() bool {
		st := jobStatus(t, addr, id)
		return st.State == "RUNNING" && st.Counters.RowsRead > 0
	})
	shots := artifacts(t)
	base := "http://" + gw + "/ui/"
	p := newPage(t, bin)

	// without the token: the sign-in form, no job, and the API refuses
	p.open(t, base+"#/jobs")
	p.await(t, "the sign-in form", `!!document.querySelector('#signin') && !document.querySelector('#jobs')`)
	p.shot(t, filepath.Join(shots, "dashboard-signin.png"))
	if resp, err := http.Get("http://" + gw + "/job-graph/" + id); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("job-graph without a token: %v %v", resp, err)
	}
	p.run(t, chromedp.SendKeys(chromedp.CSS("#token"), "wrong-token"), chromedp.Click(chromedp.CSS("#signin-submit")))
	p.await(t, "the wrong token refused", `!!document.querySelector('#signin .error')`)
	p.run(t, chromedp.SendKeys(chromedp.CSS("#token"), dashboardToken), chromedp.Click(chromedp.CSS("#signin-submit")))

	// the job list, with the job and its state
	p.await(t, "the job in the list", fmt.Sprintf(`(() => { const r = document.querySelector('tr[data-job="%s"]'); return !!r && r.innerText.includes('RUNNING') && r.innerText.includes('dashboard-slow-sink'); })()`, id))
	p.await(t, "a link to the Temporal Web UI", fmt.Sprintf(`[...document.querySelectorAll('tr[data-job="%s"] a')].some(a => a.href.startsWith('http://127.0.0.1:%d/namespaces/default/workflows'))`, id, uiPort))
	p.shot(t, filepath.Join(shots, "dashboard-jobs.png"))
	// the filters: by state, by name
	filter := func(state, name string) {
		p.eval(t, fmt.Sprintf(`(() => { const s = document.querySelector('#state-filter'); s.value = %q; s.dispatchEvent(new Event('change'));
			const n = document.querySelector('#name-filter'); n.value = %q; n.dispatchEvent(new Event('input')); return 1; })()`, state, name))
	}
	row := fmt.Sprintf(`!!document.querySelector('tr[data-job="%s"]')`, id)
	filter("failed", "")
	p.await(t, "the running job filtered out of the failed ones", "!"+row)
	filter("running", "slow-sink")
	p.await(t, "the job among the running ones, by name", row)
	filter("running", "no such name")
	p.await(t, "the job filtered out by name", "!"+row)
	filter("all", "")
	p.await(t, "the job with every filter off", row)

	// the job's page: its DAG
	p.open(t, base+"#/jobs/"+id)
	p.await(t, "the DAG", `document.querySelectorAll('#graph g.vertex').length === 3`)
	vertices := p.eval(t, `[...document.querySelectorAll('#graph g.vertex')].map(v => v.dataset.kind + ':' + v.dataset.plugin).join(',')`)
	if vertices != "source:FakeSource,transform:Sql,sink:Console" {
		t.Fatalf("vertices %q", vertices)
	}
	groups := p.eval(t, `[...document.querySelectorAll('#graph g.group')].map(g => g.textContent).join(' | ')`)
	if !strings.Contains(groups, "task group 1 ×2 (fused)") || !strings.Contains(groups, "task group 2 ×2 on") {
		t.Errorf("task groups: %q (want the source and Sql fused, the sink on its own)", groups)
	}
	exchange := p.eval(t, `[...document.querySelectorAll('#graph g.edge.exchange')].map(e => e.dataset.fromVertex + '>' + e.dataset.toVertex + ' ' + e.textContent).join(',')`)
	if !strings.HasPrefix(exchange, "2>3 hash by id") {
		t.Errorf("exchange edges: %q (want Sql -> Console, hashed by id)", exchange)
	}
	if href := p.eval(t, `(document.querySelector('#temporal-link') || {}).href || ''`); !strings.Contains(href, fmt.Sprintf(":%d/namespaces/default/workflows/strait-job-%s/", uiPort, id)) {
		t.Errorf("the job's Temporal link is %q", href)
	}

	// counters rise while the page is open
	rows := func() int64 {
		n, _ := strconv.ParseInt(p.eval(t, `(document.querySelector('#graph g.vertex[data-kind=sink] text.rows') || {dataset: {}}).dataset.rows || '0'`), 10, 64)
		return n
	}
	first := rows()
	p.await(t, "the sink's rows rising", fmt.Sprintf(`+(document.querySelector('#graph g.vertex[data-kind=sink] text.rows') || {dataset: {}}).dataset.rows > %d`, first))
	p.await(t, "a rate shown", `+(document.querySelector('#graph g.vertex[data-kind=source] text.rows') || {dataset: {}}).dataset.rate > 0`)

	// the slow sink: the source's group waits on it, the sink is the bottleneck
	p.await(t, "the sink marked as the bottleneck of a backpressured exchange",
		`(() => { const s = document.querySelector('#graph g.vertex[data-kind=sink]'); const e = document.querySelector('#graph g.edge.exchange');
		 return s && s.dataset.bottleneck === 'true' && e && e.dataset.backpressure === 'HIGH' &&
		  document.querySelector('#graph g.vertex[data-kind=source]').dataset.backpressure === 'HIGH' && +s.dataset.busy > 0.5; })()`)
	if b := p.eval(t, `[...document.querySelectorAll('#graph .badge')].map(b => b.textContent).join(',')`); !strings.Contains(b, "BOTTLENECK") {
		t.Errorf("badges %q", b)
	}

	// checkpoints complete and are listed
	p.await(t, "completed checkpoints listed", `[...document.querySelectorAll('#checkpoints-1 tr[data-checkpoint]')].some(r => r.innerText.includes('COMPLETED'))`)
	p.shot(t, filepath.Join(shots, "dashboard-job.png"))
	p.run(t, chromedp.Click(chromedp.CSS("#theme")))
	p.await(t, "the dark theme", `document.documentElement.dataset.theme === 'dark'`)
	p.shot(t, filepath.Join(shots, "dashboard-job-dark.png"))
	p.run(t, chromedp.Click(chromedp.CSS("#theme")))

	// the config, its secret masked
	p.open(t, base+"#/jobs/"+id+"/config")
	p.await(t, "the config", `(document.querySelector('#config') || {}).textContent?.includes('FakeSource')`)
	if page := p.eval(t, `document.body.innerText`); strings.Contains(page, "hunter2") || !strings.Contains(page, "api_token") {
		t.Errorf("the config page shows the secret, or not its variable:\n%s", page)
	}
	p.shot(t, filepath.Join(shots, "dashboard-config.png"))

	// the cluster: the runner with the job's slots
	p.open(t, base+"#/cluster")
	p.await(t, "the runner holding the job's slots", fmt.Sprintf(`(() => { const r = document.querySelector('tr[data-runner="dev-1"]'); return !!r && r.innerText.includes('ALIVE') && r.innerText.includes('4 / 6') && r.innerText.includes('job %s'); })()`, id))
	p.shot(t, filepath.Join(shots, "dashboard-cluster.png"))

	// cancel from the job's page
	p.open(t, base+"#/jobs/"+id)
	p.await(t, "the cancel button", `!!document.querySelector('#cancel')`)
	p.run(t, chromedp.Click(chromedp.CSS("#cancel")))
	p.await(t, "the confirmation", `!!document.querySelector('#confirm-yes')`)
	p.run(t, chromedp.Click(chromedp.CSS("#confirm-yes")))
	eventually(t, 60*time.Second, "the job canceled", func() bool { return jobStatus(t, addr, id).State == "CANCELED" })
	p.await(t, "the page showing the job canceled", `(document.querySelector('#job-head .state') || {}).textContent === 'CANCELED' && !document.querySelector('#cancel')`)
	for _, name := range []string{"signin", "jobs", "job", "job-dark", "config", "cluster"} {
		path := filepath.Join(shots, "dashboard-"+name+".png")
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
			t.Errorf("no screenshot %s: %v", path, err)
		}
	}
	t.Logf("screenshots: %s/dashboard-*.png", shots)

	// the REST API the pages use answers with the token
	var runners []struct {
		ID    string `json:"id"`
		Slots int    `json:"slots"`
	}
	getJSON(t, "http://"+gw+"/runners", &runners)
	if len(runners) != 1 || runners[0].ID != "dev-1" || runners[0].Slots != 6 {
		t.Errorf("runners %+v", runners)
	}
}

// open loads a page.
func (p *page) open(t *testing.T, url string) {
	t.Helper()
	p.run(t, chromedp.Navigate(url))
}

func (p *page) run(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval returns a script's value as text.
func (p *page) eval(t *testing.T, js string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](js))
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

// await waits up to 60 s for a script to be true, failing with the page's text if it never is.
func (p *page) await(t *testing.T, what, js string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			text := p.eval(t, `document.body.innerText`)
			t.Fatalf("the dashboard never showed %s (%v); the page:\n%s", what, err, tail(text, 60))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func (p *page) shot(t *testing.T, path string) {
	t.Helper()
	p.screenshot(t, path)
}

// getJSON reads a gateway endpoint with the dashboard test's token.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+dashboardToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}
