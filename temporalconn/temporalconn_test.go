package temporalconn

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const configFile = `
[profile.default]
address = "file-default:7233"
namespace = "file-ns"

[profile.cloud]
address = "my-ns.a1b2c.tmprl.cloud:7233"
namespace = "my-ns.a1b2c"
api_key = "file-key"

[profile.mtls]
address = "mtls:7233"
[profile.mtls.tls]
server_name = "frontend.internal"
`

// clean keeps the test's environment free of the machine's Temporal settings.
func clean(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "TEMPORAL_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "temporal.toml")
	if err := os.WriteFile(file, []byte(configFile), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                string
		env                 map[string]string
		args                []string
		address, namespace  string
		tls, apiKey         bool
		serverName, wantErr string
	}{
		{name: "nothing given", address: "", namespace: "default"},
		{name: "flags only", args: []string{"--address", "a:1", "--namespace", "n"}, address: "a:1", namespace: "n"},
		{name: "environment", env: map[string]string{"TEMPORAL_ADDRESS": "env:7233", "TEMPORAL_NAMESPACE": "env-ns"},
			address: "env:7233", namespace: "env-ns"},
		{name: "a flag wins over the environment", env: map[string]string{"TEMPORAL_ADDRESS": "env:7233"},
			args: []string{"--address", "flag:7233"}, address: "flag:7233", namespace: "default"},
		{name: "the config file's default profile", env: map[string]string{"TEMPORAL_CONFIG_FILE": file},
			address: "file-default:7233", namespace: "file-ns"},
		{name: "the environment wins over the file", env: map[string]string{"TEMPORAL_CONFIG_FILE": file, "TEMPORAL_NAMESPACE": "env-ns"},
			address: "file-default:7233", namespace: "env-ns"},
		{name: "a profile by flag, with an API key that turns TLS on", args: []string{"--config-file", file, "--profile", "cloud"},
			address: "my-ns.a1b2c.tmprl.cloud:7233", namespace: "my-ns.a1b2c", tls: true, apiKey: true},
		{name: "a profile by environment", env: map[string]string{"TEMPORAL_CONFIG_FILE": file, "TEMPORAL_PROFILE": "mtls"},
			address: "mtls:7233", namespace: "default", tls: true, serverName: "frontend.internal"},
		{name: "--tls-server-name over the profile's", args: []string{"--config-file", file, "--profile", "mtls", "--tls-server-name", "other"},
			address: "mtls:7233", namespace: "default", tls: true, serverName: "other"},
		{name: "--tls=false over an API key", args: []string{"--api-key", "k", "--tls=false", "--address", "x:1"},
			address: "x:1", namespace: "default", apiKey: true},
		{name: "--tls alone", args: []string{"--tls", "--address", "x:1"}, address: "x:1", namespace: "default", tls: true},
		{name: "the older CLI's environment names", env: map[string]string{"TEMPORAL_CLI_ADDRESS": "old:7233", "TEMPORAL_TLS_SERVER_NAME": "sn"},
			address: "old:7233", namespace: "default", tls: true, serverName: "sn"},
		{name: "a profile that is not in the file", args: []string{"--config-file", file, "--profile", "nope"}, wantErr: "nope"},
		{name: "a bad grpc header", args: []string{"--grpc-meta", "novalue"}, wantErr: "--grpc-meta"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clean(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			f := Register(fs)
			if err := fs.Parse(c.args); err != nil {
				t.Fatal(err)
			}
			opts, err := f.Options()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one naming %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if opts.HostPort != c.address || opts.Namespace != c.namespace {
				t.Errorf("address %q namespace %q, want %q %q", opts.HostPort, opts.Namespace, c.address, c.namespace)
			}
			tlsOn := opts.ConnectionOptions.TLS != nil && !opts.ConnectionOptions.TLSDisabled
			if tlsOn != c.tls {
				t.Errorf("TLS %v, want %v", tlsOn, c.tls)
			}
			if (opts.Credentials != nil) != c.apiKey {
				t.Errorf("credentials %v, want an API key: %v", opts.Credentials, c.apiKey)
			}
			if c.serverName != "" && (opts.ConnectionOptions.TLS == nil || opts.ConnectionOptions.TLS.ServerName != c.serverName) {
				t.Errorf("TLS config %+v, want server name %q", opts.ConnectionOptions.TLS, c.serverName)
			}
		})
	}
}

func TestGRPCMeta(t *testing.T) {
	clean(t)
	t.Setenv("TEMPORAL_GRPC_META_TENANT", "from-env")
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := Register(fs)
	if err := fs.Parse([]string{"--grpc-meta", "Team-Name=ingest"}); err != nil {
		t.Fatal(err)
	}
	opts, err := f.Options()
	if err != nil {
		t.Fatal(err)
	}
	h, err := opts.HeadersProvider.GetHeaders(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h["tenant"] != "from-env" || h["team-name"] != "ingest" {
		t.Errorf("headers %v", h)
	}
}

func TestMissingCertificateFile(t *testing.T) {
	clean(t)
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	f := Register(fs)
	if err := fs.Parse([]string{"--address", "x:1", "--tls-ca-path", filepath.Join(t.TempDir(), "ca.pem")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Options(); err == nil || !strings.Contains(err.Error(), "ca.pem") {
		t.Fatalf("error %v, want one naming the CA file", err)
	}
}

func TestArgsGiveTheFlagsAgain(t *testing.T) {
	clean(t)
	fs := flag.NewFlagSet("a", flag.ContinueOnError)
	f := Register(fs)
	given := []string{"--address", "x:1", "--tls", "--grpc-meta", "a=1,2", "--grpc-meta", "b=3", "--tls-server-name", "sn"}
	if err := fs.Parse(given); err != nil {
		t.Fatal(err)
	}
	again := flag.NewFlagSet("b", flag.ContinueOnError)
	g := Register(again)
	if err := again.Parse(f.Args()); err != nil {
		t.Fatal(err)
	}
	a, err := f.Options()
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Options()
	if err != nil {
		t.Fatal(err)
	}
	ha, _ := a.HeadersProvider.GetHeaders(context.Background())
	hb, _ := b.HeadersProvider.GetHeaders(context.Background())
	if a.HostPort != b.HostPort || b.ConnectionOptions.TLS == nil || b.ConnectionOptions.TLS.ServerName != "sn" || hb["a"] != "1,2" || hb["b"] != "3" || len(ha) != len(hb) {
		t.Errorf("passed on as %v: %+v, headers %v", f.Args(), b, hb)
	}
}
