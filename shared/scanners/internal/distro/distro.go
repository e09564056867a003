// Package distro recognises distribution builds in banners and version
// strings: a package revision (Debian "Debian-2+deb12u10" or "1+deb11u5",
// Ubuntu "Ubuntu-3ubuntu0.6", RHEL "9.el9", Alpine "-r2", FreeBSD
// "FreeBSD-20230719") or only the distribution's name ("Apache/2.4.57
// (Debian)"). Distributions backport security fixes without changing the
// upstream version, so an upstream version range says nothing reliable
// about such a build, and an upstream branch's end of life says nothing
// about the distribution's support of it (see README, "Checks and
// severities").
package distro

import (
	"strings"

	"secscan/shared/lazyre"
)

// Build is the distribution a banner names.
type Build struct {
	// Distribution is its name, e.g. "Debian", "Ubuntu", "RHEL", "Alpine".
	Distribution string
	// Revision is the package revision as the banner shows it (e.g.
	// "Debian-2+deb12u10", "0ubuntu0.14.04.1", "9.el9", "r2"), "" when only
	// the distribution's name is visible.
	Revision string
}

// HasRevision reports whether the package revision is visible.
func (b Build) HasRevision() bool { return b.Revision != "" }

// revisionMarker recognises the revisions of one distribution.
type revisionMarker struct {
	distribution string
	re           *lazyre.Regexp
}

// String is "Debian build Debian-2+deb12u10" or "Debian build".
func (b Build) String() string {
	if b.Revision == "" {
		return b.Distribution + " build"
	}
	return b.Distribution + " build " + b.Revision
}

var (
	// sshComment is the comment of an SSH version line after the software
	// version: "OpenSSH_9.2p1 Debian-2+deb12u10", "Ubuntu-3ubuntu0.6",
	// "Raspbian-5+deb11u3", "FreeBSD-20230719".
	sshComment = lazyre.New(`(?:^|[\s(])(Debian|Ubuntu|Raspbian|FreeBSD)-([0-9][0-9A-Za-z.+~:_-]{0,40})`)

	// inline revisions, in the dash-separated segment of a version token
	// that carries them.
	revisionMarkers = []revisionMarker{
		{"Debian", lazyre.New(`^[0-9][0-9A-Za-z.~]*\+deb[0-9]+(?:u[0-9]+)?[0-9A-Za-z.+~]*$|^[0-9][0-9A-Za-z.~]*deb[0-9]+u[0-9]+`)},
		{"Ubuntu", lazyre.New(`^[0-9][0-9A-Za-z.+~]*ubuntu[0-9][0-9A-Za-z.+~]*$`)},
		{"RHEL", lazyre.New(`^[0-9][0-9A-Za-z.+~_]*\.el[0-9]+(?:_[0-9]+)*(?:\.[0-9A-Za-z_]+)*$`)},
		{"Fedora", lazyre.New(`^[0-9][0-9A-Za-z.+~_]*\.fc[0-9]+$`)},
		{"Amazon Linux", lazyre.New(`^[0-9][0-9A-Za-z.+~_]*\.amzn[0-9]+(?:\.[0-9A-Za-z_]+)*$`)},
		{"Alpine", lazyre.New(`^r[0-9]+$`)},
	}

	// versionToken is a token that starts with a version or carries one
	// after a product name: "PHP/7.4.33-1+deb11u5", "10.11.6-MariaDB-0+deb12u1".
	versionToken = lazyre.New(`[0-9][0-9A-Za-z.+~:_/-]*`)

	// markers are distribution names that banners and Server headers carry
	// without a revision ("Apache/2.4.57 (Debian)", "(Red Hat Enterprise
	// Linux)", "(CentOS)").
	markers = []struct {
		distribution string
		re           *lazyre.Regexp
	}{
		{"Debian", lazyre.New(`(?i)\b(?:Debian|Raspbian)\b`)},
		{"Ubuntu", lazyre.New(`(?i)\bUbuntu\b`)},
		{"RHEL", lazyre.New(`(?i)\b(?:Red ?Hat(?: Enterprise Linux)?|RHEL|CentOS|Rocky(?: Linux)?|AlmaLinux|Oracle Linux)\b`)},
		{"Fedora", lazyre.New(`(?i)\bFedora\b`)},
		{"Amazon Linux", lazyre.New(`(?i)\bAmazon ?Linux\b`)},
		{"SUSE", lazyre.New(`(?i)\b(?:open)?SUSE\b|\bSLES\b`)},
		{"Alpine", lazyre.New(`(?i)\bAlpine\b`)},
		{"FreeBSD", lazyre.New(`(?i)\bFreeBSD\b`)},
	}
)

// maxText bounds the text examined.
const maxText = 1024

// Detect returns the distribution build text names: a revision when one
// is visible, else a distribution's name alone; false when it names none.
func Detect(text string) (Build, bool) {
	if len(text) > maxText {
		text = text[:maxText]
	}
	if b, ok := sshBuild(text); ok {
		return b, true
	}
	for _, tok := range versionToken.FindAllString(text, 16) {
		if b, ok := tokenRevision(tok); ok {
			return b, true
		}
	}
	for _, m := range markers {
		if m.re.MatchString(text) {
			return Build{Distribution: m.distribution}, true
		}
	}
	return Build{}, false
}

// sshBuild reads the distribution comment of an SSH banner
// ("OpenSSH_8.4p1 Debian-5+deb11u1"); Raspbian counts as Debian.
func sshBuild(text string) (Build, bool) {
	m := sshComment.FindStringSubmatch(text)
	if m == nil {
		return Build{}, false
	}
	name := m[1]
	if name == "Raspbian" {
		name = "Debian"
	}
	return Build{Distribution: name, Revision: m[1] + "-" + strings.TrimRight(m[2], ".,;:-")}, true
}

// tokenRevision finds a distribution revision in one version token.
func tokenRevision(tok string) (Build, bool) {
	// "PHP/7.4.33-1+deb11u5" → segments after the version: "1+deb11u5".
	segs := strings.Split(tok, "-")
	for _, seg := range segs[1:] { // segs[0] is the upstream version itself
		if b, ok := markedRevision(seg, revisionMarkers); ok {
			return b, true
		}
	}
	// RHEL and Fedora builds also glue the release to the version
	// without a dash in some banners ("1.0.2k.el7").
	if strings.Contains(segs[0], ".") {
		return markedRevision(segs[0], revisionMarkers[2:4])
	}
	return Build{}, false
}

// markedRevision is the build of the first of markers that seg matches.
func markedRevision(seg string, markers []revisionMarker) (Build, bool) {
	for _, r := range markers {
		if r.re.MatchString(seg) {
			return Build{Distribution: r.distribution, Revision: seg}, true
		}
	}
	return Build{}, false
}
