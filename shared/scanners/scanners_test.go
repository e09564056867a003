package scanners

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"secscan/shared/checks"
	"secscan/shared/scans"
)

// catalogueVars maps the names of the checks package's variables to their
// codes, read from its source: Name = define(Check{Code: "…"}) or a helper
// whose first argument is the code (databaseExposure, endOfLife).
func catalogueVars(t *testing.T) map[string]scans.CheckCode {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, "../checks", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]scans.CheckCode{}
	for _, pkg := range pkgs {
		for _, file := range pkg.Files {
			ast.Inspect(file, func(n ast.Node) bool {
				spec, ok := n.(*ast.ValueSpec)
				if !ok {
					return true
				}
				for i, name := range spec.Names {
					if i >= len(spec.Values) {
						continue
					}
					call, ok := spec.Values[i].(*ast.CallExpr)
					if !ok || len(call.Args) == 0 {
						continue
					}
					if code := codeOf(call); code != "" {
						out[name.Name] = code
					}
				}
				return true
			})
		}
	}
	return out
}

func codeOf(call *ast.CallExpr) scans.CheckCode {
	switch arg := call.Args[0].(type) {
	case *ast.BasicLit:
		s, _ := strconv.Unquote(arg.Value)
		return scans.CheckCode(s)
	case *ast.CompositeLit:
		for _, elt := range arg.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if key, isIdent := kv.Key.(*ast.Ident); ok && isIdent && key.Name == "Code" {
				if lit, ok := kv.Value.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					return scans.CheckCode(s)
				}
			}
		}
	}
	return ""
}

// TestToolsEmitCataloguedChecks walks every tool: it declares the checks it
// can emit (checks.Emitter), each is in the catalogue, every check its
// package's source refers to is one it declares, no scanner builds a
// finding by hand (a scans.Finding literal), and every check of the
// catalogue is emitted by some tool.
func TestToolsEmitCataloguedChecks(t *testing.T) {
	vars := catalogueVars(t)
	if len(vars) < len(checks.All())-len(checks.EndOfLifeChecks()) {
		t.Fatalf("read %d check variables from the catalogue's source, it has %d checks", len(vars), len(checks.All()))
	}
	declared := map[string][]scans.CheckCode{} // by package directory
	emitted := map[scans.CheckCode]bool{}
	for _, name := range Registry().Names() {
		tool, _ := Registry().Get(name)
		em, ok := tool.(checks.Emitter)
		if !ok {
			t.Errorf("tool %s does not declare its checks (checks.Emitter)", name)
			continue
		}
		typ := reflect.TypeOf(tool)
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		dir := filepath.Base(typ.PkgPath())
		for _, c := range em.Checks() {
			if got, ok := checks.Lookup(c.Code); !ok || got != c {
				t.Errorf("tool %s: check %s is not in the catalogue", name, c.Code)
			}
			declared[dir] = append(declared[dir], c.Code)
			emitted[c.Code] = true
		}
		if _, ok := declared[dir]; !ok {
			declared[dir] = nil
		}
	}
	for _, c := range checks.All() {
		if !emitted[c.Code] {
			t.Errorf("check %s: no tool emits it", c.Code)
		}
	}

	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "internal" {
			continue
		}
		codes, ok := declared[d.Name()]
		if !ok {
			t.Errorf("package %s has no tool in the registry", d.Name())
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, d.Name(), func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
			for _, file := range pkg.Files {
				ast.Inspect(file, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.CompositeLit:
						if sel, ok := n.Type.(*ast.SelectorExpr); ok && isPkg(sel.X, "scans") && sel.Sel.Name == "Finding" {
							t.Errorf("%s: a scans.Finding literal; build findings from the catalogue (checks.X.Finding)", fset.Position(n.Pos()))
						}
					case *ast.SelectorExpr:
						if !isPkg(n.X, "checks") {
							return true
						}
						var refs []scans.CheckCode
						if code, ok := vars[n.Sel.Name]; ok {
							refs = append(refs, code)
						} else if n.Sel.Name == "EndOfLifeOf" {
							refs = append(refs, checks.Codes(checks.EndOfLifeChecks()...)...)
						}
						for _, code := range refs {
							if !slices.Contains(codes, code) {
								t.Errorf("%s: package %s uses check %s but its tools do not declare it", fset.Position(n.Pos()), d.Name(), code)
							}
						}
					}
					return true
				})
			}
		}
	}
}

func isPkg(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == name
}
