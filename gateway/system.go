package gateway

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// monitor samples the gateway process for /system-monitoring-information: CPU load is
// measured between two requests (the first since the process started).
type monitor struct {
	mu          sync.Mutex
	started     time.Time
	lastWall    time.Time
	lastCPU     time.Duration // the process's user + system time at lastWall
	lastSysBusy uint64        // /proc/stat busy and total jiffies at lastWall
	lastSysAll  uint64
	peakThreads int
}

func newMonitor() *monitor {
	now := time.Now()
	return &monitor{started: now, lastWall: now}
}

// systemInfo answers /system-monitoring-information: one element, the gateway process, with
// SeaTunnel's keys where Go has the measure, values as strings as SeaTunnel renders them.
// The Hazelcast-only keys (executor queues, operations, proxies, client endpoints) have no
// counterpart and are left out.
func (g *gateway) systemInfo(w http.ResponseWriter, r *http.Request) error {
	return ok(w, []Ordered{g.mon.sample(r)})
}

func (m *monitor) sample(r *http.Request) Ordered {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	o := Ordered{{"isMaster", "false"}}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if host, port, err := net.SplitHostPort(a.String()); err == nil {
			o = append(o, KV{"host", host}, KV{"port", port})
		}
	}
	o = append(o, KV{"processors", strconv.Itoa(runtime.NumCPU())})
	mem := meminfo()
	if total, ok := mem["MemTotal"]; ok {
		o = append(o, KV{"physical.memory.total", unit(total)}, KV{"physical.memory.free", unit(mem["MemAvailable"])},
			KV{"swap.space.total", unit(mem["SwapTotal"])}, KV{"swap.space.free", unit(mem["SwapFree"])})
	}
	heapMax := debug.SetMemoryLimit(-1) // math.MaxInt64 without GOMEMLIMIT
	if total, ok := mem["MemTotal"]; ok && (heapMax <= 0 || uint64(heapMax) > total) {
		heapMax = int64(total)
	}
	used, total := ms.HeapAlloc, ms.HeapSys
	o = append(o, KV{"heap.memory.used", unit(used)}, KV{"heap.memory.free", unit(total - used)},
		KV{"heap.memory.total", unit(total)}, KV{"heap.memory.max", unit(uint64(max(heapMax, 0)))},
		KV{"heap.memory.used/total", percent(float64(used), float64(total))},
		KV{"heap.memory.used/max", percent(float64(used), float64(heapMax))},
		// Go's collector has no generations: every cycle counts as minor, forced ones as major
		KV{"minor.gc.count", strconv.FormatUint(uint64(ms.NumGC-ms.NumForcedGC), 10)},
		KV{"minor.gc.time", strconv.FormatUint(ms.PauseTotalNs/1e6, 10) + "ms"},
		KV{"major.gc.count", strconv.FormatUint(uint64(ms.NumForcedGC), 10)},
	)
	o = append(o, m.load()...)
	threads := osThreads()
	m.mu.Lock()
	m.peakThreads = max(m.peakThreads, threads)
	peak := m.peakThreads
	m.mu.Unlock()
	o = append(o, KV{"thread.count", strconv.Itoa(threads)}, KV{"thread.peakCount", strconv.Itoa(peak)},
		KV{"goroutine.count", strconv.Itoa(runtime.NumGoroutine())},
		KV{"uptime", time.Since(m.started).Round(time.Second).String()})
	return o
}

// load is the process's and the machine's CPU use since the last sample, and the load
// average, as SeaTunnel's load.process, load.system and load.systemAverage.
func (m *monitor) load() Ordered {
	now := time.Now()
	cpu := processCPU()
	busy, all := systemCPU()
	m.mu.Lock()
	wall := now.Sub(m.lastWall)
	dCPU := cpu - m.lastCPU
	dBusy, dAll := busy-m.lastSysBusy, all-m.lastSysAll
	m.lastWall, m.lastCPU, m.lastSysBusy, m.lastSysAll = now, cpu, busy, all
	m.mu.Unlock()
	var o Ordered
	if wall > 0 {
		o = append(o, KV{"load.process", percent(float64(dCPU), float64(wall)*float64(runtime.NumCPU()))})
	}
	if dAll > 0 {
		o = append(o, KV{"load.system", percent(float64(dBusy), float64(dAll))})
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			o = append(o, KV{"load.systemAverage", f[0]})
		}
	}
	return o
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// systemCPU reads the machine's busy and total jiffies from /proc/stat (0, 0 elsewhere).
func systemCPU() (busy, all uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0
	}
	for i, s := range f[1:] {
		n, _ := strconv.ParseUint(s, 10, 64)
		all += n
		if i != 3 && i != 4 { // idle and iowait
			busy += n
		}
	}
	return busy, all
}

// meminfo reads /proc/meminfo in bytes (empty elsewhere).
func meminfo() map[string]uint64 {
	out := map[string]uint64{}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) == 0 {
			continue
		}
		n, err := strconv.ParseUint(fs[0], 10, 64)
		if err != nil {
			continue
		}
		if len(fs) > 1 && fs[1] == "kB" {
			n <<= 10
		}
		out[k] = n
	}
	return out
}

