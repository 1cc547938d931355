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

	"brine/internal/fleet/keys"
	"brine/internal/value"
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

// CAFile is the CA certificate minions pin for the master of opts, and
// whose fingerprint is their master_finger: tls_ca when set, else the CA
// the master generates (pki_dir/tls/ca.crt). It is "" when the server's
// certificate is not under a CA brine knows (tls_cert without tls_ca, an
// external server without tls_ca) or TLS is off.
func CAFile(opts *value.Map) string {
	if ca := optString(opts, "tls_ca"); ca != "" {
		return ca
	}
	if optString(opts, "nats_url") != "" || optString(opts, "tls_cert") != "" {
		return ""
	}
	if v, ok := opts.Get("tls"); ok && !value.Truthy(v) {
		return ""
	}
	ca := GeneratedTLS(optString(opts, "pki_dir")).CA
	if _, err := os.Stat(ca); err != nil {
		return ""
	}
	return ca
}

// CAFinger is the master_finger of the CA certificate in path (its first
// certificate): the hash_type digest of the certificate's DER encoding,
// as salt-key prints fingerprints. `openssl x509 -in ca.crt -noout
// -fingerprint -sha256` prints the same digest (upper case), and so does
// `openssl x509 -in ca.crt -outform DER | sha256sum` (without colons).
func CAFinger(path, hashType string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return "", fmt.Errorf("%s: no certificate", path)
		}
		if b.Type == "CERTIFICATE" {
			return keys.Finger(b.Bytes, hashType)
		}
	}
}

// logFinger logs the master's fingerprint at start, for minions'
// master_finger.
func (m *Master) logFinger() {
	ca := m.tlsCA
	if m.ns == nil {
		ca = CAFile(m.Opts)
	}
	if ca == "" {
		m.Log.Info("no CA certificate to fingerprint: minions cannot use master_finger (set tls_ca)")
		return
	}
	fp, err := CAFinger(ca, optString(m.Opts, "hash_type"))
	if err != nil {
		m.Log.Warn("master fingerprint", "err", err)
		return
	}
	m.Log.Info("master fingerprint", "master_finger", fp, "ca", ca)
}
