package dispatch

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// resetH2 is an HTTP/2 upstream that reads each request whole (it may have
// run it, and charge for it) and then resets its stream with
// PROTOCOL_ERROR instead of answering: a misbehaving proxy or server. It
// speaks just enough HTTP/2 for that; runs counts the requests it read.
type resetH2 struct {
	*httptest.Server // its certificate and URL only: it never serves
	runs             atomic.Int64
}

func newResetH2(t *testing.T) *resetH2 {
	t.Helper()
	u := &resetH2{Server: httptest.NewUnstartedServer(nil)}
	u.EnableHTTP2 = true
	u.StartTLS() // for its certificate
	addr := u.Listener.Addr().String()
	u.Listener.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	cfg := &tls.Config{Certificates: u.TLS.Certificates, NextProtos: []string{"h2"}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go u.serve(tls.Server(c, cfg))
		}
	}()
	return u
}

func (u *resetH2) serve(c net.Conn) {
	defer c.Close()
	frame := func(typ, flags byte, stream uint32, payload []byte) {
		h := make([]byte, 9, 9+len(payload))
		h[0], h[1], h[2] = byte(len(payload)>>16), byte(len(payload)>>8), byte(len(payload))
		h[3], h[4] = typ, flags
		binary.BigEndian.PutUint32(h[5:], stream)
		c.Write(append(h, payload...))
	}
	preface := make([]byte, 24)
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	frame(4, 0, 0, nil) // SETTINGS
	h := make([]byte, 9)
	for {
		if _, err := io.ReadFull(c, h); err != nil {
			return
		}
		n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
		typ, flags, stream := h[3], h[4], binary.BigEndian.Uint32(h[5:])&0x7fffffff
		payload := make([]byte, n)
		if _, err := io.ReadFull(c, payload); err != nil {
			return
		}
		switch {
		case typ == 4 && flags&1 == 0: // SETTINGS: acknowledge
			frame(4, 1, 0, nil)
		case typ == 6 && flags&1 == 0: // PING: answer
			frame(6, 1, 0, payload)
		case (typ == 0 || typ == 1) && flags&1 != 0: // DATA or HEADERS ending the request
			u.runs.Add(1)
			frame(3, 0, stream, []byte{0, 0, 0, 1}) // RST_STREAM PROTOCOL_ERROR
		}
	}
}

// An HTTP/2 upstream that read the request whole and then reset it with
// PROTOCOL_ERROR may have run it: net/http's HTTP/2 transport sends such a
// request again on its own (up to six times, golang/go#47635) when the
// request can be rewound, and every send may be billed, inside one attempt
// that counts once against max_billable_attempts. A request written whole
// is sent again only by the walk, which counts it.
func TestH2ResetIsNotSentAgainByTheTransport(t *testing.T) {
	u := newResetH2(t)
	d := tlsDispatcher(t, u.URL)
	trust(d, u.Server)
	for _, r := range d.routes {
		r.cfg.MaxBillableAttempts = 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res := d.Do(ctx, &Call{Model: "m", ID: "id", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)})
	if res.Failure == nil {
		t.Fatalf("result %+v, want a failure", res)
	}
	a := res.Decision.Attempts
	if len(a) != 1 || !a[0].Billable {
		t.Errorf("attempts %+v, want one, billable (the request was written whole)", a)
	}
	if n := u.runs.Load(); n != 1 {
		t.Errorf("the upstream read the request %d times within one attempt, want 1 (each may be billed)", n)
	}
}
