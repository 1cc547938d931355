package master

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TLSFiles names the certificate files of the embedded server.
type TLSFiles struct {
	CA, Cert, Key string
}

// GeneratedTLS returns the files EnsureTLS writes under pkiDir/tls.
func GeneratedTLS(pkiDir string) TLSFiles {
	d := filepath.Join(pkiDir, "tls")
	return TLSFiles{CA: filepath.Join(d, "ca.crt"), Cert: filepath.Join(d, "server.crt"), Key: filepath.Join(d, "server.key")}
}

// EnsureTLS creates, when missing, a CA and a server certificate signed by
// it under pkiDir/tls, valid for localhost, the loopback addresses, the
// host name and extra host names or addresses.
func EnsureTLS(pkiDir string, extra ...string) (TLSFiles, error) {
	f := GeneratedTLS(pkiDir)
	if _, err := os.Stat(f.Cert); err == nil {
		return f, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	if err := os.MkdirAll(filepath.Dir(f.CA), 0o700); err != nil {
		return f, err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "brine master CA", Organization: []string{"brine"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(10, 0, 0),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return f, err
	}
	host, _ := os.Hostname()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: "brine master", Organization: []string{"brine"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(5, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	for _, h := range append([]string{host}, extra...) {
		if h == "" || h == "0.0.0.0" || h == "::" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		return f, err
	}
	srvKeyDER, err := x509.MarshalECPrivateKey(srvKey)
	if err != nil {
		return f, err
	}
	caKeyDER, err := x509.MarshalECPrivateKey(caKey)
	if err != nil {
		return f, err
	}
	writes := []struct {
		path  string
		typ   string
		der   []byte
		mode  os.FileMode
		chain []byte
	}{
		{filepath.Join(filepath.Dir(f.CA), "ca.key"), "EC PRIVATE KEY", caKeyDER, 0o600, nil},
		{f.CA, "CERTIFICATE", caDER, 0o644, nil},
		{f.Key, "EC PRIVATE KEY", srvKeyDER, 0o600, nil},
		// The server presents its certificate followed by the CA, so a
		// minion can pin the CA on first use.
		{f.Cert, "CERTIFICATE", srvDER, 0o644, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})},
	}
	for _, w := range writes {
		data := append(pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der}), w.chain...)
		if err := os.WriteFile(w.path, data, w.mode); err != nil {
			return f, err
		}
	}
	return f, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

// ServerTLSConfig loads a certificate pair for the embedded server.
func ServerTLSConfig(f TLSFiles) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.Cert, f.Key)
	if err != nil {
		return nil, fmt.Errorf("loading TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
