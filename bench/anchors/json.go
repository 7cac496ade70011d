package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/strait-dev/strait/bench/internal/records"
)

// jsonCopy reads JSON lines, decodes each into typed fields, encodes it again and writes
// it to a file, synced at the end as the LocalFile sink's commit is.
func jsonCopy(args []string) error {
	return transcode(args, func(l *records.Line) any { return l })
}

// jsonMapCopy is jsonCopy with the comparison's field mapping between decoding and encoding.
func jsonMapCopy(args []string) error {
	return transcode(args, func(l *records.Line) any { m := records.Map(l); return &m })
}

// transcode decodes each JSON line of args[0] into a records.Line and writes what conv makes
// of it to args[1] as a JSON line.
func transcode(args []string, conv func(*records.Line) any) error {
	if len(args) != 2 {
		return fmt.Errorf("want the input and the output file")
	}
	in, err := os.Open(args[0])
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(args[1])
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bufio.NewReaderSize(in, 1<<20))
	w := bufio.NewWriterSize(out, 1<<20)
	enc := json.NewEncoder(w)
	var line records.Line
	for n := 1; sc.Scan(); n++ {
		line = records.Line{}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := enc.Encode(conv(&line)); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := out.Sync(); err != nil {
		return err
	}
	return out.Close()
}

// generate makes rows of the comparison's six fields with random values (strings of 12
// letters, as FakeSource's string.length = 12 and Bloblang's nanoid(12)) and drops them.
func generate(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("want the number of rows")
	}
	rows, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("rows %q: %w", args[0], err)
	}
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	str := func() string {
		var b [12]byte
		for i := range b {
			b[i] = letters[rand.IntN(len(letters))]
		}
		return string(b[:])
	}
	var kept int
	for i := range rows {
		line := records.Line{ID: int64(i), Name: str(), City: str(), Score: rand.Float64() * 1000, Active: rand.IntN(2) == 1, Note: str()}
		if line.Active {
			kept++
		}
	}
	fmt.Fprintf(os.Stderr, "generated %d rows, %d active\n", rows, kept)
	return nil
}
