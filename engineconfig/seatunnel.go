package engineconfig

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strait-dev/strait/checkpointstore"
)

// SeaTunnel's checkpoint storage defaults: the hdfs plugin's namespace and the deprecated
// localfile plugin's folder.
const (
	seatunnelNamespace      = "/seatunnel/checkpoint/"
	seatunnelLocalNamespace = "/tmp/seatunnel/checkpoint/"
)

// seatunnelEngineIgnored are the keys of seatunnel.engine that SeaTunnel's engine reads and
// Strait has no use for: Temporal keeps the job state and history, runners have their own
// flags for slots, metrics and HTTP.
var seatunnelEngineIgnored = []string{
	"backup-count", "queue-type", "print-execution-info-interval", "print-job-metrics-info-interval",
	"job-metrics-backup-interval", "task_execution_thread_share_mode", "slot-service",
	"history-job-expire-minutes", "jar-storage", "classloader-cache-mode", "event-report-http",
	"telemetry", "job-schedule-strategy", "http",
}

// seatunnel reads SeaTunnel's shape: seatunnel.engine.checkpoint.
func (w *walker) seatunnel(root *yaml.Node, cfg *Config) error {
	return w.mapping("", root, map[string]field{
		"seatunnel": func(key string, n *yaml.Node) error {
			return w.mapping(key, n, map[string]field{"engine": w.seatunnelEngine(cfg)}, nil)
		},
	}, nil)
}

func (w *walker) seatunnelEngine(cfg *Config) field {
	return func(key string, n *yaml.Node) error {
		fields := map[string]field{"checkpoint": w.seatunnelCheckpoint(&cfg.Checkpoint)}
		for _, k := range seatunnelEngineIgnored {
			fields[k] = func(key string, v *yaml.Node) error {
				w.ignore(v, key, "a SeaTunnel engine setting Strait does not use")
				return nil
			}
		}
		return w.mapping(key, n, fields, nil)
	}
}

func (w *walker) seatunnelCheckpoint(c *Checkpoint) field {
	return func(key string, n *yaml.Node) error {
		return w.mapping(key, n, map[string]field{
			"interval": w.positive(&c.Interval, 1, " (ms)"),
			"timeout":  w.positive(&c.Timeout, 1, " (ms)"),
			"schema-change-timeout": func(key string, v *yaml.Node) error {
				w.ignore(v, key, "Strait has no schema-change checkpoints")
				return nil
			},
			"storage": w.seatunnelStorage(c),
		}, nil)
	}
}

// plugin is SeaTunnel's plugin-config: flat keys with dots in them.
type plugin struct {
	node   *yaml.Node
	key    string // its path, for messages
	values map[string]string
	order  []string // the keys as written
}

func (p *plugin) has(k string) bool { _, ok := p.values[k]; return ok }

func (w *walker) seatunnelStorage(c *Checkpoint) field {
	return func(key string, n *yaml.Node) error {
		typ := "localfile" // SeaTunnel's default plugin
		p := &plugin{node: n, key: join(key, "plugin-config"), values: map[string]string{}}
		err := w.mapping(key, n, map[string]field{
			"type":         w.str(&typ),
			"max-retained": w.count(&c.MaxRetained, 1),
			"plugin-config": func(k string, v *yaml.Node) error {
				p.node = v
				return w.mapping(k, v, nil, func(k string, v *yaml.Node) error {
					s, err := w.scalar(k, v)
					name := strings.TrimPrefix(k, p.key+".")
					p.values[name] = s
					p.order = append(p.order, name)
					return err
				})
			},
		}, nil)
		if err != nil {
			return err
		}
		switch typ {
		case "hdfs":
			return w.seatunnelHdfs(p, &c.Storage)
		case "localfile":
			return w.seatunnelLocal(p, &c.Storage)
		}
		return w.errf(w.valueAt(n, "type"), join(key, "type"), "%q is not supported (hdfs, localfile)", typ)
	}
}

// seatunnelLocal is SeaTunnel's deprecated localfile plugin: its namespace is the folder.
func (w *walker) seatunnelLocal(p *plugin, st *Storage) error {
	if err := w.onlyKeys(p, "namespace"); err != nil {
		return err
	}
	st.Type, st.Root = StorageLocalFile, filepath.Clean(w.namespace(p, seatunnelLocalNamespace))
	return nil
}

