package netsend

import (
	"net/netip"
	"testing"
)

func TestInternalAddresses(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "::ffff:127.0.0.1": "loopback", "64:ff9b::7f00:1": "loopback",
		"10.1.2.3": "private", "172.16.0.1": "private", "192.168.1.1": "private", "fd00::1": "private", "100.64.0.1": "private",
		"169.254.169.254": "link-local", "fe80::1": "link-local",
		"0.0.0.0": "unspecified", "::": "unspecified", "0.1.2.3": "unspecified",
		"224.1.2.3": "multicast", "224.0.0.1": "link-local", "ff02::1": "link-local",
		"8.8.8.8": "", "2606:4700:4700::1111": "", "64:ff9b::808:808": "",
	} {
		if got := internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("internal(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestGuardAllowList(t *testing.T) {
	allowed, err := ParseCIDRs("127.0.0.0/8, 10.0.0.5")
	if err != nil {
		t.Fatal(err)
	}
	g := guard{allowed: allowed}
	for addr, ok := range map[string]bool{
		"127.0.0.1:80": true, "[::ffff:127.0.0.1]:80": true, "10.0.0.5:443": true, "10.0.0.6:443": false,
		"[::1]:80": false, "93.184.216.34:80": true,
	} {
		err := g.check(netip.MustParseAddrPort(addr))
		if (err == nil) != ok {
			t.Errorf("check(%s) = %v, want allowed %v", addr, err, ok)
		}
	}
	if _, err := ParseCIDRs("10.0.0.0/33"); err == nil {
		t.Error("ParseCIDRs took a bad range")
	}
}

// FuzzParseCIDRs: any setting either parses into ranges that contain their
// own address, or is refused; it never panics.
func FuzzParseCIDRs(f *testing.F) {
	for _, s := range []string{"127.0.0.0/8,::1/128", "10.0.0.5", " , ", "fe80::1%eth0", "1.2.3.4/33", "::ffff:10.0.0.1/104"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParseCIDRs(s)
		if err != nil {
			return
		}
		for _, p := range ps {
			if !p.IsValid() || !p.Contains(p.Addr()) {
				t.Fatalf("ParseCIDRs(%q) gave %v", s, p)
			}
		}
	})
}
