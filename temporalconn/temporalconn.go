// Package temporalconn finds Temporal the way Temporal's own CLI does, so a process of
// Strait reaches any Temporal the CLI reaches: a plain local server, one that needs TLS or
// mTLS, or Temporal Cloud with an API key.
//
// The settings come, each overriding the one before, from a profile of the client config
// file (TEMPORAL_CONFIG_FILE, default <user config dir>/temporalio/temporal.toml; the
// profile from --profile or TEMPORAL_PROFILE), from the TEMPORAL_* environment, and from the
// flags given on the command line. The SDK's envconfig reads the file and the environment;
// this package adds the flags and the older environment names the CLI still takes.
package temporalconn

import (
	"crypto/tls"
	"flag"
	"fmt"
	"os"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
)

// Flags are the connection flags of Temporal's CLI, registered on a command's flag set.
type Flags struct {
	fs *flag.FlagSet

	// str holds the string flags by name.
	str                     map[string]*string
	tls, noHostVerification *bool
	meta                    multi
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }

// Register adds the connection flags to fs.
func Register(fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs, str: map[string]*string{}}
	s := func(name, usage string) { f.str[name] = fs.String(name, "", usage) }
	s("address", "Temporal frontend host:port (TEMPORAL_ADDRESS)")
	s("namespace", "Temporal namespace (TEMPORAL_NAMESPACE; default \"default\")")
	s("api-key", "API key sent as a bearer token, e.g. for Temporal Cloud (TEMPORAL_API_KEY); turns TLS on")
	s("profile", "profile of the client config file (TEMPORAL_PROFILE; default \"default\")")
	s("config-file", "Temporal client config file (TEMPORAL_CONFIG_FILE; default <user config dir>/temporalio/temporal.toml)")
	f.tls = fs.Bool("tls", false, "connect with TLS (TEMPORAL_TLS); implied by any other --tls-* flag or an API key")
	s("tls-cert-path", "client certificate for mTLS (TEMPORAL_TLS_CLIENT_CERT_PATH)")
	s("tls-key-path", "client private key for mTLS (TEMPORAL_TLS_CLIENT_KEY_PATH)")
	s("tls-ca-path", "CA certificate the server's certificate must chain to (TEMPORAL_TLS_SERVER_CA_CERT_PATH)")
	s("tls-cert-data", "client certificate for mTLS, PEM text (TEMPORAL_TLS_CLIENT_CERT_DATA)")
	s("tls-key-data", "client private key for mTLS, PEM text (TEMPORAL_TLS_CLIENT_KEY_DATA)")
	s("tls-ca-data", "server CA certificate, PEM text (TEMPORAL_TLS_SERVER_CA_CERT_DATA)")
	s("tls-server-name", "server name the server's certificate must carry, when it differs from the address (TEMPORAL_TLS_SERVER_NAME)")
	f.noHostVerification = fs.Bool("tls-disable-host-verification", false, "accept any server certificate (testing only; TEMPORAL_TLS_DISABLE_HOST_VERIFICATION)")
	fs.Var(&f.meta, "grpc-meta", "gRPC header key=value sent with every call (repeatable; TEMPORAL_GRPC_META_<KEY>)")
	return f
}

// Args are the connection flags given on the command line, as arguments that give them
// again (to pass them on to another command).
func (f *Flags) Args() []string {
	var out []string
	f.fs.Visit(func(fl *flag.Flag) {
		switch _, str := f.str[fl.Name]; {
		case fl.Name == "grpc-meta":
			for _, kv := range f.meta {
				out = append(out, "--grpc-meta="+kv)
			}
		case str, fl.Name == "tls", fl.Name == "tls-disable-host-verification":
			out = append(out, "--"+fl.Name+"="+fl.Value.String())
		}
	})
	return out
}

// legacyEnv maps the environment names of earlier Temporal CLIs onto envconfig's, so a
// shell set up for either works.
var legacyEnv = map[string]string{
	"TEMPORAL_TLS_CERT":            "TEMPORAL_TLS_CLIENT_CERT_PATH",
	"TEMPORAL_TLS_KEY":             "TEMPORAL_TLS_CLIENT_KEY_PATH",
	"TEMPORAL_TLS_CA":              "TEMPORAL_TLS_SERVER_CA_CERT_PATH",
	"TEMPORAL_TLS_CERT_DATA":       "TEMPORAL_TLS_CLIENT_CERT_DATA",
	"TEMPORAL_TLS_KEY_DATA":        "TEMPORAL_TLS_CLIENT_KEY_DATA",
	"TEMPORAL_TLS_CA_DATA":         "TEMPORAL_TLS_SERVER_CA_CERT_DATA",
	"TEMPORAL_CLI_ADDRESS":         "TEMPORAL_ADDRESS",
	"TEMPORAL_CLI_NAMESPACE":       "TEMPORAL_NAMESPACE",
	"TEMPORAL_CLI_TLS_CERT":        "TEMPORAL_TLS_CLIENT_CERT_PATH",
	"TEMPORAL_CLI_TLS_KEY":         "TEMPORAL_TLS_CLIENT_KEY_PATH",
	"TEMPORAL_CLI_TLS_CA":          "TEMPORAL_TLS_SERVER_CA_CERT_PATH",
	"TEMPORAL_CLI_API_KEY":         "TEMPORAL_API_KEY",
	"TEMPORAL_CLI_TLS_SERVER_NAME": "TEMPORAL_TLS_SERVER_NAME",
}

