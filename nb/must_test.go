package nb

import (
	"errors"
	"testing"
)

func TestMust(t *testing.T) {
	if got := Must(3, nil); got != 3 {
		t.Fatalf("Must(3, nil) = %d, want 3", got)
	}
	a, b := Must2("x", 2.5, nil)
	if a != "x" || b != 2.5 {
		t.Fatalf("Must2 = %q, %v", a, b)
	}
	want := errors.New("boom")
	for name, call := range map[string]func(){
		"Must":  func() { Must(0, want) },
		"Must2": func() { Must2(0, 0, want) },
	} {
		func() {
			defer func() {
				if r := recover(); r != want {
					t.Errorf("%s: recovered %v, want the error itself", name, r)
				}
			}()
			call()
		}()
	}
}
