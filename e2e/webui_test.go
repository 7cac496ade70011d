package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser is Debian's chromium, installed by scripts/chromium.sh (make test runs it).
func browser(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed: run scripts/chromium.sh (make test does): %v", err)
	}
	return p
}

// page is a headless chromium tab (chromedp over the DevTools protocol) that the Web UI's
// scripts render in.
type page struct{ ctx context.Context }

func newPage(t *testing.T, bin string) *page {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1400, 1800),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("1")); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &page{ctx: ctx}
}

// currentDetailsJS opens a workflow page's User Metadata tab and reads the Current Details
// the UI renders there (in a frame of their own), from the workflow's metadata query.
const currentDetailsJS = `(() => {
	if (!location.pathname.endsWith('/user-metadata')) {
		const tab = [...document.querySelectorAll('a')].find(e => e.innerText.trim().startsWith('User Metadata'));
		if (tab) tab.click();
	}
	const f = document.getElementById('user-metadata-current-details');
	return f && f.contentDocument && f.contentDocument.body ? f.contentDocument.body.innerText : '';
})()`

// details loads a workflow's page and returns its Current Details once they hold want, or
// as they are after 30 s.
func (p *page) details(t *testing.T, url, want string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	var text string
	for ctx.Err() == nil && !strings.Contains(text, want) {
		if s, err := chromedp.Run(ctx, chromedp.Evaluate[string](currentDetailsJS)); err == nil {
			text = s
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
	return text
}

// screenshot saves the whole page as a PNG.
func (p *page) screenshot(t *testing.T, path string) {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// artifacts is where tests keep what a person looks at afterwards (bin/test-artifacts, or
// STRAIT_TEST_ARTIFACTS).
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("STRAIT_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "bin", "test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// A person watching the Temporal Web UI sees a running job live: the job's page shows its
// current details (state, pipelines) and the pipeline's its counts, checkpoints and runners.
func TestWebUIShowsJobDetails(t *testing.T) {
	t.Parallel()
	bin := browser(t)
	port, uiPort := freePort(t), freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	start(t, "dev", "dev", "--gateway", "", "--port", strconv.Itoa(port), "--ui-port", strconv.Itoa(uiPort))
	awaitListening(t, addr, "dev server up")
	job := writeJob(t, `
env { parallelism = 1, job.mode = STREAMING, checkpoint.interval = 1000 }
source { FakeSource { row.num = 1000000, split.read-interval = 50, split.num = 1000, schema = { fields { id = bigint, name = string } } } }
sink { Console { log.print.data = false } }`)
	code, out := run(t, "run", "-m", "cluster", "--address", addr, "--async", "-c", job)
	if code != 0 {
		t.Fatalf("submit: exit %d\n%s", code, out)
	}
	id := strings.Fields(out)[0]
	eventually(t, 60*time.Second, "the job running with a checkpoint", func() bool {
		st := jobStatus(t, addr, id)
		return st.State == "RUNNING" && st.Counters.RowsRead > 0
	})

	base := fmt.Sprintf("http://127.0.0.1:%d/namespaces/default/workflows/", uiPort)
	jobPage := base + "strait-job-" + id
	pipelinePage := base + "strait-job-" + id + "-p1"
	p := newPage(t, bin)
	if d := p.details(t, jobPage, "RUNNING"); !strings.Contains(d, "Job "+id) || !strings.Contains(d, "RUNNING") || !strings.Contains(d, "-p1") {
		t.Fatalf("the job's page shows no current details (state, pipelines):\n%s", d)
	}
	if d := p.details(t, pipelinePage, "completed"); !strings.Contains(d, "rows read") || !strings.Contains(d, "completed") || !strings.Contains(d, "dev-1") {
		t.Fatalf("the pipeline's page shows no counts, checkpoints and runners:\n%s", d)
	}
	shot := filepath.Join(artifacts(t), "webui-pipeline.png")
	p.screenshot(t, shot)
	if fi, err := os.Stat(shot); err != nil || fi.Size() == 0 {
		t.Fatalf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot of the running pipeline's page: %s", shot)
	if code, out := run(t, "job", "cancel", "--address", addr, id); code != 0 {
		t.Fatalf("cancel: exit %d\n%s", code, out)
	}
}
