package vuln

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"secscan/shared/lazyre"
	"secscan/shared/scans"
)

//go:embed dataset.json
var datasetJSON []byte

// Dataset is the embedded, versioned list of known vulnerabilities and
// end-of-life branches the tool matches fingerprints against.
type Dataset struct {
	// Version names this edition of the data; bump it with every change.
	Version         string          `json:"version"`
	Description     string          `json:"description"`
	Products        []Product       `json:"products"`
	Vulnerabilities []Vulnerability `json:"vulnerabilities"`
	EndOfLife       []EndOfLife     `json:"end_of_life"`

	names map[string]string
	kinds map[string]string
}

// Product is a piece of software fingerprints can name.
type Product struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"` // KindServer or KindJavaScript
}

// Product kinds: they decide how a finding explains its confidence and
// remedy (server packages get distribution backports, libraries do not).
const (
	KindServer     = "server"
	KindJavaScript = "javascript"
)

// Vulnerability is one CVE as it affects one product.
type Vulnerability struct {
	CVE         string   `json:"cve"`
	Product     string   `json:"product"`
	Affected    []Range  `json:"affected"`
	CVSS        float64  `json:"cvss"`
	CVSSVersion string   `json:"cvss_version"`
	CWE         string   `json:"cwe,omitempty"`
	Title       string   `json:"title"`
	Summary     string   `json:"summary"`
	Condition   string   `json:"condition,omitempty"`   // the configuration it needs, when not every install is affected
	Remediation string   `json:"remediation,omitempty"` // overrides "upgrade to the fixed release"
	References  []string `json:"references"`
}

// Range is a span of affected versions: Introduced inclusive, Fixed
// exclusive, LastAffected inclusive; an empty bound is open.
type Range struct {
	Introduced   string `json:"introduced,omitempty"`
	Fixed        string `json:"fixed,omitempty"`
	LastAffected string `json:"last_affected,omitempty"`
}

// EndOfLife is a release branch that no longer receives security fixes.
type EndOfLife struct {
	Product    string         `json:"product"`
	Branch     string         `json:"branch"` // version prefix, e.g. "7.4" or "5"
	EOL        string         `json:"eol"`    // YYYY-MM-DD
	Severity   scans.Severity `json:"severity"`
	References []string       `json:"references"`
}

var (
	cvePattern = lazyre.New(`^CVE-\d{4}-\d{4,}$`)
	cwePattern = lazyre.New(`^CWE-\d+$`)
)

// builtinDataset parses the embedded data once.
var builtinDataset = sync.OnceValues(func() (*Dataset, error) {
	return ParseDataset(datasetJSON)
})

// ParseDataset decodes and validates a dataset.
func ParseDataset(data []byte) (*Dataset, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d Dataset
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("decode vulnerability dataset: %w", err)
	}
	if err := d.validate(); err != nil {
		return nil, fmt.Errorf("vulnerability dataset %s: %w", d.Version, err)
	}
	return &d, nil
}

// validate checks every entry: ids, scores, references and parseable,
// non-empty ranges, so a bad edit fails the tests instead of matching
// wrongly.
func (d *Dataset) validate() error {
	if d.Version == "" {
		return errors.New("no version")
	}
	if err := d.indexProducts(); err != nil {
		return err
	}
	var errs []error
	seen := map[string]bool{}
	for _, v := range d.Vulnerabilities {
		where := v.CVE + "/" + v.Product
		errs = append(errs, v.problems(where, seen[where], d.names)...)
		seen[where] = true
	}
	for _, e := range d.EndOfLife {
		errs = append(errs, e.problems(d.names)...)
	}
	return errors.Join(errs...)
}