// seatunnelHdfs is SeaTunnel's hdfs plugin, on the file system its storage.type names:
// local (or hdfs with a file:/// fs.defaultFS) and s3 are served.
func (w *walker) seatunnelHdfs(p *plugin, st *Storage) error {
	fsType := "local"
	if p.has("storage.type") {
		fsType = strings.ToLower(p.values["storage.type"])
	}
	switch fsType {
	case "local", "hdfs":
		return w.seatunnelFileSystem(p, st)
	case "s3":
		return w.seatunnelS3(p, st)
	}
	return w.errf(w.valueAt(p.node, "storage.type"), join(p.key, "storage.type"),
		"%q is not supported (local, hdfs with a local fs.defaultFS, s3)", p.values["storage.type"])
}

// seatunnelFileSystem takes a local fs.defaultFS: file:/// (or none) with the namespace as
// the folder.
func (w *walker) seatunnelFileSystem(p *plugin, st *Storage) error {
	if err := w.onlyKeys(p, "namespace", "storage.type", "fs.defaultFS", "disable.cache"); err != nil {
		return err
	}
	base := "/"
	if p.has("fs.defaultFS") {
		u, err := url.Parse(p.values["fs.defaultFS"])
		if err != nil || (u.Scheme != "file" && u.Scheme != "") {
			return w.errf(w.valueAt(p.node, "fs.defaultFS"), join(p.key, "fs.defaultFS"),
				"%q: only a local file system (file:///) is served; use storage.type s3 for storage across hosts", p.values["fs.defaultFS"])
		}
		if u.Path != "" {
			base = u.Path
		}
	}
	ns := w.namespace(p, seatunnelNamespace)
	if !filepath.IsAbs(ns) {
		ns = filepath.Join(base, ns)
	}
	st.Type, st.Root = StorageLocalFile, filepath.Clean(ns)
	w.ignoreKey(p, "disable.cache", "Strait keeps no file system cache")
	return nil
}

// seatunnelS3 maps Hadoop's S3A settings onto the S3 store.
func (w *walker) seatunnelS3(p *plugin, st *Storage) error {
	used := []string{"namespace", "storage.type", "s3.bucket", "fs.s3a.endpoint", "fs.s3a.endpoint.region",
		"fs.s3a.access.key", "fs.s3a.secret.key", "fs.s3a.session.token", "fs.s3a.aws.credentials.provider",
		"fs.s3a.path.style.access", "fs.s3a.connection.ssl.enabled", "disable.cache"}
	if err := w.onlyKeys(p, used...); err != nil {
		return err
	}
	s3 := &st.S3
	if !p.has("s3.bucket") {
		return w.errf(p.node, join(p.key, "s3.bucket"), "required with storage.type s3")
	}
	bucket, err := s3Bucket(p.values["s3.bucket"])
	if err != nil {
		return w.errf(w.valueAt(p.node, "s3.bucket"), join(p.key, "s3.bucket"), "%v", err)
	}
	s3.Bucket = bucket
	s3.Prefix = strings.Trim(w.namespace(p, seatunnelNamespace), "/")
	s3.Region = p.values["fs.s3a.endpoint.region"]
	if err := w.s3Endpoint(p, s3); err != nil {
		return err
	}
	cr := &s3.Credentials
	cr.AccessKey, cr.SecretKey, cr.SessionToken = p.values["fs.s3a.access.key"], p.values["fs.s3a.secret.key"], p.values["fs.s3a.session.token"]
	if p.has("fs.s3a.aws.credentials.provider") {
		for _, class := range strings.Split(p.values["fs.s3a.aws.credentials.provider"], ",") {
			class = strings.TrimSpace(class)
			if class == "" {
				continue
			}
			prov, ok := checkpointstore.HadoopProvider(class)
			if !ok {
				return w.errf(w.valueAt(p.node, "fs.s3a.aws.credentials.provider"), join(p.key, "fs.s3a.aws.credentials.provider"),
					"%q is not served (SimpleAWSCredentialsProvider, TemporaryAWSCredentialsProvider, EnvironmentVariableCredentialsProvider, InstanceProfileCredentialsProvider, IAMInstanceCredentialsProvider, DefaultAWSCredentialsProviderChain)", class)
			}
			if !slices.Contains(cr.Providers, prov) {
				cr.Providers = append(cr.Providers, prov)
			}
		}
	}
	if (cr.AccessKey == "") != (cr.SecretKey == "") {
		return w.errf(p.node, p.key, "fs.s3a.access.key and fs.s3a.secret.key go together")
	}
	if slices.Contains(cr.Providers, checkpointstore.ProviderStatic) && cr.AccessKey == "" {
		return w.errf(w.valueAt(p.node, "fs.s3a.aws.credentials.provider"), join(p.key, "fs.s3a.aws.credentials.provider"),
			"%s needs fs.s3a.access.key and fs.s3a.secret.key", p.values["fs.s3a.aws.credentials.provider"])
	}
	st.Type = StorageS3
	w.ignoreKey(p, "disable.cache", "Strait keeps no file system cache")
	return nil
}