// osThreads is the process's OS threads (/proc/self/status), or the goroutines elsewhere.
func osThreads() int {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Threads:"); ok {
				if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
					return n
				}
			}
		}
	}
	return runtime.NumGoroutine()
}

// unit renders bytes as SeaTunnel does: 16.0G, 135.7M, or the plain number below 1 KiB.
func unit(n uint64) string {
	const units = "KMGTPE"
	for i := 6; i > 0; i-- {
		step := float64(uint64(1) << (10 * i))
		if float64(n) > step {
			return fmt.Sprintf("%.1f%c", float64(n)/step, units[i-1])
		}
	}
	return strconv.FormatUint(n, 10)
}

func percent(part, whole float64) string {
	if whole <= 0 {
		return "0.00%"
	}
	return fmt.Sprintf("%.2f%%", 100*part/whole)
}

// Goroutine is one goroutine as SeaTunnel's thread dump shows a thread.
type Goroutine struct {
	ThreadName  string `json:"threadName"`
	ThreadID    int64  `json:"threadId"`
	ThreadState string `json:"threadState"`
	StackTrace  string `json:"stackTrace"`
	// GoState is Go's own word for what the goroutine does: "select, 2 minutes"
	GoState string `json:"goroutineState"`
}

// goroutines parses a runtime.Stack dump of every goroutine.
func goroutines() []Goroutine {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []Goroutine
	for _, block := range strings.Split(strings.TrimSpace(string(buf)), "\n\n") {
		if gr, ok := parseGoroutine(block); ok {
			out = append(out, gr)
		}
	}
	return out
}

// parseGoroutine reads one block of a dump: `goroutine 7 [select, 2 minutes]:` then
// function and file lines. Its name is the function it was started with; its state
// Java's name for what the goroutine does (RUNNABLE, WAITING, TIMED_WAITING, BLOCKED), the
// Go state after it.
func parseGoroutine(block string) (Goroutine, bool) {
	lines := strings.Split(block, "\n")
	head, ok := strings.CutPrefix(lines[0], "goroutine ")
	if !ok {
		return Goroutine{}, false
	}
	idText, rest, _ := strings.Cut(head, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return Goroutine{}, false
	}
	state := strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]:")
	var frames []string
	entry := ""
	for i := 1; i < len(lines); i++ {
		fn := strings.TrimSpace(lines[i])
		if strings.HasPrefix(fn, "created by ") {
			break
		}
		loc := ""
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			loc = strings.TrimSpace(lines[i+1])
			if j := strings.LastIndex(loc, " +0x"); j >= 0 {
				loc = loc[:j]
			}
			i++
		}
		entry = funcName(fn)
		frames = append(frames, fmt.Sprintf("%s(%s)", entry, loc))
	}
	name := fmt.Sprintf("goroutine %d", id)
	if entry != "" {
		name += " " + entry
	}
	return Goroutine{ThreadName: name, ThreadID: id, ThreadState: javaState(state),
		StackTrace: strings.Join(frames, "\n"), GoState: state}, true
}

// funcName drops a frame's arguments: `main.f(0x1, ...)` is main.f.
func funcName(frame string) string {
	if i := strings.LastIndex(frame, "("); i > 0 {
		return frame[:i]
	}
	return frame
}

// javaState maps a goroutine's wait reason to the Java thread state a SeaTunnel client
// knows.
func javaState(s string) string {
	reason, _, _ := strings.Cut(s, ",")
	switch reason {
	case "running", "runnable", "syscall":
		return "RUNNABLE"
	case "sleep":
		return "TIMED_WAITING"
	case "sync.Mutex.Lock", "sync.RWMutex.Lock", "sync.RWMutex.RLock", "semacquire":
		return "BLOCKED"
	}
	return "WAITING"
}

// threadDump answers /thread-dump: every goroutine of the gateway process.
func (g *gateway) threadDump(w http.ResponseWriter, _ *http.Request) error {
	return ok(w, goroutines())
}

// RunningThread is one goroutine as SeaTunnel's running-threads lists a thread; Go has no
// class loaders, so classLoader names the package of the goroutine's entry function.
type RunningThread struct {
	ThreadName  string `json:"threadName"`
	ClassLoader string `json:"classLoader"`
}

// runningThreads answers /running-threads: the goroutines by name.
func (g *gateway) runningThreads(w http.ResponseWriter, _ *http.Request) error {
	grs := goroutines()
	out := make([]RunningThread, 0, len(grs))
	for _, gr := range grs {
		out = append(out, RunningThread{ThreadName: gr.ThreadName, ClassLoader: packageOf(strings.TrimPrefix(gr.ThreadName, fmt.Sprintf("goroutine %d ", gr.ThreadID)))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ThreadName < out[j].ThreadName })
	return ok(w, out)
}

// packageOf is a function's package path: net/http.(*conn).serve is net/http.
func packageOf(fn string) string {
	slash := strings.LastIndex(fn, "/")
	if dot := strings.Index(fn[slash+1:], "."); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return fn
}
