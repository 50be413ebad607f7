package main

import (
	"context"
	"flag"
	"time"

	"github.com/basaltdev/basalt/bench"
)

// idleRow is one server's resident set while idle.
type idleRow struct {
	Server string `json:"server"`
	RSS    int64  `json:"rss_bytes"`
}

// settleFlag is how long a server has been up, with nothing asked of it,
// when its memory is read.
var settleFlag = flag.Duration("settle", 5*time.Second, "idle time before the servers' memory is read")

// measureIdle reads each server's resident set once it has been idle for
// a while after its start (the servers started before it was called).
func measureIdle(ctx context.Context, opts bench.Options, stacks []*basaltStack, pb *pocketBase) []idleRow {
	settle := *settleFlag
	if opts.Smoke {
		settle = time.Second
	}
	select {
	case <-ctx.Done():
	case <-time.After(settle):
	}
	var rows []idleRow
	for _, bs := range stacks {
		rows = append(rows, idleRow{Server: bs.name + ", basalt serve", RSS: bs.rss()})
	}
	if pb != nil {
		rows = append(rows, idleRow{Server: pocketbase.String() + " (serve)", RSS: pb.rss()})
	}
	for _, r := range rows {
		progress("idle: %s %.1f MB", r.Server, float64(r.RSS)/1e6)
	}
	return rows
}
