//go:build tools

// Package tools records the commands this module builds, so `go mod tidy` keeps their
// dependencies: kube-apiserver comes straight from k8s.io/kubernetes.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
