package code

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"secscan/shared/scans"
)

// TestFalsePositiveCorpus scans a directory of real JavaScript (e.g. a
// node_modules tree) as if a site served it, and fails on any finding of
// medium or higher severity: library code holds no secrets. It reads the
// directory named by SECSCAN_FP_CORPUS (an absolute path: tests run in the
// package's directory) and is skipped without it:
//
//	SECSCAN_FP_CORPUS=$PWD/infra/local/node_modules go test -run FalsePositive -v ./shared/scanners/code/
func TestFalsePositiveCorpus(t *testing.T) {
	root := os.Getenv("SECSCAN_FP_CORPUS")
	if root == "" {
		t.Skip("SECSCAN_FP_CORPUS is not set")
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatal(err)
	}
	det, err := sharedDetector()
	if err != nil {
		t.Fatal(err)
	}
	var files, bytes int
	var set dropped
	start := time.Now()
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !(strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".mjs") || strings.HasSuffix(p, ".cjs")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || len(b) > maxFileBytes {
			return nil
		}
		files++
		bytes += len(b)
		// The path a bundler would give it, so gitleaks' node_modules
		// allowlist does not skip it.
		doc := document{where: p, pathHint: "/static/js/" + filepath.Base(p), firstLine: 1, firstColumn: 1, text: string(b), code: true}
		found, d := scanDocument(context.Background(), det, doc)
		set.add(d)
		for _, s := range found {
			if s.severity.Rank() <= scans.Medium.Rank() {
				t.Errorf("%s line %d: %s [%s] %s", p, s.line, s.rule, s.severity, s.redacted)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files, %d MiB in %s; set aside %+v", files, bytes>>20, time.Since(start).Round(time.Millisecond), set)
}
