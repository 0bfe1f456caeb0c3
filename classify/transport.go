package classify

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"syscall"
)

// Transport classifies a failure that produced no HTTP answer: an expired
// deadline or a network timeout is timeout ("transport:timeout"); a refused,
// reset or closed connection, a TLS or DNS failure and anything else is
// server_error with evidence naming the cause ("transport:connection
// refused", "transport:tls", …). A canceled context is unknown
// ("transport:canceled": the caller gave up, the upstream said nothing). A
// nil error is no failure.
func Transport(err error) Verdict {
	if err == nil {
		return Verdict{}
	}
	fail := func(c Class, ev string) Verdict { return Verdict{Failed: true, Class: c, Evidence: ev} }
	var dnsErr *net.DNSError
	isDNS := errors.As(err, &dnsErr)
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fail(Timeout, "transport:timeout")
	case errors.As(err, &ne) && ne.Timeout():
		return fail(Timeout, "transport:timeout")
	case errors.Is(err, context.Canceled):
		return fail(Unknown, "transport:canceled")
	case errors.Is(err, syscall.ECONNREFUSED):
		return fail(ServerError, "transport:connection refused")
	case errors.Is(err, syscall.ECONNRESET):
		return fail(ServerError, "transport:connection reset")
	case errors.Is(err, syscall.EPIPE):
		return fail(ServerError, "transport:broken pipe")
	case errors.Is(err, syscall.ECONNABORTED):
		return fail(ServerError, "transport:connection aborted")
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return fail(ServerError, "transport:unreachable")
	case isDNS:
		return fail(ServerError, "transport:dns")
	case isTLS(err):
		return fail(ServerError, "transport:tls")
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fail(ServerError, "transport:eof")
	case errors.Is(err, net.ErrClosed):
		return fail(ServerError, "transport:closed")
	}
	return fail(ServerError, "transport:error")
}

func isTLS(err error) bool {
	var (
		rh   tls.RecordHeaderError
		al   tls.AlertError
		cv   *tls.CertificateVerificationError
		ua   x509.UnknownAuthorityError
		hn   x509.HostnameError
		ci   x509.CertificateInvalidError
		echR *tls.ECHRejectionError
	)
	return errors.As(err, &rh) || errors.As(err, &al) || errors.As(err, &cv) ||
		errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) || errors.As(err, &echR)
}