// s3Endpoint reads fs.s3a.endpoint (a host name is https unless
// fs.s3a.connection.ssl.enabled is false) and the path style: Hadoop's
// fs.s3a.path.style.access, else path style for an endpoint of its own (MinIO and the like
// are reached so) and host style for AWS.
func (w *walker) s3Endpoint(p *plugin, s3 *checkpointstore.S3Config) error {
	ssl := true
	if p.has("fs.s3a.connection.ssl.enabled") {
		if err := w.boolean(&ssl)(join(p.key, "fs.s3a.connection.ssl.enabled"), w.valueAt(p.node, "fs.s3a.connection.ssl.enabled")); err != nil {
			return err
		}
	}
	if ep := p.values["fs.s3a.endpoint"]; ep != "" {
		if !strings.Contains(ep, "://") && !ssl {
			ep = "http://" + ep
		}
		norm, err := checkpointstore.NormalizeEndpoint(ep)
		if err != nil {
			return w.errf(w.valueAt(p.node, "fs.s3a.endpoint"), join(p.key, "fs.s3a.endpoint"), "%v", err)
		}
		s3.Endpoint = norm
	}
	s3.PathStyle = s3.Endpoint != ""
	if p.has("fs.s3a.path.style.access") {
		return w.boolean(&s3.PathStyle)(join(p.key, "fs.s3a.path.style.access"), w.valueAt(p.node, "fs.s3a.path.style.access"))
	}
	return nil
}

// s3Bucket takes s3a://bucket, s3n://bucket, s3://bucket or a bare bucket name.
func s3Bucket(v string) (string, error) {
	b := v
	if i := strings.Index(v, "://"); i >= 0 {
		scheme := v[:i]
		if scheme != "s3a" && scheme != "s3n" && scheme != "s3" {
			return "", fmt.Errorf("%q: the scheme must be s3a, s3n or s3", v)
		}
		b = strings.TrimSuffix(v[i+3:], "/")
	}
	if strings.Contains(b, "/") {
		return "", fmt.Errorf("%q: a bucket has no path (the folder is plugin-config.namespace)", v)
	}
	if err := checkpointstore.CheckBucket(b); err != nil {
		return "", err
	}
	return b, nil
}

// namespace is SeaTunnel's checkpoint folder (plugin-config.namespace) or its default.
func (w *walker) namespace(p *plugin, def string) string {
	if ns := p.values["namespace"]; ns != "" {
		return ns
	}
	return def
}

// onlyKeys refuses the plugin-config keys the storage does not take; Hadoop's own
// settings (fs.*, seatunnel.hadoop.*) that Strait does not use are warned about.
func (w *walker) onlyKeys(p *plugin, keys ...string) error {
	for _, k := range p.order {
		if slices.Contains(keys, k) {
			continue
		}
		node := w.valueAt(p.node, k)
		if strings.HasPrefix(k, "fs.") || strings.HasPrefix(k, "seatunnel.hadoop.") {
			w.ignore(node, join(p.key, k), "a Hadoop setting Strait does not use")
			continue
		}
		return w.errf(keyOf(p.node, k), join(p.key, k), "unknown key for this storage (known: %s)", strings.Join(keys, ", "))
	}
	return nil
}

func (w *walker) ignoreKey(p *plugin, k, why string) {
	if p.has(k) {
		w.ignore(w.valueAt(p.node, k), join(p.key, k), why)
	}
}

// keyOf is the key node of key in mapping n, or n.
func keyOf(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i]
		}
	}
	return n
}
