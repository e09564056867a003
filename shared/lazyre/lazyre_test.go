package lazyre

import (
	"strings"
	"testing"
)

func TestCompiledOnFirstUseOnly(t *testing.T) {
	r := New(`^a(\d+)b$`)
	if r.re != nil {
		t.Fatal("compiled at declaration")
	}
	if m := r.FindStringSubmatch("a42b"); len(m) != 2 || m[1] != "42" {
		t.Fatalf("FindStringSubmatch = %q", m)
	}
	first := r.re
	if first == nil || !r.MatchString("a1b") || r.re != first {
		t.Fatal("not compiled once and kept")
	}
	if got := r.ReplaceAllString("a7b", "x"); got != "x" {
		t.Fatalf("ReplaceAllString = %q", got)
	}
}

func TestCompileAllPanicsOnAnInvalidPattern(t *testing.T) {
	if n := CompileAll(); n < 1 {
		t.Fatalf("CompileAll = %d, want the expressions declared so far", n)
	}
	bad := New(`(`)
	defer func() {
		mu.Lock()
		all = all[:len(all)-1] // leave the registry valid for other tests
		mu.Unlock()
		if p := recover(); p == nil || !strings.Contains(p.(string), "missing closing )") {
			t.Fatalf("recover = %v, want regexp.MustCompile's panic", p)
		}
	}()
	_ = bad
	CompileAll()
}

func TestConcurrentFirstUse(t *testing.T) {
	r := New(`x+`)
	done := make(chan bool)
	for range 8 {
		go func() { done <- r.MatchString("xx") }()
	}
	for range 8 {
		if !<-done {
			t.Fatal("no match")
		}
	}
}
