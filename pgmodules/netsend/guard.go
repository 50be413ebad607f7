package netsend

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// RefusedError is the SSRF guard's answer: the address a request was about
// to connect to is internal and not allowed.
type RefusedError struct {
	Addr   netip.AddrPort
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to connect to %s: %s address (allow it with BASALT_NET_ALLOWED_CIDRS)", e.Addr, e.Reason)
}

var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
)

// internal names why addr must not be reached from the database's
// requests, or "" when it is a public address.
func internal(addr netip.Addr) string {
	addr = addr.Unmap()
	if nat64.Contains(addr) {
		// 64:ff9b::a.b.c.d reaches a.b.c.d through a NAT64 gateway.
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case addr.IsLoopback():
		return "loopback"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "link-local"
	case addr.IsPrivate(), sharedSpace.Contains(addr):
		return "private"
	case addr.IsUnspecified(), thisNetwork.Contains(addr):
		return "unspecified"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	}
	return ""
}

// guard refuses internal addresses unless allowed.
type guard struct{ allowed []netip.Prefix }

func (g guard) check(ap netip.AddrPort) error {
	reason := internal(ap.Addr())
	if reason == "" {
		return nil
	}
	for _, p := range g.allowed {
		if p.Contains(ap.Addr().Unmap()) || p.Contains(ap.Addr()) {
			return nil
		}
	}
	return &RefusedError{Addr: ap, Reason: reason}
}

// control runs for every connection after the name was resolved and
// before it is made, so a name that resolves to an internal address (or
// is changed to one between two lookups) is refused too.
func (g guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		host, _, _ := net.SplitHostPort(address)
		return fmt.Errorf("refused to connect to %q: not an IP address", host)
	}
	return g.check(ap)
}
