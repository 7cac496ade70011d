package layers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the module path; a pattern starting with "./" is a package of the module, one
// ending in "/..." takes in the packages below it too.
const module = "github.com/strait-dev/strait"

// rule forbids the packages matching from (but not except) the imports matching forbid
// (but not allow).
type rule struct {
	why    string
	from   []string
	except []string
	forbid []string
	allow  []string
}

// sideEffects are the standard library's packages that reach outside a process or break
// its determinism: what a workflow must never do itself.
var sideEffects = []string{"os", "os/...", "net", "net/...", "io/fs", "io/ioutil", "database/sql", "database/sql/...",
	"syscall", "math/rand", "math/rand/v2", "crypto/rand", "sync", "sync/atomic", "log", "log/slog", "runtime", "runtime/..."}

var rules = []rule{
	{
		why:  "the workflows know no connector and do no I/O: every I/O is an activity, every payload a contract type",
		from: []string{"./workflows"},
		forbid: append([]string{"./connector", "./connector/...", "./connectors/...", "./transform/...", "./planner", "./catalog",
			"./config/...", "./checkpointstore", "./activities", "./taskrunner", "./exchange", "./engineconfig", "./metrics",
			"./jobclient", "./gateway", "./node", "./worker", "./devserver", "./row/...",
			"go.temporal.io/sdk/client", "go.temporal.io/sdk/activity", "go.temporal.io/sdk/worker"}, sideEffects...),
	},
	{
		why:    "only the process that registers the workflows knows them; everyone else speaks contract",
		from:   []string{"./..."},
		except: []string{"./worker", "./workflows"},
		forbid: []string{"./workflows"},
	},
	{
		why:    "the plugin API knows nothing of the planner, the control plane or Temporal",
		from:   []string{"./connector", "./connector/..."},
		forbid: []string{"./planner", "./workflows", "./activities", "./taskrunner", "./contract", "go.temporal.io/..."},
	},
	{
		why:    "the connectors and transforms know nothing of Temporal or the control plane",
		from:   []string{"./connectors/...", "./transform/..."},
		forbid: []string{"go.temporal.io/...", "./workflows", "./activities", "./taskrunner", "./jobclient", "./node", "./worker", "./gateway"},
	},
	{
		why:    "the contract is the one thing every side speaks, so it depends on no other part of Strait and runs no workflow code",
		from:   []string{"./contract"},
		forbid: []string{"./...", "go.temporal.io/sdk/workflow", "go.temporal.io/sdk/client", "go.temporal.io/sdk/activity", "go.temporal.io/sdk/worker"},
		allow:  []string{"./types", "./jobinfo"},
	},
	{
		why:    "jobinfo is the job's identity, named alike by the plugin API and the contract: it imports nothing of Strait",
		from:   []string{"./jobinfo"},
		forbid: []string{"./..."},
	},
	{
		why:    "the runner runs tasks and knows no workflow: its control calls arrive through activities, its reports leave through a Reporter",
		from:   []string{"./taskrunner"},
		forbid: []string{"./workflows", "./activities", "./jobclient", "./node", "./worker", "go.temporal.io/..."},
	},
	{
		why:    "the runner runs the contract's deployment and builds its plugins through planvertex: it never plans",
		from:   []string{"./taskrunner"},
		forbid: []string{"./planner"},
	},
	{
		why:    "the planner is pure and knows nothing of Temporal: it makes the contract's plan, which others carry and run",
		from:   []string{"./planner"},
		forbid: []string{"go.temporal.io/...", "./workflows", "./activities", "./taskrunner", "./checkpointstore"},
	},
	{
		why:    "planvertex builds a plan vertex's plugin for the planner, the runner and the committers alike, so it imports none of them",
		from:   []string{"./planvertex"},
		forbid: []string{"./planner", "./taskrunner", "./activities", "./workflows", "./checkpointstore", "go.temporal.io/..."},
	},
	{
		why:    "the plugins are built from the planner's plan, never the other way: a connector or transform speaks the plugin API (its tests may plan jobs)",
		from:   []string{"./connectors/...", "./transform/..."},
		forbid: []string{"./planner", "./planner/..."},
	},
	{
		why:    "the internal packages are helpers below the plugins: they import no connector or transform",
		from:   []string{"./internal/..."},
		forbid: []string{"./connectors/...", "./transform/..."},
	},
	{
		why:    "tools/ holds programs for the project's own build and tests; nothing imports them",
		from:   []string{"./..."},
		except: []string{"./tools/..."},
		forbid: []string{"./tools/..."},
	},
}

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
}

func TestImportsRunOneWay(t *testing.T) {
	pkgs := listModule(t)
	for _, r := range rules {
		if matched := packagesOf(r, pkgs); len(matched) == 0 {
			t.Errorf("the rule %q applies to no package (%v): a package moved?", r.why, r.from)
		}
	}
	for _, v := range violations(t, rules, pkgs) {
		t.Error(v)
	}
}

