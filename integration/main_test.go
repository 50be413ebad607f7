// Package integration holds the tests of Basalt's services wired together
// behind the gateway: what one service alone cannot show (that every
// service acts as the caller the same way, that a request's trace runs from
// the gateway into the database). It has no code of its own. The ground
// floor (internal/, gateway/) imports no service, its tests included, so
// these tests live here, beside the services.
package integration_test

import (
	"testing"

	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
