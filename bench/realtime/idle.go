package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/gorilla/websocket"
)

// The idle-sockets case: how many idle clients, each heartbeating as
// realtime-js does, one node holds, and what each costs the server's
// process. The clients run in child processes (this program re-executed),
// so the server's memory holds only the server side of each socket. The
// baseline is a bare gorilla/websocket server in the same process, holding
// as many sockets and answering every frame with one reply frame.

// idleClientEnv marks a child process that holds client sockets; its value
// is the job as JSON.
const idleClientEnv = "BENCH_REALTIME_IDLE_CLIENT"

// idleJob is what one client process does.
type idleJob struct {
	URL       string        `json:"url"`
	Sockets   int           `json:"sockets"`
	Join      bool          `json:"join"`       // join a channel, as an idle realtime-js tab has one
	Heartbeat time.Duration `json:"heartbeat"`  // per socket
	FirstAddr int           `json:"first_addr"` // source addresses 127.0.0.<FirstAddr>, …
}

// portsPerAddr is how many sockets a client opens from one loopback source
// address: under the ephemeral port range (about 28,000 ports) to one
// destination.
const portsPerAddr = 25000

// idleReport is one side's figures.
type idleReport struct {
	Name           string  `json:"name"`
	Sockets        int     `json:"sockets"`
	HeapPerSocket  float64 `json:"heap_bytes_per_socket"` // Go heap objects and goroutine stacks
	RSSPerSocket   float64 `json:"rss_bytes_per_socket"`
	GoroutinesPer  float64 `json:"goroutines_per_socket"`
	Heartbeats     int64   `json:"heartbeats"`
	HeartbeatsLost int64   `json:"heartbeats_unanswered"`
	ConnectSeconds float64 `json:"connect_seconds"`
}

// idleCap is how many sockets this process may hold: its open file limit,
// raised to the hard limit, less room for the database pools, listeners
// and the process itself.
func idleCap() (int, uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	return int(lim.Cur) - 512, lim.Cur
}

// idle measures one server: n client sockets from child processes, held
// for hold while they heartbeat.
func idle(ctx context.Context, name, url string, n int, join bool, hold, heartbeat time.Duration, firstAddr int) (idleReport, error) {
	r := idleReport{Name: name, Sockets: n}
	heap0, rss0 := serverMemory()
	g0 := runtime.NumGoroutine()
	perChild := 15000 // each child stays under its own open file limit
	var children []*idleChild
	defer func() {
		for _, c := range children {
			c.kill()
		}
	}()
	start := time.Now()
	for i, left := 0, n; left > 0; i++ {
		k := min(left, perChild)
		c, err := startIdleChild(ctx, idleJob{URL: url, Sockets: k, Join: join, Heartbeat: heartbeat,
			FirstAddr: firstAddr + i*((perChild+portsPerAddr-1)/portsPerAddr)})
		if err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		children = append(children, c)
		left -= k
	}
	for _, c := range children {
		if err := c.waitReady(); err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
	}
	r.ConnectSeconds = time.Since(start).Seconds()
	select {
	case <-ctx.Done():
		return r, ctx.Err()
	case <-time.After(hold):
	}
	heap1, rss1 := serverMemory()
	r.GoroutinesPer = float64(runtime.NumGoroutine()-g0) / float64(n)
	r.HeapPerSocket = float64(heap1-heap0) / float64(n)
	r.RSSPerSocket = float64(rss1-rss0) / float64(n)
	for _, c := range children {
		sent, answered, err := c.stop()
		if err != nil {
			return r, fmt.Errorf("%s: %w", name, err)
		}
		r.Heartbeats += sent
		r.HeartbeatsLost += sent - answered
	}
	children = nil
	return r, nil
}

// serverMemory is this process's Go heap objects plus goroutine stacks, and
// its resident set, after a collection that returns free memory to the
// system.
func serverMemory() (heap, rss int64) {
	runtime.GC()
	debug.FreeOSMemory()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	heap = int64(s[0].Value.Uint64() + s[1].Value.Uint64())
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				rss = kb << 10
			}
		}
	}
	return heap, rss
}

// idleChild is one client process.
type idleChild struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	stder *strings.Builder
}

func startIdleChild(ctx context.Context, job idleJob) (*idleChild, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(job)
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), idleClientEnv+"="+string(b))
	c := &idleChild{cmd: cmd, stder: &strings.Builder{}}
	cmd.Stderr = c.stder
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = bufio.NewScanner(out)
	return c, cmd.Start()
}

// line reads the child's next line of output.
func (c *idleChild) line() (string, error) {
	if !c.out.Scan() {
		_ = c.cmd.Wait()
		return "", fmt.Errorf("client process ended: %s", strings.TrimSpace(c.stder.String()))
	}
	return c.out.Text(), nil
}

func (c *idleChild) waitReady() error {
	l, err := c.line()
	if err != nil {
		return err
	}
	if l != "ready" {
		return fmt.Errorf("client process: %s", l)
	}
	return nil
}

// stop asks the child for its heartbeat counts and lets it exit.
func (c *idleChild) stop() (sent, answered int64, err error) {
	fmt.Fprintln(c.in, "stop")
	l, err := c.line()
	if err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Sscanf(l, "heartbeats %d %d", &sent, &answered); err != nil {
		return 0, 0, fmt.Errorf("client process: %s", l)
	}
	_ = c.in.Close()
	_ = c.cmd.Wait()
	return sent, answered, nil
}

