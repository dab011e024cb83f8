// Command etcd is etcd's own server entry point, built from the go.etcd.io/etcd/server/v3 module
// at the version k8s.io/kubernetes pins, so the e2e control plane needs no etcd download.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
