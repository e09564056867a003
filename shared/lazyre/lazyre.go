// Package lazyre holds regular expressions declared at package level but
// compiled on first use. A Lambda's cold start runs the initialisation of
// every package it links, and most requests use none or few of a package's
// expressions: compiling them all at init was a measurable part of start-up
// (issue 22). Declare `var re = lazyre.New(`…`)` where one would write
// regexp.MustCompile; the methods are those of *regexp.Regexp.
//
// A pattern that does not compile panics on first use rather than at init;
// CompileAll (called by a test of a package that links the whole service)
// finds such a pattern without waiting for a request to reach it.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. It is safe for
// concurrent use, as *regexp.Regexp is.
type Regexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New declares the expression src, compiled on first use.
func New(src string) *Regexp {
	r := &Regexp{src: src}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// CompileAll compiles every expression declared so far and returns how many
// there are; it panics, as regexp.MustCompile does, on one that is invalid.
func CompileAll() int {
	mu.Lock()
	list := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range list {
		r.Regexp()
	}
	return len(list)
}

// Regexp is the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

// String is the source text of the expression.
func (r *Regexp) String() string { return r.src }

// MatchString is (*regexp.Regexp).MatchString.
func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

// Match is (*regexp.Regexp).Match.
func (r *Regexp) Match(b []byte) bool { return r.Regexp().Match(b) }

// FindString is (*regexp.Regexp).FindString.
func (r *Regexp) FindString(s string) string { return r.Regexp().FindString(s) }

// Find is (*regexp.Regexp).Find.
func (r *Regexp) Find(b []byte) []byte { return r.Regexp().Find(b) }

// FindStringIndex is (*regexp.Regexp).FindStringIndex.
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }

// FindIndex is (*regexp.Regexp).FindIndex.
func (r *Regexp) FindIndex(b []byte) []int { return r.Regexp().FindIndex(b) }

// FindStringSubmatch is (*regexp.Regexp).FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

// FindSubmatch is (*regexp.Regexp).FindSubmatch.
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.Regexp().FindSubmatch(b) }

// FindStringSubmatchIndex is (*regexp.Regexp).FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}

// FindAllString is (*regexp.Regexp).FindAllString.
func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }

// FindAll is (*regexp.Regexp).FindAll.
func (r *Regexp) FindAll(b []byte, n int) [][]byte { return r.Regexp().FindAll(b, n) }

// FindAllIndex is (*regexp.Regexp).FindAllIndex.
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.Regexp().FindAllIndex(b, n) }

// FindAllStringIndex is (*regexp.Regexp).FindAllStringIndex.
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is (*regexp.Regexp).FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

// FindAllSubmatch is (*regexp.Regexp).FindAllSubmatch.
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.Regexp().FindAllSubmatch(b, n)
}

// FindAllStringSubmatchIndex is (*regexp.Regexp).FindAllStringSubmatchIndex.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is (*regexp.Regexp).ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

// ReplaceAllLiteralString is (*regexp.Regexp).ReplaceAllLiteralString.
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Regexp().ReplaceAllLiteralString(src, repl)
}

// ReplaceAllStringFunc is (*regexp.Regexp).ReplaceAllStringFunc.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}

// ReplaceAll is (*regexp.Regexp).ReplaceAll.
func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.Regexp().ReplaceAll(src, repl) }

// SubexpIndex is (*regexp.Regexp).SubexpIndex.
func (r *Regexp) SubexpIndex(name string) int { return r.Regexp().SubexpIndex(name) }

// SubexpNames is (*regexp.Regexp).SubexpNames.
func (r *Regexp) SubexpNames() []string { return r.Regexp().SubexpNames() }

// Split is (*regexp.Regexp).Split.
func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }
