package distro

import "testing"

// TestDetect: banners and version strings of distribution builds, with and
// without a visible package revision, and upstream builds.
func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		text         string
		distribution string
		revision     string
	}{
		// Debian
		{"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u10", "Debian", "Debian-2+deb12u10"},
		{"SSH-2.0-OpenSSH_7.9p1 Raspbian-10+deb10u2+rpt1", "Debian", "Raspbian-10+deb10u2+rpt1"},
		{"PHP/7.4.33-1+deb11u5", "Debian", "1+deb11u5"},
		{"MySQL protocol 10 greeting, server version 10.11.6-MariaDB-0+deb12u1", "Debian", "0+deb12u1"},
		{"nginx/1.22.1-9~deb12u1", "Debian", "9~deb12u1"},
		{"Apache/2.4.57 (Debian)", "Debian", ""},
		{"Apache/2.4.57 (Debian) OpenSSL/3.0.11", "Debian", ""},
		// Ubuntu
		{"SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.6", "Ubuntu", "Ubuntu-3ubuntu0.6"},
		{"SSH-2.0-OpenSSH_7.2p2 Ubuntu-4ubuntu2.8", "Ubuntu", "Ubuntu-4ubuntu2.8"},
		{"MySQL protocol 10 greeting, server version 5.5.62-0ubuntu0.14.04.1", "Ubuntu", "0ubuntu0.14.04.1"},
		{"PHP/8.1.2-1ubuntu2.14", "Ubuntu", "1ubuntu2.14"},
		{"nginx/1.18.0 (Ubuntu)", "Ubuntu", ""},
		// RHEL and relatives
		{"openssh-8.7p1-38.el9", "RHEL", "38.el9"},
		{"httpd-2.4.57-5.el9_3.1", "RHEL", "5.el9_3.1"},
		{"Apache/2.4.37 (Red Hat Enterprise Linux) OpenSSL/1.1.1k", "RHEL", ""},
		{"Apache/2.4.6 (CentOS) OpenSSL/1.0.2k-fips PHP/5.4.16", "RHEL", ""},
		{"Apache/2.4.57 (Rocky Linux)", "RHEL", ""},
		{"nginx/1.20.1-14.fc39", "Fedora", "14.fc39"},
		{"httpd-2.4.58-1.amzn2023.0.1", "Amazon Linux", "1.amzn2023.0.1"},
		// Alpine
		{"openssh-9.6_p1-r0", "Alpine", "r0"},
		{"nginx/1.24.0-r2", "Alpine", "r2"},
		{"SSH-2.0-OpenSSH_9.3 Alpine", "Alpine", ""},
		// FreeBSD base system
		{"SSH-2.0-OpenSSH_9.3 FreeBSD-20230719", "FreeBSD", "FreeBSD-20230719"},
		// upstream
		{"SSH-2.0-OpenSSH_9.6", "", ""},
		{"SSH-2.0-OpenSSH_7.4", "", ""},
		{"Apache/2.4.49 (Unix)", "", ""},
		{"Apache/2.4.6 OpenSSL/1.0.2k-fips", "", ""},
		{"MySQL protocol 10 greeting, server version 8.0.36", "", ""},
		{"nginx/1.25.3-rc1", "", ""},
		{"SSH-2.0-dropbear_2022.83", "", ""},
	} {
		b, ok := Detect(tc.text)
		if ok != (tc.distribution != "") || b.Distribution != tc.distribution || b.Revision != tc.revision {
			t.Errorf("Detect(%q) = %+v, %v; want %q revision %q", tc.text, b, ok, tc.distribution, tc.revision)
		}
		if ok && b.HasRevision() != (tc.revision != "") {
			t.Errorf("Detect(%q).HasRevision() = %v", tc.text, b.HasRevision())
		}
	}
}
