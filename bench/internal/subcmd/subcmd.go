// Package subcmd picks the subcommand a bench program's first argument names.
package subcmd

import (
	"fmt"
	"os"
)

// Lookup returns the command of cmds that os.Args[1] names; without a name, or with an
// unknown one, it says so as program prog whose commands are kind (listed in names) and
// exits with status 2.
func Lookup(prog, kind, names string, cmds map[string]func(args []string) error) func(args []string) error {
	if len(os.Args) < 2 {
		fmt.Fprintf(os.Stderr, "%s: name %s %s: %s\n", prog, article(kind), kind, names)
		os.Exit(2)
	}
	f, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: %q: no such %s\n", prog, os.Args[1], kind)
		os.Exit(2)
	}
	return f
}

// article is the indefinite article of a word.
func article(word string) string {
	switch word[0] {
	case 'a', 'e', 'i', 'o', 'u':
		return "an"
	}
	return "a"
}