// violations lists every import that breaks a rule, sorted.
func violations(t *testing.T, rules []rule, pkgs []pkg) []string {
	t.Helper()
	var out []string
	for _, r := range rules {
		for _, p := range packagesOf(r, pkgs) {
			for _, imp := range p.Imports {
				if matchesAny(imp, r.forbid) && !matchesAny(imp, r.allow) && imp != p.ImportPath {
					out = append(out, fmt.Sprintf("%s imports %s (package %s): %s", whereImported(t, p, imp), imp, p.ImportPath, r.why))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func packagesOf(r rule, pkgs []pkg) []pkg {
	var out []pkg
	for _, p := range pkgs {
		if matchesAny(p.ImportPath, r.from) && !matchesAny(p.ImportPath, r.except) {
			out = append(out, p)
		}
	}
	return out
}

// matchesAny reports whether an import path matches one of the patterns.
func matchesAny(path string, patterns []string) bool {
	for _, pat := range patterns {
		if rest, ok := strings.CutPrefix(pat, "./"); ok {
			pat = module + "/" + rest
			if rest == "..." {
				pat = module + "/..."
			}
		}
		if tree, ok := strings.CutSuffix(pat, "/..."); ok {
			if path == tree || strings.HasPrefix(path, tree+"/") {
				return true
			}
			continue
		}
		if path == pat {
			return true
		}
	}
	return false
}

// whereImported names the file and line of the package that imports imp.
func whereImported(t *testing.T, p pkg, imp string) string {
	t.Helper()
	fset := token.NewFileSet()
	for _, name := range append(append([]string(nil), p.GoFiles...), p.CgoFiles...) {
		path := filepath.Join(p.Dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		for _, s := range f.Imports {
			if v, err := strconv.Unquote(s.Path.Value); err == nil && v == imp {
				return relative(fset.Position(s.Pos()).String())
			}
		}
	}
	return p.ImportPath
}

// relative shortens a path to the module's root.
func relative(path string) string {
	if root, err := moduleRoot(); err == nil {
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside a module")
	}
	return filepath.Dir(gomod), nil
}

// listModule is `go list -json` of every package of the module.
func listModule(t *testing.T) []pkg {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-e", "-json", module+"/...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no package")
	}
	return pkgs
}

// The rules find what breaks them, and only that: each case is a package of one file with
// one import.
func TestRulesNameTheBreakingImport(t *testing.T) {
	cases := []struct {
		pkg, imp string
		broken   bool
	}{
		{"workflows", module + "/connector", true},
		{"workflows", module + "/planner", true},
		{"workflows", "os", true},
		{"workflows", "go.temporal.io/sdk/client", true},
		{"workflows", module + "/contract", false},
		{"workflows", "go.temporal.io/sdk/workflow", false},
		{"activities", module + "/workflows", true},
		{"cmd/strait", module + "/workflows", true},
		{"worker", module + "/workflows", false},
		{"contract", module + "/planner", true},
		{"contract", module + "/types", false},
		{"contract", module + "/jobinfo", false},
		{"jobinfo", module + "/types", true},
		{"contract", "go.temporal.io/sdk/workflow", true},
		{"contract", "go.temporal.io/sdk/temporal", false},
		{"connector", "go.temporal.io/sdk/temporal", true},
		{"connectors/fake", "go.temporal.io/sdk/client", true},
		{"connectors/fake", module + "/connector", false},
		{"transform/sql", module + "/activities", true},
		{"taskrunner", module + "/workflows", true},
		{"taskrunner", module + "/connector", false},
		{"taskrunner", module + "/planner", true},
		{"taskrunner", module + "/planvertex", false},
		{"taskrunner", module + "/contract", false},
		{"planner", module + "/contract", false},
		{"planner", module + "/planvertex", false},
		{"planner", module + "/taskrunner", true},
		{"planner", "go.temporal.io/sdk/temporal", true},
		{"planvertex", module + "/planner", true},
		{"planvertex", module + "/taskrunner", true},
		{"planvertex", module + "/connector", false},
		{"planvertex", module + "/contract", false},
		{"transform/sql", module + "/planner", true},
		{"connectors/jdbc", module + "/planner", true},
		{"e2e", module + "/planner", false},
		{"internal/jsonscan", module + "/connectors/all", true},
		{"internal/civil", module + "/transform/sql", true},
		{"internal/civil", module + "/types", false},
		{"connectors/fake", module + "/internal/cputime", false},
		{"cmd/strait", module + "/tools/docgen", true},
		{"tools/docgen", module + "/connectors/all", false},
	}
	for _, c := range cases {
		t.Run(c.pkg+" imports "+c.imp, func(t *testing.T) {
			dir := t.TempDir()
			src := fmt.Sprintf("package p\n\nimport (\n\t\"fmt\"\n\t_ %q\n)\n\nvar _ = fmt.Sprint\n", c.imp)
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			p := pkg{ImportPath: module + "/" + c.pkg, Dir: dir, GoFiles: []string{"p.go"}, Imports: []string{"fmt", c.imp}}
			got := violations(t, rules, []pkg{p})
			if !c.broken {
				if len(got) != 0 {
					t.Fatalf("reported %v", got)
				}
				return
			}
			if len(got) == 0 {
				t.Fatal("not reported")
			}
			for _, v := range got {
				if !strings.Contains(v, "p.go:5") || !strings.Contains(v, c.imp) || !strings.Contains(v, p.ImportPath) {
					t.Errorf("the report %q does not name the file and line, the import and the package", v)
				}
			}
		})
	}
}
