// clientgo-peer runs one of client-go's shared informers against an API server and writes what
// its handlers see as JSON lines, so that rxinformer's tests and benchmarks can hold rxinformer to
// client-go on the same server. See README.md.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage("no mode")
	}
	var err error
	switch mode := os.Args[1]; mode {
	case "watch":
		o := parseOptions("watch", os.Args[2:])
		pinWatchList(o.watchList)
		err = runWatch(o)
	case "bench":
		if len(os.Args) < 3 {
			usage("bench needs sync, heap or watch")
		}
		o := parseOptions("bench "+os.Args[2], os.Args[3:])
		pinWatchList(o.watchList)
		err = runBench(os.Args[2], o)
	default:
		usage(fmt.Sprintf("unknown mode %q", mode))
	}
	if err != nil {
		out.last(messageLine{Event: "fatal", Message: err.Error()})
		fmt.Fprintf(os.Stderr, "clientgo-peer: %v\n", err)
		os.Exit(1)
	}
}
