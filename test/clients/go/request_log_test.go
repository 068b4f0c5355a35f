package clients

import (
	"net/http"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// requestRecord is what one HTTP request sent by a client looked like on the wire.
type requestRecord struct {
	Method      string
	URL         string
	ContentType string
	Accept      string
}

// requestLog collects every request a rest.Config's transport sends, so tests can assert on wire details (protobuf
// bodies, WatchList query parameters) that the client libraries otherwise hide.
type requestLog struct {
	mu      sync.Mutex
	records []requestRecord
}

func (l *requestLog) all() []requestRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]requestRecord(nil), l.records...)
}

type recordingTransport struct {
	log  *requestLog
	next http.RoundTripper
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rt.log.mu.Lock()
	rt.log.records = append(rt.log.records, requestRecord{
		Method:      req.Method,
		URL:         req.URL.String(),
		ContentType: req.Header.Get("Content-Type"),
		Accept:      req.Header.Get("Accept"),
	})
	rt.log.mu.Unlock()
	return rt.next.RoundTrip(req)
}

// recordingConfig is restConfig with a transport wrapper that logs every request.
func recordingConfig(t testing.TB) (*rest.Config, *requestLog) {
	t.Helper()
	cfg := restConfig(t)
	log := &requestLog{}
	cfg.Wrap(func(next http.RoundTripper) http.RoundTripper { return &recordingTransport{log: log, next: next} })
	return cfg, log
}
