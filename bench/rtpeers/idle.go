package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// idleRow is one server's memory while idle, one reading per round: the
// resident set and its parts, the heap, stacks and the runtime's own
// memory (anonymous) and the pages of its binary (file).
type idleRow struct {
	Server string         `json:"server"`
	Runs   []bench.Memory `json:"runs"`
}

// settleFlag is how long a server has been up, with nothing asked of it,
// when its memory is read.
var settleFlag = flag.Duration("settle", 5*time.Second, "idle time before the servers' memory is read")

// measureIdle reads each server's memory once it has been idle for a while
// after its start, once a round: the servers started before it was called,
// and every later round starts them again (the binary dropped from the page
// cache first, as at the first start), in alternating order.
func measureIdle(ctx context.Context, opts bench.Options, rounds int, stacks []*basaltStack, pb *pocketBase) ([]idleRow, error) {
	settle := *settleFlag
	if opts.Smoke {
		settle = time.Second
	}
	var procs []*proc
	var rows []idleRow
	for _, bs := range stacks {
		procs, rows = append(procs, bs.proc), append(rows, idleRow{Server: bs.name + ", basalt serve"})
	}
	if pb != nil {
		procs, rows = append(procs, pb.proc), append(rows, idleRow{Server: pocketbase.String() + " (serve)"})
	}
	for round := range rounds {
		if round > 0 {
			for i := range procs {
				if round%2 == 1 {
					i = len(procs) - 1 - i
				}
				if err := procs[i].restart(ctx); err != nil {
					return nil, err
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(settle):
		}
		for i, p := range procs {
			m := p.memory()
			rows[i].Runs = append(rows[i].Runs, m)
			progress("idle: %s %s", rows[i].Server, mb(m))
		}
	}
	return rows, nil
}

// mb is a reading in megabytes: the resident set = anonymous + binary.
func mb(m bench.Memory) string {
	return fmt.Sprintf("%.1f MB = %.1f + %.1f", float64(m.RSS)/1e6, float64(m.Anon)/1e6, float64(m.File)/1e6)
}