// env is the process environment with the legacy names translated; a current name set
// wins over its legacy one, and a variable set empty counts as unset (as envconfig
// documents), so TEMPORAL_ADDRESS= leaves the config file's address in place.
type env struct{}

func (env) LookupEnv(key string) (string, bool) {
	if v := os.Getenv(key); v != "" {
		return v, true
	}
	for old, cur := range legacyEnv {
		if cur == key {
			if v := os.Getenv(old); v != "" {
				return v, true
			}
		}
	}
	return "", false
}

func (env) Environ() []string { return os.Environ() }

// Profile is the resolved connection: the config file's profile with the environment and
// the flags applied.
func (f *Flags) Profile() (*envconfig.ClientConfigProfile, error) {
	prof, err := envconfig.LoadClientConfigProfile(envconfig.LoadClientConfigProfileOptions{
		ConfigFilePath:    f.given("config-file", *f.str["config-file"], os.Getenv("TEMPORAL_CONFIG_FILE")),
		ConfigFileProfile: f.given("profile", *f.str["profile"], os.Getenv("TEMPORAL_PROFILE")),
		EnvLookup:         env{},
	})
	if err != nil {
		return nil, fmt.Errorf("temporal client config: %w", err)
	}
	if err := f.apply(&prof); err != nil {
		return nil, err
	}
	return &prof, nil
}

// given is the flag's value when it was given on the command line, else fallback.
func (f *Flags) given(name, value, fallback string) string {
	if f.set(name) {
		return value
	}
	return fallback
}

func (f *Flags) set(name string) bool {
	found := false
	f.fs.Visit(func(fl *flag.Flag) { found = found || fl.Name == name })
	return found
}

// apply lays the flags given on the command line over the profile.
func (f *Flags) apply(p *envconfig.ClientConfigProfile) error {
	str := map[string]*string{"address": &p.Address, "namespace": &p.Namespace, "api-key": &p.APIKey}
	for name, dst := range str {
		if f.set(name) {
			*dst = *f.str[name]
		}
	}
	t := func() *envconfig.ClientConfigTLS {
		if p.TLS == nil {
			p.TLS = &envconfig.ClientConfigTLS{}
		}
		return p.TLS
	}
	if f.set("tls") {
		t().Disabled = !*f.tls
	}
	paths := map[string]func(string){
		"tls-cert-path":   func(v string) { t().ClientCertPath = v },
		"tls-key-path":    func(v string) { t().ClientKeyPath = v },
		"tls-ca-path":     func(v string) { t().ServerCACertPath = v },
		"tls-cert-data":   func(v string) { t().ClientCertData = []byte(v) },
		"tls-key-data":    func(v string) { t().ClientKeyData = []byte(v) },
		"tls-ca-data":     func(v string) { t().ServerCACertData = []byte(v) },
		"tls-server-name": func(v string) { t().ServerName = v },
	}
	for name, set := range paths {
		if f.set(name) {
			set(*f.str[name])
		}
	}
	if f.set("tls-disable-host-verification") {
		t().DisableHostVerification = *f.noHostVerification
	}
	for _, kv := range f.meta {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return fmt.Errorf("--grpc-meta %q: expected key=value", kv)
		}
		if p.GRPCMeta == nil {
			p.GRPCMeta = map[string]string{}
		}
		p.GRPCMeta[envconfig.NormalizeGRPCMetaKey(k)] = v
	}
	return nil
}

// Options are the SDK client options of the resolved connection. The address is empty
// when nothing names one (a caller picks its default: `strait run` starts an embedded
// server, a service dials 127.0.0.1:7233); the namespace defaults to "default".
func (f *Flags) Options() (client.Options, error) {
	p, err := f.Profile()
	if err != nil {
		return client.Options{}, err
	}
	opts, err := p.ToClientOptions(envconfig.ToClientOptionsRequest{})
	if err != nil {
		return client.Options{}, fmt.Errorf("temporal connection: %w", err)
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.ConnectionOptions.TLS != nil && opts.ConnectionOptions.TLS.MinVersion == 0 {
		opts.ConnectionOptions.TLS.MinVersion = tls.VersionTLS12
	}
	return opts, nil
}