// indexProducts fills names and kinds from the products, which must have
// an id, a name and a known kind, each id once.
func (d *Dataset) indexProducts() error {
	d.names, d.kinds = map[string]string{}, map[string]string{}
	for _, p := range d.Products {
		if p.ID == "" || p.Name == "" || d.names[p.ID] != "" {
			return fmt.Errorf("product %q: empty or duplicate", p.ID)
		}
		if p.Kind != KindServer && p.Kind != KindJavaScript {
			return fmt.Errorf("product %q: kind %q is neither %q nor %q", p.ID, p.Kind, KindServer, KindJavaScript)
		}
		d.names[p.ID], d.kinds[p.ID] = p.Name, p.Kind
	}
	return nil
}

// problems are what is wrong with one entry (where names it; dup: an
// earlier entry has the same CVE and product; names are the products'
// names by id), the CVE id first, the ranges last.
func (v Vulnerability) problems(where string, dup bool, names map[string]string) []error {
	var errs []error
	for _, err := range append(v.identityProblems(dup, names), v.contentProblems()...) {
		errs = append(errs, fmt.Errorf("%s: %w", where, err))
	}
	return errs
}

// identityProblems are what is wrong with what the entry is about: its CVE
// id and product, and whether it is there once.
func (v Vulnerability) identityProblems(dup bool, names map[string]string) []error {
	var errs []error
	if !cvePattern.MatchString(v.CVE) {
		errs = append(errs, fmt.Errorf("CVE id does not match %s", cvePattern))
	}
	if dup {
		errs = append(errs, errors.New("duplicate entry"))
	}
	if names[v.Product] == "" {
		errs = append(errs, errors.New("unknown product"))
	}
	return errs
}

// contentProblems are what is wrong with what the entry says: its scores,
// wording, references and ranges.
func (v Vulnerability) contentProblems() []error {
	var errs []error
	if v.CVSS < 0 || v.CVSS > 10 || !slices.Contains([]string{"2.0", "3.0", "3.1"}, v.CVSSVersion) {
		errs = append(errs, fmt.Errorf("CVSS %.1f (version %q) out of range", v.CVSS, v.CVSSVersion))
	}
	if v.CWE != "" && !cwePattern.MatchString(v.CWE) {
		errs = append(errs, fmt.Errorf("CWE %q malformed", v.CWE))
	}
	if v.Title == "" || v.Summary == "" {
		errs = append(errs, errors.New("title and summary are required"))
	}
	if err := checkReferences(v.References); err != nil {
		errs = append(errs, err)
	}
	return append(errs, v.rangeProblems()...)
}

// rangeProblems are what is wrong with the entry's affected ranges: none,
// or ones that do not validate.
func (v Vulnerability) rangeProblems() []error {
	if len(v.Affected) == 0 {
		return []error{errors.New("no affected range")}
	}
	var errs []error
	for _, r := range v.Affected {
		if err := r.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// problems are what is wrong with one end-of-life entry (names are the
// products' names by id).
func (e EndOfLife) problems(names map[string]string) []error {
	var errs []error
	where := e.Product + " " + e.Branch
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("end of life %s: %w", where, fmt.Errorf(format, args...)))
	}
	if names[e.Product] == "" {
		fail("unknown product")
	}
	if _, err := ParseVersion(e.Branch); err != nil {
		fail("%w", err)
	}
	if _, err := time.Parse(time.DateOnly, e.EOL); err != nil {
		fail("date: %w", err)
	}
	if e.Severity.Rank() >= len(scans.Severities) {
		fail("severity %q", e.Severity)
	}
	if err := checkReferences(e.References); err != nil {
		fail("%w", err)
	}
	return errs
}

func checkReferences(refs []string) error {
	if len(refs) == 0 {
		return errors.New("no references")
	}
	for _, r := range refs {
		if !strings.HasPrefix(r, "https://") {
			return fmt.Errorf("reference %q is not https", r)
		}
	}
	return nil
}

func (r Range) validate() error {
	if r.Introduced == "" && r.Fixed == "" && r.LastAffected == "" {
		return errors.New("a range needs at least one bound")
	}
	if r.Fixed != "" && r.LastAffected != "" {
		return errors.New("a range has either fixed or last_affected")
	}
	parsed, err := r.bounds()
	if err != nil {
		return err
	}
	return checkOrder(parsed)
}

