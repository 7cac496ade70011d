// Command strait is Strait's one binary: run a job locally, plan one, or serve as a worker
// or runner of a cluster. It only wires packages together.
package main

import (
	"fmt"
	"os"
)

const usage = `strait: a data-integration engine for SeaTunnel job configs, on Temporal

Usage:
  strait run [-c] <job.conf|job.json> [-i key=value]... [-n name] [-m local|cluster] [--check] [--async]
             [-r ID] [--job-id ID] [--engine-config strait.yaml] [--slots N]
  strait run -j ID | -l | -s ID | -can ID | --metrics ID   (SeaTunnel's client: status, list, savepoint, cancel)
  strait plan [-i key=value]... [--dot] <job.conf|job.json>
  strait dev [--port 7233] [--db FILE] [--runners N] [--slots S] [--only-temporal] [--gateway 127.0.0.1:8080]
  strait gateway [--listen 127.0.0.1:8080] [--address host:port]   (SeaTunnel's REST API v2)
  strait worker [--address host:port]
  strait runner [--id NAME] [--slots N] [--tag key=value]... [--address host:port]
  strait job submit [-i key=value]... [--job-id ID] <job.conf>
  strait job status <id> [--json] | job list [--state S] | job wait <id> | job cancel <id>
  strait job savepoint <id> | job restore <id> <job.conf>      (also: strait run --restore <id>)
  strait schedule create <name> (--cron "0 2 * * *" | --every 15m) [-i key=value]... <job.conf>
  strait schedule list [--json] | schedule trigger <name> | schedule delete <name>
  strait cluster status [--json]
  strait plugins [--json] [<plugin>]      (the plugins, or one plugin's options)
  strait admin setup [--namespace ns] [--retention 7d] | health [--url URL] [--temporal host:port]
  strait version

Temporal is found as Temporal's own CLI finds it: --address, --namespace, --tls, --tls-cert-path,
--tls-key-path, --tls-ca-path, --tls-server-name, --api-key, --profile and --config-file, or their
TEMPORAL_* environment variables, or a profile of the client config file (TEMPORAL_CONFIG_FILE).
Without an address, strait run starts an embedded server (local mode). Every command's --help lists
its flags; -o json prints JSON where a command prints a listing or a status.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	args := os.Args[2:]
	var code int
	switch os.Args[1] {
	case "run":
		code = runCmd(args)
	case "plan":
		code = planCmd(args)
	case "dev":
		code = devCmd(args)
	case "worker":
		code = workerCmd(args)
	case "runner":
		code = runnerCmd(args)
	case "gateway":
		code = gatewayCmd(args)
	case "job":
		code = jobCmd(args)
	case "schedule":
		code = scheduleCmd(args)
	case "cluster":
		code = clusterCmd(args)
	case "plugins":
		code = pluginsCmd(args)
	case "admin":
		code = adminCmd(args)
	case "health":
		code = healthCmd(args)
	case "version":
		fmt.Println("strait", version)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "strait: unknown command %q\n\n%s", os.Args[1], usage)
		code = 2
	}
	if helpShown {
		code = 0
	}
	os.Exit(code)
}

var version = "dev"
