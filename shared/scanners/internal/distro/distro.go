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
	revisionMarkers = []struct {
		distribution string
		re           *lazyre.Regexp
	}{
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
	if m := sshComment.FindStringSubmatch(text); m != nil {
		name := m[1]
		if name == "Raspbian" {
			name = "Debian"
		}
		return Build{Distribution: name, Revision: m[1] + "-" + strings.TrimRight(m[2], ".,;:-")}, true
	}
	for _, tok := range versionToken.FindAllString(text, 16) {
		// "PHP/7.4.33-1+deb11u5" → segments after the version: "1+deb11u5".
		segs := strings.Split(tok, "-")
		for i, seg := range segs {
			if i == 0 {
				continue // the upstream version itself
			}
			for _, r := range revisionMarkers {
				if r.re.MatchString(seg) {
					return Build{Distribution: r.distribution, Revision: seg}, true
				}
			}
		}
		// RHEL and Fedora builds also glue the release to the version
		// without a dash in some banners ("1.0.2k.el7").
		for _, r := range revisionMarkers[2:4] {
			if r.re.MatchString(segs[0]) && strings.Contains(segs[0], ".") {
				return Build{Distribution: r.distribution, Revision: segs[0]}, true
			}
		}
	}
	for _, m := range markers {
		if m.re.MatchString(text) {
			return Build{Distribution: m.distribution}, true
		}
	}
	return Build{}, false
}