// checkOrder errs when a range's parsed bounds (by name) are out of order:
// introduced must come before fixed, and not after last_affected.
func checkOrder(parsed map[string]Version) error {
	in, ok := parsed["introduced"]
	if !ok {
		return nil
	}
	if f, ok := parsed["fixed"]; ok && in.Compare(f) >= 0 {
		return fmt.Errorf("introduced %s is not before fixed %s", in, f)
	}
	if l, ok := parsed["last_affected"]; ok && in.Compare(l) > 0 {
		return fmt.Errorf("introduced %s is after last_affected %s", in, l)
	}
	return nil
}

// bounds are the range's bounds that are set, parsed, by name.
func (r Range) bounds() (map[string]Version, error) {
	bounds := map[string]string{"introduced": r.Introduced, "fixed": r.Fixed, "last_affected": r.LastAffected}
	parsed := map[string]Version{}
	for name, s := range bounds {
		if s == "" {
			continue
		}
		v, err := ParseVersion(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		parsed[name] = v
	}
	return parsed, nil
}

// Contains reports whether v is in the range. Bounds were validated when
// the dataset was parsed.
func (r Range) Contains(v Version) bool {
	if r.Introduced != "" && v.Compare(MustParseVersion(r.Introduced)) < 0 {
		return false
	}
	if r.Fixed != "" && v.Compare(MustParseVersion(r.Fixed)) >= 0 {
		return false
	}
	if r.LastAffected != "" && v.Compare(MustParseVersion(r.LastAffected)) > 0 {
		return false
	}
	return true
}

// String renders the range for evidence, e.g. ">= 2.4.49, < 2.4.51".
func (r Range) String() string {
	if r.Introduced != "" && r.Introduced == r.LastAffected {
		return "= " + r.Introduced
	}
	var parts []string
	if r.Introduced != "" {
		parts = append(parts, ">= "+r.Introduced)
	}
	if r.Fixed != "" {
		parts = append(parts, "< "+r.Fixed)
	}
	if r.LastAffected != "" {
		parts = append(parts, "<= "+r.LastAffected)
	}
	return strings.Join(parts, ", ")
}

// ProductName returns the display name of a product id.
func (d *Dataset) ProductName(id string) string {
	if n := d.names[id]; n != "" {
		return n
	}
	return id
}

// ProductKind returns the kind of a product id.
func (d *Dataset) ProductKind(id string) string { return d.kinds[id] }

// Match returns the vulnerabilities of product that affect v, with the
// range that matched.
func (d *Dataset) Match(product string, v Version) []Matched {
	var out []Matched
	for _, vuln := range d.Vulnerabilities {
		if vuln.Product != product {
			continue
		}
		for _, r := range vuln.Affected {
			if r.Contains(v) {
				out = append(out, Matched{Vulnerability: vuln, Range: r})
				break
			}
		}
	}
	return out
}

// Matched is a vulnerability and the affected range a version fell in.
type Matched struct {
	Vulnerability
	Range Range
}

// EndOfLifeAt returns the end-of-life branch v belongs to if its end of
// life is before now.
func (d *Dataset) EndOfLifeAt(product string, v Version, now time.Time) (EndOfLife, bool) {
	for _, e := range d.EndOfLife {
		if e.Product != product || !hasPrefix(v, MustParseVersion(e.Branch)) {
			continue
		}
		if eol, err := time.Parse(time.DateOnly, e.EOL); err == nil && eol.Before(now) {
			return e, true
		}
	}
	return EndOfLife{}, false
}

// hasPrefix reports whether v starts with every part of branch
// ("7.4.33" is in branch "7.4", "5.6.40" in branch "5").
func hasPrefix(v, branch Version) bool {
	if len(v.parts) < len(branch.parts) {
		return false
	}
	for i, p := range branch.parts {
		if comparePart(&v.parts[i], &p) != 0 {
			return false
		}
	}
	return true
}
