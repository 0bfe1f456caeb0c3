package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"

	"github.com/detour-llm/detour/internal/config"
)

// Request bodies are held in memory from the moment they are read until the
// request ends: every failover attempt sends the same body again. The front
// caps the bytes held across all requests at max_inflight_body_bytes (read
// from the configuration being served, so a reload applies at once). A
// body is counted as it arrives, in the buffer actually allocated for it,
// so a client that declares a large body and sends it slowly holds only
// what it has sent (at most twice that); the read deadline of the server
// (internal/app) ends such an upload. A request that would go past the cap
// — by its declared Content-Length, or as it is read — is answered 503
// with Retry-After at once: nothing waits for room.

// inflight counts request-body bytes held, and which request, if any,
// holds the one overdraft a translation may take past the allowance
// (translate.go). The zero value holds none.
type inflight struct {
	held atomic.Int64
	over atomic.Pointer[admitted]
}

// take reserves n bytes if that keeps the total within limit.
func (f *inflight) take(n, limit int64) bool {
	for {
		h := f.held.Load()
		if h+n > limit {
			return false
		}
		if f.held.CompareAndSwap(h, h+n) {
			return true
		}
	}
}

// give returns n bytes.
func (f *inflight) give(n int64) { f.held.Add(-n) }

// firstChunk is the buffer a body of unknown or large size starts with; it
// doubles each time the body fills it, so an upload holds at most twice
// what it sent, and firstChunk before it sent anything. A body declared
// smaller is read into one buffer of exactly its size. 512 bytes: at 64
// KiB, 1,100 connections that sent headers and no body byte held the whole
// allowance (64 MiB), and every other client got 503 until their read
// timeout, a minute, renewable (review 63p).
const firstChunk = 512

// retryAfter is the Retry-After, in seconds, of a 503 for a full allowance.
const retryAfter = "1"

// errBusy means the body allowance is full.
var errBusy = errors.New("busy")

// bodyFailure is why a body was not read: the status and message for the client.
type bodyFailure struct {
	status int
	msg    string
}

// readBody reads r's body within max_body_bytes and the allowance. held is
// what was reserved; the caller gives it back when the request ends (also
// on failure, when held is already returned and 0).
func (s *Server) readBody(r *http.Request, cfg *config.Config) (body []byte, held int64, fail *bodyFailure) {
	limit, declared := cfg.MaxBodyBytes, r.ContentLength
	// The refusals are worded only when one is made.
	tooLarge := func() *bodyFailure {
		return &bodyFailure{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes, the gateway's max_body_bytes", limit)}
	}
	busy := func() *bodyFailure {
		return &bodyFailure{http.StatusServiceUnavailable, fmt.Sprintf(
			"the gateway holds as many request bodies as it may at once (max_inflight_body_bytes, %d bytes); retry after %s s", cfg.MaxInflightBodyBytes, retryAfter)}
	}
	if declared > limit {
		return nil, 0, tooLarge()
	}
	if declared > 0 && s.bodies.held.Load()+declared > cfg.MaxInflightBodyBytes {
		return nil, 0, busy()
	}
	want := limit + 1 // unknown length: read to EOF, one byte past the limit to notice it
	if declared >= 0 {
		want = declared
	}
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) >= want {
				break
			}
			next := min(max(2*int64(cap(buf)), firstChunk), want)
			if !s.bodies.take(next-int64(cap(buf)), cfg.MaxInflightBodyBytes) {
				s.bodies.give(held)
				return nil, 0, busy()
			}
			held += next - int64(cap(buf))
			nb := make([]byte, len(buf), next)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			s.bodies.give(held)
			return nil, 0, tooLarge()
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			s.bodies.give(held)
			return nil, 0, readFailure(err)
		}
	}
	return buf, held, nil
}

// readFailure is the answer to a body whose read failed: 408 when it did
// not arrive within the server's read timeout, else 400. The wording is
// fixed: the error's own text names the socket's addresses.
func readFailure(err error) *bodyFailure {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &bodyFailure{http.StatusRequestTimeout, "the request body did not arrive in time"}
	}
	return &bodyFailure{http.StatusBadRequest, "could not read the request body: the connection failed while it was sent"}
}
