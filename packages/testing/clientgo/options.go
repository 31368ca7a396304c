package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

// options are the flags every mode takes.
type options struct {
	kubeconfig    string
	group         string
	version       string
	resource      string
	namespace     string
	labelSelector string
	fieldSelector string
	resync        time.Duration
	duration      time.Duration
	watchList     string // "on", "off" or "" (client-go's default, or KUBE_FEATURE_WatchListClient)
	protobuf      bool
	dynamic       bool
	logRequests   bool
	events        int           // bench watch: how many handler calls to count
	listAt        string        // the initial list at this resourceVersion (Exact), so the watch replays what came after
	timeout       time.Duration // bench: give up after
}

// parseOptions parses the flags after the mode's words; exits 2 on a usage error.
func parseOptions(name string, args []string) options {
	var o options
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig file (default $KUBECONFIG)")
	fs.StringVar(&o.group, "group", "", "API group of the resource (\"\" is core)")
	fs.StringVar(&o.version, "version", "v1", "API version of the resource")
	fs.StringVar(&o.resource, "resource", "configmaps", "resource (plural), e.g. pods, configmaps, or a custom resource's")
	fs.StringVar(&o.namespace, "namespace", "", "namespace to watch (default: all)")
	fs.StringVar(&o.labelSelector, "label-selector", "", "label selector of the list and watch")
	fs.StringVar(&o.fieldSelector, "field-selector", "", "field selector of the list and watch")
	fs.DurationVar(&o.resync, "resync", 0, "the informer's resync period (0: none)")
	fs.DurationVar(&o.duration, "duration", 0, "watch: stop after this long (0: at stdin EOF or SIGTERM)")
	fs.StringVar(&o.watchList, "watch-list", "", "on or off: sets KUBE_FEATURE_WatchListClient (default: as inherited)")
	fs.BoolVar(&o.protobuf, "protobuf", false, "ask for application/vnd.kubernetes.protobuf (typed informers only)")
	fs.BoolVar(&o.dynamic, "dynamic", false, "use the dynamic informer even for a built-in resource")
	fs.BoolVar(&o.logRequests, "log-requests", false, "write a request line for each HTTP request")
	fs.StringVar(&o.listAt, "list-at", "", "list at this resourceVersion (resourceVersionMatch=Exact) and watch from it; needs --watch-list off")
	fs.IntVar(&o.events, "events", 1000, "bench watch: handler calls to count after the sync")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "bench: give up after this long")
	_ = fs.Parse(args)
	if fs.NArg() > 0 {
		usage(fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if o.watchList != "" && o.watchList != "on" && o.watchList != "off" {
		usage("--watch-list takes on or off")
	}
	if o.listAt != "" && o.watchList != "off" {
		usage("--list-at lists, so it needs --watch-list off")
	}
	if o.events < 1 {
		usage("--events must be at least 1")
	}
	return o
}

const usageText = `usage: clientgo-peer watch [flags]
       clientgo-peer bench sync|heap|watch [flags]
run with -h after the mode for the flags`

// usage reports a usage error and exits 2.
func usage(message string) {
	fmt.Fprintf(os.Stderr, "clientgo-peer: %s\n%s\n", message, usageText)
	os.Exit(2)
}
