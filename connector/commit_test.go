package connector

import (
	"errors"
	"strconv"
	"testing"
)

// TestDecodeInfos: empty infos (writers that prepared nothing) are passed over, the others
// decoded in order, and the first that does not decode is the error.
func TestDecodeInfos(t *testing.T) {
	got, err := DecodeInfos([][]byte{[]byte("1"), nil, {}, []byte("3")}, func(b []byte) (int, error) { return strconv.Atoi(string(b)) })
	if err != nil || len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Fatalf("%v %v, want [1 3]", got, err)
	}
	bad := errors.New("bad info")
	if _, err := DecodeInfos([][]byte{[]byte("x")}, func([]byte) (int, error) { return 0, bad }); !errors.Is(err, bad) {
		t.Fatalf("%v, want the decoder's error", err)
	}
	if got, err := DecodeInfos(nil, func([]byte) (int, error) { return 0, bad }); err != nil || len(got) != 0 {
		t.Fatalf("no infos: %v %v", got, err)
	}
}
