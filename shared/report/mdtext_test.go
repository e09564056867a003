package report

import "testing"

// TestMdText pins mdText's escaping byte for byte: everywhere, only
// where it would start syntax, and never inside words.
func TestMdText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"demo.secscan.test", "demo.secscan.test"},
		{"snake_case_name", "snake_case_name"},
		{"_lead trail_", "\\_lead trail\\_"},
		{"a_", "a\\_"},
		{"a*b`c[d]e~f|g$h<i@j\\k", "a\\*b\\`c\\[d\\]e\\~f\\|g\\$h\\<i\\@j\\\\k"},
		{"&amp; & &#65; &#x41; &bogus", "\\&amp; & \\&#65; \\&#x41; &bogus"},
		{"https://x", "https\\://x"},
		{"a:b", "a:b"},
		{"www.x", "www\\.x"},
		{"awww.x", "awww.x"},
		{"(www.x", "(www\\.x"},
		{"  # h", "  \\# h"},
		{"a # b", "a # b"},
		{"> q", "\\> q"},
		{"x > y", "x > y"},
		{"- l", "\\- l"},
		{"+ l", "\\+ l"},
		{"= l", "\\= l"},
		{"a-b+c=d", "a-b+c=d"},
		{"![i]", "\\!\\[i\\]"},
		{"!x", "!x"},
		{"1. n", "1\\. n"},
		{"  2026) n", "  2026\\) n"},
		{"a 1. n", "a 1. n"},
		{"1.5", "1\\.5"},
		{".", "."},
		{")", ")"},
		{"3)", "3\\)"},
		{"ü_x", "ü_x"},
		{"x_ü", "x_ü"},
		{"tab\there\nnl", "tab here nl"},
		{"ctl\x01", "ctl�"},
		{"émoji 🔥 # x", "émoji 🔥 # x"},
	} {
		if got := mdText(tc.in); got != tc.want {
			t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
