package main

import (
	"fmt"
	"net/http"
	"os"
	"runtime/debug"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// factory is what the typed and the dynamic informer factories have in common here.
type factory interface {
	Start(stopCh <-chan struct{})
	Shutdown()
}

// peer is one informer of client-go's and its factory.
type peer struct {
	factory  factory
	informer cache.SharedIndexInformer
	start    startLine
}

// pinWatchList sets client-go's WatchListClient gate through its environment variable. It must
// run before the gate is first read (client-go reads every KUBE_FEATURE_ variable once, at the
// first Enabled call, which NewReflector makes).
func pinWatchList(setting string) {
	switch setting {
	case "on":
		_ = os.Setenv("KUBE_FEATURE_WatchListClient", "true")
	case "off":
		_ = os.Setenv("KUBE_FEATURE_WatchListClient", "false")
	}
}

// newPeer builds the informer the options name (not started): the typed factory's for a built-in
// resource, the dynamic factory's for any other or with --dynamic.
func newPeer(o options) (*peer, error) {
	config, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig %q: %w", o.kubeconfig, err)
	}
	config.QPS, config.Burst = -1, -1 // no client-side rate limit: the bench measures the informer, not the limiter
	if o.logRequests {
		config.Wrap(func(rt http.RoundTripper) http.RoundTripper { return requestLogger{rt} })
	}
	gvr := schema.GroupVersionResource{Group: o.group, Version: o.version, Resource: o.resource}
	tweak := func(lo *metav1.ListOptions) {
		lo.LabelSelector = o.labelSelector
		lo.FieldSelector = o.fieldSelector
		pinFirstList(lo, o.listAt)
	}
	p := &peer{start: startLine{Event: "start", Resource: strings.TrimPrefix(o.group+"/"+o.version+"/"+o.resource, "/")}}
	if !o.dynamic {
		// Set either way: left empty, v0.36's generated clients ask for protobuf for built-in types.
		config.ContentType, config.AcceptContentTypes = runtime.ContentTypeJSON, runtime.ContentTypeJSON
		if o.protobuf {
			config.ContentType = runtime.ContentTypeProtobuf
			config.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
		}
		client, err := kubernetes.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		f := informers.NewSharedInformerFactoryWithOptions(client, o.resync,
			informers.WithNamespace(o.namespace), informers.WithTweakListOptions(tweak))
		if generic, err := f.ForResource(gvr); err == nil {
			p.factory, p.informer, p.start.Informer = f, generic.Informer(), "typed"
		}
	}
	if p.informer == nil {
		if o.protobuf {
			return nil, fmt.Errorf("--protobuf: the dynamic informer (of %s) speaks JSON only", p.start.Resource)
		}
		client, err := dynamic.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, o.resync, o.namespace, tweak)
		p.factory, p.informer, p.start.Informer = f, f.ForResource(gvr).Informer(), "dynamic"
	}
	p.start.ContentType = contentTypeOf(config, p.start.Informer)
	p.start.WatchList = clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient)
	p.start.ClientGo = moduleVersion("k8s.io/client-go")
	return p, nil
}

// pinFirstList makes the reflector's first list (resourceVersion "0", no continue token; its
// watches ask for bookmarks, its lists do not) list at `rv` exactly, so the watch that follows
// starts from `rv` and replays what came after it. Later pages follow their token; a relist after
// a failure keeps the reflector's own resourceVersion.
func pinFirstList(lo *metav1.ListOptions, rv string) {
	if rv != "" && lo.ResourceVersion == "0" && lo.Continue == "" && !lo.AllowWatchBookmarks {
		lo.ResourceVersion, lo.ResourceVersionMatch = rv, metav1.ResourceVersionMatchExact
	}
}

// contentTypeOf is the content type the informer asks for (the dynamic client always asks for JSON).
func contentTypeOf(config *rest.Config, kind string) string {
	if kind == "dynamic" {
		return runtime.ContentTypeJSON
	}
	return config.ContentType
}

// moduleVersion is the version of a module this binary was built with, from its build info.
func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				if dep.Replace != nil {
					return dep.Replace.Version
				}
				return dep.Version
			}
		}
	}
	return "unknown"
}

// requestLogger writes a request line for each HTTP request, once its response headers are in.
type requestLogger struct{ next http.RoundTripper }

func (l requestLogger) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(req)
	line := requestLine{Event: "request", Method: req.Method, URL: req.URL.RequestURI()}
	if resp != nil {
		line.Status, line.ContentType = resp.StatusCode, resp.Header.Get("Content-Type")
	}
	out.emit(line)
	return resp, err
}