func (c *idleChild) kill() {
	if c.cmd.Process != nil && c.cmd.ProcessState == nil {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	}
}

// runIdleClient is the child process: open the job's sockets, say "ready",
// heartbeat each socket every job.Heartbeat until told "stop", then report
// the heartbeats sent and answered.
func runIdleClient(spec string) error {
	var job idleJob
	if err := json.Unmarshal([]byte(spec), &job); err != nil {
		return err
	}
	conns := make([]*websocket.Conn, job.Sockets)
	var answered atomic.Int64
	var dialErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := range job.Sockets {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			c, err := dialIdle(job, i)
			if err != nil {
				mu.Lock()
				dialErr = errors.Join(dialErr, err)
				mu.Unlock()
				return
			}
			conns[i] = c
		}()
	}
	wg.Wait()
	if dialErr != nil {
		return dialErr
	}
	for _, c := range conns {
		go func() {
			for {
				_, data, err := c.ReadMessage()
				if err != nil {
					return
				}
				if strings.Contains(string(data), `"phoenix","phx_reply"`) {
					answered.Add(1)
				}
			}
		}()
	}
	fmt.Println("ready")
	// One heartbeat for each socket per interval, spread over it.
	var sent int64
	stop := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if sc.Text() == "stop" {
				break
			}
		}
		close(stop)
	}()
	step := job.Heartbeat / time.Duration(len(conns))
	next := time.Now()
	for i := 0; ; i = (i + 1) % len(conns) {
		next = next.Add(step)
		select {
		case <-stop:
			time.Sleep(200 * time.Millisecond) // the last replies
			fmt.Printf("heartbeats %d %d\n", sent, answered.Load())
			return nil
		case <-time.After(time.Until(next)):
		}
		sent++
		hb := fmt.Sprintf(`[null,"%d","phoenix","heartbeat",{}]`, sent)
		if err := conns[i].WriteMessage(websocket.TextMessage, []byte(hb)); err != nil {
			return fmt.Errorf("heartbeat on socket %d: %w", i, err)
		}
	}
}

// dialIdle opens socket i from its source address and, for realtime,
// joins a channel the way realtime-js does.
func dialIdle(job idleJob, i int) (*websocket.Conn, error) {
	src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(job.FirstAddr+i/portsPerAddr))}
	nd := &net.Dialer{LocalAddr: src, Timeout: 30 * time.Second, Control: noPortAtBind}
	d := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) { return nd.Dial(network, addr) },
		HandshakeTimeout: 30 * time.Second, ReadBufferSize: 512, WriteBufferSize: 512}
	c, res, err := d.Dial(job.URL, nil)
	if err != nil {
		if res != nil {
			return nil, fmt.Errorf("dial: %w (HTTP %d)", err, res.StatusCode)
		}
		return nil, fmt.Errorf("dial: %w", err)
	}
	if !job.Join {
		return c, nil
	}
	topic := fmt.Sprintf("realtime:idle-%d", i%100)
	join := fmt.Sprintf(`["1","1",%q,"phx_join",{"config":{"broadcast":{"ack":false,"self":false},"presence":{"key":"","enabled":false},"postgres_changes":[],"private":false}}]`, topic)
	if err := c.WriteMessage(websocket.TextMessage, []byte(join)); err != nil {
		return nil, err
	}
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, reply, err := c.ReadMessage()
	if err != nil || !strings.Contains(string(reply), `"status":"ok"`) {
		return nil, fmt.Errorf("join: %s %v", reply, err)
	}
	_ = c.SetReadDeadline(time.Time{})
	return c, nil
}

// ipBindAddressNoPort is Linux's IP_BIND_ADDRESS_NO_PORT.
const ipBindAddressNoPort = 24

// noPortAtBind lets the kernel pick the source port at connect, where it
// only has to be unique for the destination, rather than at bind, where
// every port of the address in use (or in TIME_WAIT from an earlier run)
// is taken.
func noPortAtBind(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_IP, ipBindAddressNoPort, 1)
	})
	if err != nil {
		return err
	}
	return serr
}

// bareServer is the baseline: a gorilla/websocket server that reads each
// socket in one goroutine and answers every frame with one reply frame.
type bareServer struct{ up websocket.Upgrader }

var bareReply = []byte(`[null,null,"phoenix","phx_reply",{"status":"ok","response":{}}]`)

func (b *bareServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ws, err := b.up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	for {
		if _, _, err := ws.ReadMessage(); err != nil {
			return
		}
		if err := ws.WriteMessage(websocket.TextMessage, bareReply); err != nil {
			return
		}
	}
}

// printIdle writes the idle-sockets table.
func printIdle(w io.Writer, asJSON bool, limit uint64, rs ...idleReport) {
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range rs {
			_ = enc.Encode(r)
		}
		return
	}
	fmt.Fprintf(w, "idle sockets (open file limit %d)\n", limit)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "side\tsockets\theap+stacks/socket\tRSS/socket\tgoroutines/socket\theartbeats\tunanswered\tconnect s\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%.1f KB\t%.1f KB\t%.2f\t%d\t%d\t%.1f\t\n", r.Name, r.Sockets, r.HeapPerSocket/1024,
			r.RSSPerSocket/1024, r.GoroutinesPer, r.Heartbeats, r.HeartbeatsLost, r.ConnectSeconds)
	}
	_ = tw.Flush()
}
