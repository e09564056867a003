package pdf

import (
	"strconv"
	"strings"
	"time"
	"unicode"

	"secscan/shared/scans"
)

func pdfHostPort(f scans.Finding) string {
	h := pdfOneLine(f.Host)
	if h == "" {
		h = "-"
	}
	if f.Port != nil {
		return h + ":" + strconv.Itoa(*f.Port)
	}
	return h
}

func pdfCVECVSS(f scans.Finding, sep string) string {
	var parts []string
	if f.CVE != nil && *f.CVE != "" {
		parts = append(parts, *f.CVE)
	}
	if f.CVSS != nil {
		parts = append(parts, "CVSS "+strconv.FormatFloat(*f.CVSS, 'f', 1, 64))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, sep)
}

func pdfTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func pdfDuration(ms int64) string {
	if ms < 1000 {
		return strconv.FormatInt(ms, 10) + " ms"
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', 1, 64) + " s"
}

func pdfCapitalize(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func pdfPlural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func pdfOrNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "None recorded."
	}
	return s
}

// pdfMetadataText is s without control or format characters, for the PDF's
// document information (shown by viewers in their title bar).
func pdfMetadataText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}
