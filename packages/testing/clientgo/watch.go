package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"
)

// identity is an object's key, uid and resource version.
func identity(obj any) storeItem {
	key, _ := cache.MetaNamespaceKeyFunc(obj)
	item := storeItem{Key: key}
	if m, err := meta.Accessor(obj); err == nil {
		item.UID, item.RV = string(m.GetUID()), m.GetResourceVersion()
	}
	return item
}

// lineHandler writes a line for each call client-go makes to a handler.
func lineHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			id := identity(obj)
			out.emit(addLine{Event: "add", Key: id.Key, UID: id.UID, RV: id.RV, Initial: isInInitialList})
		},
		UpdateFunc: func(oldObj, newObj any) {
			old, id := identity(oldObj), identity(newObj)
			out.emit(updateLine{Event: "update", Key: id.Key, UID: id.UID, RV: id.RV, OldRV: old.RV, OldUID: old.UID})
		},
		DeleteFunc: func(obj any) {
			line := deleteLine{Event: "delete"}
			if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				// The informer missed the deletion (a relist no longer had it): the last state it knew.
				line.FinalStateUnknown = true
				id := identity(tombstone.Obj)
				line.Key, line.UID, line.RV = tombstone.Key, id.UID, id.RV
			} else {
				id := identity(obj)
				line.Key, line.UID, line.RV = id.Key, id.UID, id.RV
			}
			out.emit(line)
		},
	}
}

// watchErrorsAsLines makes the informer's watch error handler write a watchError line.
func watchErrorsAsLines(informer cache.SharedIndexInformer) error {
	return informer.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		out.emit(messageLine{Event: "watchError", Message: err.Error()})
	})
}

// storeContents is the informer's store as store items, sorted by key.
func storeContents(informer cache.SharedIndexInformer) storeLine {
	items := []storeItem{}
	for _, obj := range informer.GetStore().List() {
		items = append(items, identity(obj))
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	return storeLine{Event: "store", Items: items}
}

// runWatch writes the start line, a line per handler call, the synced line once the handler has
// had every initial add, and at the end (--duration, stdin EOF, SIGTERM or SIGINT) the store.
func runWatch(o options) error {
	p, err := newPeer(o)
	if err != nil {
		return err
	}
	if err := watchErrorsAsLines(p.informer); err != nil {
		return err
	}
	registration, err := p.informer.AddEventHandler(lineHandler())
	if err != nil {
		return err
	}
	out.emit(p.start)
	ctx, stop := context.WithCancel(context.Background())
	p.factory.Start(ctx.Done())
	go func() {
		select {
		case <-registration.HasSyncedChecker().Done():
			out.emit(eventLine{Event: "synced"})
		case <-ctx.Done():
		}
	}()
	<-stopSignal(o.duration)
	stop()
	p.factory.Shutdown() // every goroutine of the informer has returned: the store is final
	out.last(storeContents(p.informer))
	return nil
}

// stopSignal is closed after d when d > 0, else at stdin's EOF; and at SIGTERM or SIGINT.
func stopSignal(d time.Duration) <-chan struct{} {
	done := make(chan struct{})
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	reason := make(chan struct{}, 3)
	go func() { <-signals; reason <- struct{}{} }()
	if d > 0 {
		go func() { time.Sleep(d); reason <- struct{}{} }()
	} else {
		go func() { _, _ = io.Copy(io.Discard, os.Stdin); reason <- struct{}{} }()
	}
	go func() { <-reason; close(done) }()
	return done
}
