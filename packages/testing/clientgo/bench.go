package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/cache"
)

type resultLine struct {
	Event       string  `json:"event"` // "result"
	Mode        string  `json:"mode"`  // "sync", "heap", "watch"
	Objects     int     `json:"objects"`
	SyncMs      float64 `json:"syncMs"`      // start to the handler's sync (every initial add delivered)
	StoreSyncMs float64 `json:"storeSyncMs"` // start to the informer's sync (the store filled)
	// heap
	BaselineBytes  uint64  `json:"baselineBytes,omitempty"`  // HeapAlloc after GC before the informer started
	HeapBytes      uint64  `json:"heapBytes,omitempty"`      // HeapAlloc after GC once synced
	BytesPerObject float64 `json:"bytesPerObject,omitempty"` // (heapBytes - baselineBytes) / objects
	// watch
	Events      int64   `json:"events,omitempty"`      // handler calls but the initial adds
	Ms          float64 `json:"ms,omitempty"`          // the first of them to the last
	SinceSyncMs float64 `json:"sinceSyncMs,omitempty"` // the sync to the last
	PerSecond   float64 `json:"perSecond,omitempty"`   // (events - 1) / ms
	TimedOut    bool    `json:"timedOut,omitempty"`    // --timeout came first
}

// counter counts the handler calls that are not the initial list's adds (so none is missed while
// the sync is being noticed) and notes when the first and the wanted one came.
type counter struct {
	n           atomic.Int64
	want        int64
	first, last atomic.Int64 // unix nanoseconds
	reached     chan struct{}
}

func (c *counter) call() {
	now := time.Now().UnixNano()
	switch n := c.n.Add(1); {
	case n == 1:
		c.first.Store(now)
		fallthrough
	case n == c.want:
		if n == c.want {
			c.last.Store(now)
			close(c.reached)
		}
	}
}

func (c *counter) handler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(_ any, initial bool) {
			if !initial {
				c.call()
			}
		},
		UpdateFunc: func(any, any) { c.call() },
		DeleteFunc: func(any) { c.call() },
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// heapAfterGC is the live heap: HeapAlloc after two collections (the second frees what finalizers
// of the first kept).
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var stats runtime.MemStats
	runtime.ReadMemStats(&stats)
	return stats.HeapAlloc
}

// runBench starts the informer, waits for its sync and measures what `mode` names: the sync
// itself, the heap it holds per object, or the time to handle --events events after the sync.
func runBench(mode string, o options) error {
	if mode != "sync" && mode != "heap" && mode != "watch" {
		usage(fmt.Sprintf("unknown bench %q", mode))
	}
	p, err := newPeer(o)
	if err != nil {
		return err
	}
	if err := watchErrorsAsLines(p.informer); err != nil {
		return err
	}
	c := &counter{want: int64(o.events), reached: make(chan struct{})}
	registration, err := p.informer.AddEventHandler(c.handler())
	if err != nil {
		return err
	}
	out.emit(p.start)
	ctx, stop := context.WithTimeout(context.Background(), o.timeout)
	defer stop()
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); stop() }() // the driver has gone: stop
	result := resultLine{Event: "result", Mode: mode}
	if mode == "heap" {
		result.BaselineBytes = heapAfterGC()
	}
	started := time.Now()
	p.factory.Start(ctx.Done())
	storeSynced := make(chan time.Time, 1)
	go func() {
		<-p.informer.HasSyncedChecker().Done()
		storeSynced <- time.Now()
	}()
	if !cache.WaitFor(ctx, "the handler's sync", registration.HasSyncedChecker()) {
		return fmt.Errorf("not synced within --timeout %s, or stdin ended", o.timeout)
	}
	synced := time.Now()
	result.SyncMs = ms(synced.Sub(started))
	result.StoreSyncMs = ms((<-storeSynced).Sub(started)) // the store syncs before the handler can
	result.Objects = len(p.informer.GetStore().ListKeys())
	out.emit(eventLine{Event: "synced"})
	switch mode {
	case "heap":
		result.HeapBytes = heapAfterGC()
		if result.Objects > 0 {
			result.BytesPerObject = (float64(result.HeapBytes) - float64(result.BaselineBytes)) / float64(result.Objects)
		}
		runtime.KeepAlive(p)
	case "watch":
		select {
		case <-c.reached:
		case <-ctx.Done():
			result.TimedOut = true
		}
		result.Events = c.n.Load()
		if !result.TimedOut {
			first, last := time.Unix(0, c.first.Load()), time.Unix(0, c.last.Load())
			result.Ms, result.SinceSyncMs = ms(last.Sub(first)), ms(last.Sub(synced))
			if result.Ms > 0 {
				result.PerSecond = float64(result.Events-1) / result.Ms * 1000
			}
		}
	}
	stop()
	p.factory.Shutdown()
	out.last(result)
	return nil
}
