package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// consoleLines are the rows a Console sink printed in a run's output.
func consoleLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "subtaskIndex=") {
			lines = append(lines, l)
		}
	}
	return lines
}

// SeaTunnel's FakeSource → Console configs print every row once, as SeaTunnel's Console
// prints it: subtask, row index, table, kind and fields.
func TestConsoleOutput(t *testing.T) {
	cases := []struct {
		file  string
		lines int
		want  []string
	}{
		{file: "engine/fakesource_to_console.conf", lines: 5},
		{file: "engine/batch_fake_multi_table_to_console.conf", lines: 15, want: []string{
			"subtaskIndex=0  rowIndex=1:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=INSERT : 1, A, 100",
			"subtaskIndex=0  rowIndex=7:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=UPDATE_BEFORE : 1, A, 100",
			"subtaskIndex=0  rowIndex=8:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=UPDATE_AFTER : 1, A, 300",
			"subtaskIndex=0  rowIndex=9:  SeaTunnelRow#tableId=fake.table1 SeaTunnelRow#kind=DELETE : 2, B, 100",
			"subtaskIndex=0  rowIndex=3:  SeaTunnelRow#tableId=fake.public.table2 SeaTunnelRow#kind=DELETE : 2, B, 100",
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			code, out := run(t, "run", seatunnel(c.file))
			checkRun(t, c.file, code, out, 0)
			lines := consoleLines(out)
			if len(lines) != c.lines {
				t.Errorf("%d console lines, want %d:\n%s", len(lines), c.lines, strings.Join(lines, "\n"))
			}
			for _, w := range c.want {
				if !contains(lines, w) {
					t.Errorf("no console line %q:\n%s", w, strings.Join(lines, "\n"))
				}
			}
		})
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

var variablesRow = regexp.MustCompile(`^subtaskIndex=[01]  rowIndex=\d+:  SeaTunnelRow#tableId=a20260101 SeaTunnelRow#kind=INSERT : abc, -?\d+$`)

// fake_to_console.variables.conf with the variables SeaTunnel's test passes: two readers make
// 10 rows each of the table named by resName, their names from strTemplate; the WHERE clause
// made of nameVal lets those named abc through to the Console.
func TestConsoleVariablesConfig(t *testing.T) {
	code, out := run(t, "run", "-i", "resName=a20260101", "-i", "rowNum=10", "-i", "strTemplate=[abc,def]", "-i", "nameType=string",
		"-i", "nameVal=abc", "-i", "sourceTableName=sql", seatunnel("engine", "fake_to_console.variables.conf"))
	checkRun(t, "UserVariableIT.userVariableTest", code, out, 0, "Total Read Count : 20")
	lines := consoleLines(out)
	for _, l := range lines {
		if !variablesRow.MatchString(l) {
			t.Errorf("console line %q is not a row of a20260101 named abc", l)
		}
	}
	if !holds(out, "Total Write Count : "+strconv.Itoa(len(lines))) {
		t.Errorf("%d console lines, but the summary counts otherwise:\n%s", len(lines), tail(out, 12))
	}
}
