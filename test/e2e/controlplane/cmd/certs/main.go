// Command certs writes the throwaway PKI of one e2e control plane into a directory, the way
// envtest prepares its apiserver: a CA, a serving certificate for 127.0.0.1, a client certificate
// in group system:masters for the admin kubeconfig, and the service-account signing key pair.
// It also writes a second, separate CA with a serving certificate for 127.0.0.1 that the tests
// hand to the admission webhooks (the "user-supplied CA" a caBundle names).
//
// Usage: certs -dir DIR
//
// Files (PEM): ca.crt ca.key apiserver.crt apiserver.key admin.crt admin.key sa.key sa.pub
// webhook-ca.crt webhook.crt webhook.key. Keys are ECDSA P-256 (fast to generate) except the
// service-account key, which is RSA 2048 because that is what kube-apiserver's token signer
// expects by default.
package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

func main() {
	dir := flag.String("dir", "", "output directory (created if missing)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "certs: -dir is required")
		os.Exit(2)
	}
	if err := run(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "certs:", err)
		os.Exit(1)
	}
}

type keyPair struct {
	cert *x509.Certificate
	key  crypto.Signer
}

func run(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	ca, err := newCA("metahooks-e2e-ca")
	if err != nil {
		return err
	}
	loopback := []net.IP{net.ParseIP("127.0.0.1")}
	// 10.0.0.1 is the first address of --service-cluster-ip-range=10.0.0.0/24: the apiserver
	// checks that its serving certificate covers the kubernetes Service's ClusterIP.
	serving, err := newLeaf(ca, pkix.Name{CommonName: "kube-apiserver"},
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		append(loopback, net.ParseIP("10.0.0.1")), x509.ExtKeyUsageServerAuth)
	if err != nil {
		return err
	}
	admin, err := newLeaf(ca, pkix.Name{CommonName: "metahooks-e2e-admin", Organization: []string{"system:masters"}},
		nil, nil, x509.ExtKeyUsageClientAuth)
	if err != nil {
		return err
	}
	webhookCA, err := newCA("metahooks-e2e-webhook-ca")
	if err != nil {
		return err
	}
	webhook, err := newLeaf(webhookCA, pkix.Name{CommonName: "metahooks-admission"},
		[]string{"localhost"}, loopback, x509.ExtKeyUsageServerAuth)
	if err != nil {
		return err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}

	writes := []struct {
		name  string
		block string
		der   []byte
	}{
		{"ca.crt", "CERTIFICATE", ca.cert.Raw},
		{"apiserver.crt", "CERTIFICATE", serving.cert.Raw},
		{"admin.crt", "CERTIFICATE", admin.cert.Raw},
		{"webhook-ca.crt", "CERTIFICATE", webhookCA.cert.Raw},
		{"webhook.crt", "CERTIFICATE", webhook.cert.Raw},
		{"sa.key", "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(saKey)},
		{"sa.pub", "PUBLIC KEY", saPub},
	}
	for _, w := range writes {
		if err := writePEM(filepath.Join(dir, w.name), w.block, w.der); err != nil {
			return err
		}
	}
	for name, kp := range map[string]keyPair{"ca.key": ca, "apiserver.key": serving, "admin.key": admin, "webhook.key": webhook} {
		der, err := x509.MarshalPKCS8PrivateKey(kp.key)
		if err != nil {
			return err
		}
		if err := writePEM(filepath.Join(dir, name), "PRIVATE KEY", der); err != nil {
			return err
		}
	}
	return nil
}

func newCA(name string) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return keyPair{}, err
	}
	cert, err := x509.ParseCertificate(der)
	return keyPair{cert, key}, err
}

func newLeaf(ca keyPair, subject pkix.Name, dns []string, ips []net.IP, usage x509.ExtKeyUsage) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      subject,
		DNSNames:     dns,
		IPAddresses:  ips,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return keyPair{}, err
	}
	cert, err := x509.ParseCertificate(der)
	return keyPair{cert, key}, err
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		panic(err)
	}
	return n
}

func writePEM(path, block string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: block, Bytes: der}), 0o600)
}
