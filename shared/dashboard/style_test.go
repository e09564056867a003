package dashboard

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// stylesheet is app.css without its comments, and the custom properties
// of its :root block (the scales and the colours).
func stylesheet(t *testing.T) (string, map[string]string) {
	t.Helper()
	raw, err := files.ReadFile("web/app.css")
	if err != nil {
		t.Fatal(err)
	}
	css := regexp.MustCompile(`(?s)/\*.*?\*/`).ReplaceAllString(string(raw), "")
	root := regexp.MustCompile(`(?s):root\s*\{([^{}]*)\}`).FindStringSubmatch(css)
	if root == nil {
		t.Fatal("app.css has no :root block")
	}
	vars := map[string]string{}
	for _, m := range regexp.MustCompile(`(--[a-z0-9-]+)\s*:\s*([^;]+)`).FindAllStringSubmatch(root[1], -1) {
		vars[m[1]] = strings.TrimSpace(m[2])
	}
	return css, vars
}

// declaration is one "property: value" of a rule outside :root.
type declaration struct{ selector, property, value string }

func declarations(css string) []declaration {
	var out []declaration
	// Innermost blocks are declaration blocks (those of @media included);
	// the selector is the text before the brace, after the previous one.
	for _, m := range regexp.MustCompile(`([^{}]*)\{([^{}]*)\}`).FindAllStringSubmatch(css, -1) {
		sel := strings.TrimSpace(m[1])
		if sel == ":root" {
			continue
		}
		for _, decl := range strings.Split(m[2], ";") {
			prop, value, ok := strings.Cut(decl, ":")
			if !ok {
				continue
			}
			out = append(out, declaration{sel, strings.TrimSpace(prop), strings.TrimSpace(value)})
		}
	}
	return out
}

// remOf reads a scale step's value in rem.
func remOf(t *testing.T, name, v string) float64 {
	t.Helper()
	n, err := strconv.ParseFloat(strings.TrimSuffix(v, "rem"), 64)
	if err != nil || !strings.HasSuffix(v, "rem") {
		t.Fatalf("%s is %q, want a rem value", name, v)
	}
	return n
}

// Every margin, padding and gap of the stylesheet is a step of the spacing
// scale (or 0 or auto), every font size a step of the type scale, every
// corner one of the radii, and every colour one of the :root palette: a raw value that creeps back in fails
// here, naming the rule.
func TestStylesheetUsesTheScales(t *testing.T) {
	css, vars := stylesheet(t)
	// The scales themselves: named steps, strictly increasing.
	for _, scale := range []struct {
		prefix string
		steps  []string
	}{
		{"--space-", []string{"1", "2", "3", "4", "5", "6", "7"}},
		{"--text-", []string{"2xs", "xs", "sm", "md", "lg", "xl", "2xl"}},
	} {
		prev := 0.0
		for _, step := range scale.steps {
			name := scale.prefix + step
			v, ok := vars[name]
			if !ok {
				t.Fatalf("the scale lacks %s", name)
			}
			if n := remOf(t, name, v); n <= prev {
				t.Errorf("%s = %s does not grow the scale", name, v)
			} else {
				prev = n
			}
		}
	}
	spacing := regexp.MustCompile(`^(margin|padding)(-(top|right|bottom|left))?$|^(row-|column-)?gap$`)
	spaceTok := regexp.MustCompile(`^(0|auto|inherit|var\(--space-[0-9]+\))$`)
	textTok := regexp.MustCompile(`^(inherit|var\(--text-[0-9a-z]+\))$`)
	colour := regexp.MustCompile(`#[0-9a-fA-F]{3,8}\b|\b(rgba?|hsla?)\(`)
	used := regexp.MustCompile(`var\((--[a-z0-9-]+)\)`)
	decls := declarations(css)
	if len(decls) < 100 {
		t.Fatalf("parsed %d declarations of app.css: the parser no longer reads it", len(decls))
	}
	for _, d := range decls {
		where := fmt.Sprintf("%s { %s: %s }", d.selector, d.property, d.value)
		if spacing.MatchString(d.property) {
			for _, tok := range strings.Fields(d.value) {
				if !spaceTok.MatchString(tok) {
					t.Errorf("%s: %q is not a step of the spacing scale (--space-1…7, 0 or auto)", where, tok)
				}
			}
		}
		if d.property == "border-radius" && !regexp.MustCompile(`^(0|var\(--radius(-[a-z]+)?\))$`).MatchString(d.value) {
			t.Errorf("%s: not one of the corner radii (--radius-sm, --radius, --radius-lg, --radius-pill)", where)
		}
		if d.property == "font-size" && !textTok.MatchString(d.value) {
			t.Errorf("%s: not a step of the type scale (--text-2xs…2xl)", where)
		}
		if d.property == "font" && d.value != "inherit" {
			t.Errorf("%s: the font shorthand would set a size outside the type scale", where)
		}
		if colour.MatchString(d.value) {
			t.Errorf("%s: a raw colour; add it to the :root palette (and to the contrast test)", where)
		}
		for _, m := range used.FindAllStringSubmatch(d.value, -1) {
			if _, ok := vars[m[1]]; !ok {
				t.Errorf("%s: %s is not defined in :root", where, m[1])
			}
		}
	}
}

// luminance is the WCAG 2 relative luminance of a #rrggbb or #rgb colour.
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	h := strings.TrimPrefix(hex, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil || len(h) != 6 {
		t.Fatalf("colour %q", hex)
	}
	lin := func(c uint64) float64 {
		s := float64(c) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(v>>16&0xff) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff)
}

func contrast(t *testing.T, a, b string) float64 {
	la, lb := luminance(t, a), luminance(t, b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// The palette passes WCAG AA: every text colour (severities, states,
// links, errors) at least 4.5:1 on every surface text sits on, and the
// severity colours as chart bars and swatches at least 3:1 (non-text).
func TestPaletteContrast(t *testing.T) {
	_, vars := stylesheet(t)
	texts := []string{"--ink", "--muted", "--accent", "--danger", "--ok", "--critical", "--high", "--medium", "--low", "--info"}
	surfaces := []string{"--card", "--bg", "--warn-bg", "--code-bg"}
	for _, fg := range texts {
		var ratios []string
		for _, bg := range surfaces {
			r := contrast(t, vars[fg], vars[bg])
			ratios = append(ratios, fmt.Sprintf("%.1f on %s", r, bg))
			if r < 4.5 {
				t.Errorf("%s (%s) on %s (%s): %.2f:1, WCAG AA wants 4.5:1 for text", fg, vars[fg], bg, vars[bg], r)
			}
		}
		t.Logf("%s: %s", fg, strings.Join(ratios, ", "))
	}
	for _, pair := range [][2]string{{"--accent-ink", "--accent"}, {"--muted", "--disabled-bg"}} {
		if r := contrast(t, vars[pair[0]], vars[pair[1]]); r < 4.5 {
			t.Errorf("%s on %s: %.2f:1, want 4.5:1", pair[0], pair[1], r)
		}
	}
	for _, sev := range []string{"--critical", "--high", "--medium", "--low", "--info"} {
		if r := contrast(t, vars[sev], vars["--card"]); r < 3 {
			t.Errorf("%s as a bar on --card: %.2f:1, want 3:1", sev, r)
		}
	}
}
