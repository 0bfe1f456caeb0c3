package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Upstream kinds (-upstream). h2tls is how the hosted providers are reached
// (TLS, HTTP/2 negotiated by ALPN, many streams on one connection); h1 is
// plain HTTP/1.1, as a self-hosted server on plain http is reached (one
// connection per open stream).
const (
	upH1    = "h1"
	upH2TLS = "h2tls"
)

// selfSigned writes a fresh self-signed certificate for 127.0.0.1 and its
// key into dir and returns their paths. The certificate is its own CA, so
// a process started with SSL_CERT_FILE=cert trusts it (crypto/x509 reads
// that variable on Linux instead of the system's roots).
func selfSigned(dir string) (cert, key string, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "detour-overhead fake upstream"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		return "", "", err
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return "", "", err
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return "", "", err
	}
	return cert, key, nil
}

// clientTLS returns the TLS settings of this program's own client: trust
// the certificate in cert ("" for h1: none needed).
func clientTLS(cert string) *tls.Config {
	if cert == "" {
		return nil
	}
	pool := x509.NewCertPool()
	b, err := os.ReadFile(cert)
	if err != nil || !pool.AppendCertsFromPEM(b) {
		fmt.Fprintln(os.Stderr, "overhead: cannot read", cert, err)
		os.Exit(1)
	}
	return &tls.Config{RootCAs: pool}
}

// protoCounts asks the fake how many POSTs it served over each protocol.
func protoCounts(c *http.Client, base string) string {
	resp, err := c.Get(base + "/proto")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	defer resp.Body.Close()
	b := make([]byte, 256)
	n, _ := resp.Body.Read(b)
	return strings.TrimSpace(string(b[:n]))
}

// served is what the fake reports having served.
type served struct{ h2, h1, conns int64 }

// fakeServed asks the fake what it has served so far (over a connection
// of its own, which the fake counts).
func (r *runner) fakeServed() served {
	c := client(1, clientTLS(r.cert))
	defer c.CloseIdleConnections()
	var s served
	_, _ = fmt.Sscanf(protoCounts(c, r.fake), "%d over HTTP/2, %d over HTTP/1.x, on %d connections", &s.h2, &s.h1, &s.conns)
	return s
}

// since describes what the fake served between a and b.
func (a served) since(b served) string {
	return fmt.Sprintf("%d over HTTP/2, %d over HTTP/1.x, on %d new connections (one of them the count's own)",
		b.h2-a.h2, b.h1-a.h1, b.conns-a.conns)
}
