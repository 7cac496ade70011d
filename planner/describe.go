package planner

import (
	"fmt"
	"io"
	"strings"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/planvertex"
	"github.com/strait-dev/strait/secret"
)

// WriteText prints a plan's logical DAG, its pipelines and its task groups for people.
func WriteText(w io.Writer, pp *contract.Plan) {
	fmt.Fprintf(w, "Job %q (%s, parallelism %d)\n\n", pp.Job.Name, pp.Job.Mode, pp.Env.Parallelism)
	fmt.Fprintln(w, "Logical DAG:")
	for _, v := range pp.Vertices {
		ins := make([]string, len(v.Inputs))
		for i, in := range v.Inputs {
			ins[i] = fmt.Sprintf("v%d", in)
		}
		from := ""
		if len(ins) > 0 {
			from = " <- " + strings.Join(ins, ", ")
			if len(ins) > 1 {
				from += " (union)"
			}
		}
		fmt.Fprintf(w, "  v%d %-9s %-14s parallelism %d%s\n", v.ID, v.Kind, v.Plugin, v.Parallelism, from)
		fmt.Fprintf(w, "       options %s\n", shownOptions(v))
		if v.Kind != contract.SinkVertex {
			writeTables(w, v)
		}
	}
	fmt.Fprintf(w, "\nPipelines: %d\n", len(pp.Pipelines))
	for _, p := range pp.Pipelines {
		vs := make([]string, len(p.Vertices))
		for i, id := range p.Vertices {
			vs[i] = fmt.Sprintf("v%d", id)
		}
		fmt.Fprintf(w, "  pipeline %d: %s (%d slots)\n", p.ID, strings.Join(vs, " "), p.Slots())
		for _, g := range p.TaskGroups {
			chain := make([]string, len(g.Vertices))
			for i, id := range g.Vertices {
				chain[i] = fmt.Sprintf("v%d %s", id, pp.Vertex(id).Plugin)
			}
			fused := ""
			if len(g.Vertices) > 1 {
				fused = " (fused)"
			}
			fmt.Fprintf(w, "    task group %d x%d: %s%s\n", g.ID, g.Parallelism, strings.Join(chain, " -> "), fused)
		}
		for _, e := range p.Edges {
			fmt.Fprintf(w, "    exchange %s\n", edgeText(e))
		}
	}
	if len(pp.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, wn := range pp.Warnings {
			fmt.Fprintf(w, "  %s\n", wn)
		}
	}
}

// WriteDot prints a plan as a Graphviz digraph: a cluster per pipeline, a box per task
// group holding its fused vertices, dashed arrows for exchanges.
func WriteDot(w io.Writer, pp *contract.Plan) {
	fmt.Fprintf(w, "digraph %q {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n", pp.Job.Name)
	for _, p := range pp.Pipelines {
		fmt.Fprintf(w, "  subgraph cluster_p%d {\n    label=\"pipeline %d\";\n", p.ID, p.ID)
		for _, g := range p.TaskGroups {
			fmt.Fprintf(w, "    subgraph cluster_p%d_g%d {\n      label=\"task group %d x%d\"; style=dashed;\n", p.ID, g.ID, g.ID, g.Parallelism)
			for _, id := range g.Vertices {
				v := pp.Vertex(id)
				fmt.Fprintf(w, "      v%d [label=\"%s\\n%s\"];\n", id, v.Plugin, v.Kind)
			}
			for i := 1; i < len(g.Vertices); i++ {
				fmt.Fprintf(w, "      v%d -> v%d;\n", g.Vertices[i-1], g.Vertices[i])
			}
			fmt.Fprintln(w, "    }")
		}
		for _, e := range p.Edges {
			fmt.Fprintf(w, "    v%d -> v%d [style=dashed, label=%q];\n", e.FromVertex, e.ToVertex, string(e.Partitioning))
		}
		fmt.Fprintln(w, "  }")
	}
	fmt.Fprintln(w, "}")
}

// writeTables prints the tables a vertex emits.
func writeTables(w io.Writer, cv *contract.Vertex) {
	v, err := planvertex.Decode(cv)
	if err != nil {
		fmt.Fprintf(w, "       tables not shown: %v\n", err)
		return
	}
	for _, t := range v.Tables {
		fmt.Fprintf(w, "       table %s %s\n", t.ID(), t.RowType())
	}
}

// edgeText names an edge for plans and errors.
func edgeText(e contract.Edge) string {
	s := fmt.Sprintf("e%d: g%d(v%d) -> g%d(v%d) %s", e.ID, e.From, e.FromVertex, e.To, e.ToVertex, e.Partitioning)
	if len(e.KeyFields) > 0 {
		s += fmt.Sprintf(" by %v", e.KeyFields)
	}
	return s
}

// shownOptions are a vertex's options as people may see them: its secrets masked.
func shownOptions(v *contract.Vertex) string {
	if len(v.Options) == 0 {
		return "{}"
	}
	masked, err := secret.MaskOptions(string(v.Kind), v.Plugin, v.Options)
	if err != nil {
		return fmt.Sprintf("(not shown: %v)", err)
	}
	return masked
}
