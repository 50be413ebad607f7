package app_test

import (
	"sync"
	"testing"
)

// TestCashoutRequestWhileRejecting: an artist asks for a cash-out while an
// admin rejects another of their requests. Both move money between the
// artist's wallet and the held-cash-outs account; they must take the two
// wallet locks in one order, or PostgreSQL breaks the tie with "deadlock
// detected" and one of them fails.
func TestCashoutRequestWhileRejecting(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.newWorld()
	e.fund(w.artist, 1000000)
	for round := 0; round < 40; round++ {
		pending := e.requestCashout(w.artist, 1000)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, errs[0] = e.callJSON(user(w.artist), `SELECT public.request_cashout(1000, 'Zenith Bank', '0123456789', 'Ada Artist')::text`)
		}()
		go func() {
			defer wg.Done()
			<-start
			_, errs[1] = e.callJSON(user(w.admin), `SELECT public.reject_cashout($1, 'Account name does not match')::text`, pending)
		}()
		close(start)
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, %s: %v", round, []string{"request", "reject"}[i], err)
			}
		}
	}
	e.conserved()
}
