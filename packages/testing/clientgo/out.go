package main

import (
	"bytes"
	"encoding/json"
	"os"
	"sync"
)

// lineWriter writes one JSON object a line to stdout. Each line is a single write to the
// unbuffered os.Stdout, so a reader sees it as soon as it is written; the mutex keeps lines
// from the handler, the watch error handler and the main goroutine from interleaving.
type lineWriter struct {
	mu     sync.Mutex
	closed bool
}

var out lineWriter

// emit writes v as one JSON line (& < > as they are, not escaped for HTML); nothing after close.
func (w *lineWriter) emit(v any) {
	var line bytes.Buffer
	encoder := json.NewEncoder(&line)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(v); err != nil { // Encode ends the line with \n
		line.Reset()
		_ = encoder.Encode(messageLine{Event: "fatal", Message: err.Error()})
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	_, _ = os.Stdout.Write(line.Bytes())
}

// last writes v as the final line: whatever a handler still has in flight is dropped.
func (w *lineWriter) last(v any) {
	w.emit(v)
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}

// The lines, one struct each so that the field order on the wire is fixed.

type startLine struct {
	Event       string `json:"event"` // "start"
	WatchList   bool   `json:"watchList"`
	ClientGo    string `json:"clientGo"`
	ContentType string `json:"contentType"`
	Informer    string `json:"informer"` // "typed" or "dynamic"
	Resource    string `json:"resource"` // group/version/resource
}

type addLine struct {
	Event   string `json:"event"` // "add"
	Key     string `json:"key"`
	UID     string `json:"uid"`
	RV      string `json:"rv"`
	Initial bool   `json:"initial"`
}

type updateLine struct {
	Event  string `json:"event"` // "update"
	Key    string `json:"key"`
	UID    string `json:"uid"`
	RV     string `json:"rv"`
	OldRV  string `json:"oldRv"`
	OldUID string `json:"oldUid"`
}

type deleteLine struct {
	Event             string `json:"event"` // "delete"
	Key               string `json:"key"`
	UID               string `json:"uid"`
	RV                string `json:"rv"`
	FinalStateUnknown bool   `json:"finalStateUnknown"`
}

type storeItem struct {
	Key string `json:"key"`
	UID string `json:"uid"`
	RV  string `json:"rv"`
}

type storeLine struct {
	Event string      `json:"event"` // "store"
	Items []storeItem `json:"items"`
}

type messageLine struct {
	Event   string `json:"event"` // "watchError", "fatal"
	Message string `json:"message"`
}

type requestLine struct {
	Event       string `json:"event"` // "request"
	Method      string `json:"method"`
	URL         string `json:"url"` // path and query
	Status      int    `json:"status"`
	ContentType string `json:"contentType"` // the response's
}

type eventLine struct {
	Event string `json:"event"` // "synced"
}
