package engineconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/strait-dev/strait/checkpointstore"
)

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaults(t *testing.T) {
	for _, text := range []string{"", "# nothing set\n"} {
		cfg, err := Load(write(t, "strait.yaml", text))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(cfg, Default()) {
			t.Errorf("%q: %+v", text, cfg)
		}
	}
	if d, err := Load(""); err != nil || !reflect.DeepEqual(d, Default()) {
		t.Fatalf("no file: %+v %v", d, err)
	}
}

// TestLoad reads both shapes into the same settings.
func TestLoad(t *testing.T) {
	s3 := func(c checkpointstore.S3Config) Storage { return Storage{Type: StorageS3, S3: c} }
	for _, c := range []struct {
		name, file, text string
		want             Checkpoint
		ignored          []string
	}{{
		name: "strait localfile",
		file: "strait.yaml",
		text: "checkpoint:\n  interval: 5000\n  storage:\n    root: /data/ckpt\n",
		want: Checkpoint{Interval: 5000, Timeout: 600000, MaxRetained: 3, Storage: Storage{Type: StorageLocalFile, Root: "/data/ckpt"}},
	}, {
		name: "strait s3 with keys",
		file: "strait.yaml",
		text: `checkpoint:
  max-retained: 5
  storage:
    type: s3
    bucket: ckpt
    prefix: prod/strait
    endpoint: http://127.0.0.1:8333/
    region: eu-west-1
    credentials:
      provider: static
      access-key: AK
      secret-key: SK
`,
		want: Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 5, Storage: s3(checkpointstore.S3Config{
			Bucket: "ckpt", Prefix: "prod/strait", Endpoint: "http://127.0.0.1:8333", Region: "eu-west-1", PathStyle: true,
			Credentials: checkpointstore.Credentials{Providers: []string{"static"}, AccessKey: "AK", SecretKey: "SK"}})},
	}, {
		name: "strait s3 on AWS with a chain",
		file: "strait.yaml",
		text: "checkpoint:\n  storage:\n    type: s3\n    bucket: ckpt\n    credentials:\n      provider: [env, instance-profile]\n",
		want: Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 3, Storage: s3(checkpointstore.S3Config{
			Bucket: "ckpt", Credentials: checkpointstore.Credentials{Providers: []string{"env", "instance-profile"}}})},
	}, {
		name: "strait s3 host style forced",
		file: "strait.yaml",
		text: "checkpoint:\n  storage:\n    type: s3\n    bucket: ckpt\n    endpoint: s3.example.com\n    path-style: false\n",
		want: Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 3, Storage: s3(checkpointstore.S3Config{
			Bucket: "ckpt", Endpoint: "https://s3.example.com"})},
	}, {
		// SeaTunnel's own config/seatunnel.yaml
		name: "seatunnel local hdfs",
		file: "seatunnel.yaml",
		text: `seatunnel:
  engine:
    history-job-expire-minutes: 1440
    backup-count: 1
    queue-type: blockingqueue
    print-execution-info-interval: 60
    print-job-metrics-info-interval: 60
    slot-service:
      dynamic-slot: true
    checkpoint:
      interval: 10000
      timeout: 60000
      storage:
        type: hdfs
        max-retained: 3
        plugin-config:
          namespace: /tmp/seatunnel/checkpoint_snapshot
          storage.type: hdfs
          fs.defaultFS: file:///tmp/ # Ensure that the directory has written permission
    telemetry:
      metric:
        enabled: false
    http:
      enable-http: true
      port: 8080
`,
		want: Checkpoint{Interval: 10000, Timeout: 60000, MaxRetained: 3, Storage: Storage{Type: StorageLocalFile, Root: "/tmp/seatunnel/checkpoint_snapshot"}},
		ignored: []string{"seatunnel.engine.history-job-expire-minutes", "seatunnel.engine.backup-count", "seatunnel.engine.queue-type",
			"seatunnel.engine.print-execution-info-interval", "seatunnel.engine.print-job-metrics-info-interval",
			"seatunnel.engine.slot-service", "seatunnel.engine.telemetry", "seatunnel.engine.http"},
	}, {
		// the MinIO example of SeaTunnel's checkpoint-storage.md
		name: "seatunnel s3 simple",
		file: "seatunnel.yaml",
		text: `seatunnel:
  engine:
    checkpoint:
      interval: 10000
      timeout: 60000
      storage:
        type: hdfs
        max-retained: 3
        plugin-config:
          storage.type: s3
          fs.s3a.access.key: xxxxxxxxx # Access Key  of MinIO
          fs.s3a.secret.key: xxxxxxxxxxxxxxxxxxxxx # Secret Key of MinIO
          fs.s3a.endpoint: http://127.0.0.1:9000 # Minio HTTP service access address
          s3.bucket: s3a://test # test is the bucket name which  storage the checkpoint file
          fs.s3a.aws.credentials.provider: org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider
`,
		want: Checkpoint{Interval: 10000, Timeout: 60000, MaxRetained: 3, Storage: s3(checkpointstore.S3Config{
			Bucket: "test", Prefix: "seatunnel/checkpoint", Endpoint: "http://127.0.0.1:9000", PathStyle: true,
			Credentials: checkpointstore.Credentials{Providers: []string{"static"}, AccessKey: "xxxxxxxxx", SecretKey: "xxxxxxxxxxxxxxxxxxxxx"}})},
	}, {
		name: "seatunnel s3 instance profile",
		file: "seatunnel.yaml",
		text: `seatunnel:
  engine:
    checkpoint:
      storage:
        type: hdfs
        plugin-config:
          storage.type: s3
          namespace: /strait/ckpt/
          s3.bucket: your-bucket
          fs.s3a.endpoint: s3.eu-west-1.amazonaws.com
          fs.s3a.endpoint.region: eu-west-1
          fs.s3a.aws.credentials.provider: org.apache.hadoop.fs.s3a.InstanceProfileCredentialsProvider
          fs.s3a.fast.upload: true
`,
		want: Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 3, Storage: s3(checkpointstore.S3Config{
			Bucket: "your-bucket", Prefix: "strait/ckpt", Endpoint: "https://s3.eu-west-1.amazonaws.com", Region: "eu-west-1", PathStyle: true,
			Credentials: checkpointstore.Credentials{Providers: []string{"instance-profile"}}})},
		ignored: []string{"seatunnel.engine.checkpoint.storage.plugin-config.fs.s3a.fast.upload"},
	}, {
		name: "seatunnel s3 environment then default chain, no ssl",
		file: "seatunnel.yaml",
		text: `seatunnel:
  engine:
    checkpoint:
      storage:
        type: hdfs
        plugin-config:
          storage.type: s3
          s3.bucket: s3n://b
          fs.s3a.endpoint: 127.0.0.1:8333
          fs.s3a.connection.ssl.enabled: false
          fs.s3a.path.style.access: "false"
          fs.s3a.aws.credentials.provider: com.amazonaws.auth.EnvironmentVariableCredentialsProvider,com.amazonaws.auth.DefaultAWSCredentialsProviderChain
`,
		want: Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 3, Storage: s3(checkpointstore.S3Config{
			Bucket: "b", Prefix: "seatunnel/checkpoint", Endpoint: "http://127.0.0.1:8333",
			Credentials: checkpointstore.Credentials{Providers: []string{"env", "default"}}})},
	}, {
		name: "seatunnel deprecated localfile",
		file: "seatunnel.yaml",
		text: "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: localfile\n",
		want: Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 3, Storage: Storage{Type: StorageLocalFile, Root: "/tmp/seatunnel/checkpoint"}},
	}, {
		name:    "seatunnel relative namespace on a file system root",
		file:    "seatunnel.yaml",
		text:    "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          fs.defaultFS: file:///var/lib/\n          namespace: ckpt\n          disable.cache: false\n",
		want:    Checkpoint{Interval: 30000, Timeout: 600000, MaxRetained: 3, Storage: Storage{Type: StorageLocalFile, Root: "/var/lib/ckpt"}},
		ignored: []string{"seatunnel.engine.checkpoint.storage.plugin-config.disable.cache"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.file, c.text)
			cfg, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Checkpoint, c.want) {
				t.Errorf("got  %+v\nwant %+v", cfg.Checkpoint, c.want)
			}
			if len(cfg.Ignored) != len(c.ignored) {
				t.Fatalf("ignored %q, want %q", cfg.Ignored, c.ignored)
			}
			for i, k := range c.ignored {
				if !strings.HasPrefix(cfg.Ignored[i], p+":") || !strings.Contains(cfg.Ignored[i], ": "+k+": ") {
					t.Errorf("ignored[%d] %q, want %s", i, cfg.Ignored[i], k)
				}
			}
		})
	}
}

// TestLoadErrors: every error names the file, the line and the key.
func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ file, text, want string }{
		{"strait.yaml", "checkpoint:\n  intervall: 5\n", "strait.yaml:2: checkpoint.intervall: unknown key (known: interval, max-retained, storage, timeout)"},
		{"strait.yaml", "checkpoint:\n  interval: -1\n", "strait.yaml:2: checkpoint.interval: must be at least 1 (ms), got -1"},
		{"strait.yaml", "checkpoint:\n  timeout: soon\n", `strait.yaml:2: checkpoint.timeout: "soon" is not a whole number (ms)`},
		{"strait.yaml", "checkpoint:\n  max-retained: 0\n", "strait.yaml:2: checkpoint.max-retained: must be at least 1, got 0"},
		{"strait.yaml", "checkpoint:\n  interval: 1\n  interval: 2\n", "strait.yaml:3: checkpoint.interval: given twice"},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: hdfs\n", `strait.yaml:3: checkpoint.storage.type: "hdfs" is not supported (localfile, s3)`},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n", "strait.yaml:3: checkpoint.storage.bucket: required with type s3"},
		{"strait.yaml", "checkpoint:\n  storage:\n    bucket: b\n", "strait.yaml:3: checkpoint.storage.bucket: only with type s3 (the type is localfile)"},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: b\n    root: /x\n", "strait.yaml:5: checkpoint.storage.root: only with type localfile"},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: a/b\n", `strait.yaml:4: checkpoint.storage.bucket: bucket "a/b": a bucket name has no slashes`},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: b\n    endpoint: ftp://host\n", `strait.yaml:5: checkpoint.storage.endpoint: endpoint "ftp://host": the scheme must be http or https`},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: b\n    path-style: yes please\n", `strait.yaml:5: checkpoint.storage.path-style: "yes please" is not true or false`},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: b\n    credentials:\n      provider: magic\n", `strait.yaml:6: checkpoint.storage.credentials.provider: unknown provider "magic"`},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: b\n    credentials:\n      provider: static\n", "strait.yaml:6: checkpoint.storage.credentials.provider: the static provider needs an access key and a secret key"},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: b\n    credentials:\n      access-key: AK\n", "strait.yaml:6: checkpoint.storage.credentials: an access key and a secret key go together"},
		{"strait.yaml", "checkpoint:\n  storage:\n    type: s3\n    bucket: b\n    credentials:\n      secret: x\n", "strait.yaml:6: checkpoint.storage.credentials.secret: unknown key"},
		{"strait.yaml", "checkpoint: [\n", "engine config "},
		{"strait.yaml", "checkpoint: [1]\n", "strait.yaml:1: checkpoint: expected a mapping of keys, got a list"},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpointt: {}\n", "seatunnel.yaml:3: seatunnel.engine.checkpointt: unknown key"},
		{"seatunnel.yaml", "seatunnel:\n  engine: {}\nhazelcast: {}\n", "seatunnel.yaml:3: hazelcast: unknown key (known: seatunnel)"},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      interval: ten\n", `seatunnel.yaml:4: seatunnel.engine.checkpoint.interval: "ten" is not a whole number (ms)`},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: rocksdb\n", `seatunnel.yaml:5: seatunnel.engine.checkpoint.storage.type: "rocksdb" is not supported (hdfs, localfile)`},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: hdfs\n          fs.defaultFS: hdfs://namenode:9000\n",
			`seatunnel.yaml:8: seatunnel.engine.checkpoint.storage.plugin-config.fs.defaultFS: "hdfs://namenode:9000": only a local file system (file:///) is served`},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: oss\n",
			`seatunnel.yaml:7: seatunnel.engine.checkpoint.storage.plugin-config.storage.type: "oss" is not supported`},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: s3\n",
			"seatunnel.yaml:7: seatunnel.engine.checkpoint.storage.plugin-config.s3.bucket: required with storage.type s3"},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: s3\n          s3.bucket: gs://b\n",
			`seatunnel.yaml:8: seatunnel.engine.checkpoint.storage.plugin-config.s3.bucket: "gs://b": the scheme must be s3a, s3n or s3`},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: s3\n          s3.bucket: b\n          fs.s3a.aws.credentials.provider: com.example.Magic\n",
			`seatunnel.yaml:9: seatunnel.engine.checkpoint.storage.plugin-config.fs.s3a.aws.credentials.provider: "com.example.Magic" is not served`},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: s3\n          s3.bucket: b\n          fs.s3a.aws.credentials.provider: org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider\n",
			"seatunnel.yaml:9: seatunnel.engine.checkpoint.storage.plugin-config.fs.s3a.aws.credentials.provider: org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider needs fs.s3a.access.key and fs.s3a.secret.key"},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: s3\n          s3.bucket: b\n          fs.s3a.secret.key: x\n",
			"seatunnel.yaml:7: seatunnel.engine.checkpoint.storage.plugin-config: fs.s3a.access.key and fs.s3a.secret.key go together"},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        plugin-config:\n          storage.type: s3\n          s3.bucket: b\n          bucket.name: b\n",
			"seatunnel.yaml:9: seatunnel.engine.checkpoint.storage.plugin-config.bucket.name: unknown key for this storage"},
		{"seatunnel.yaml", "seatunnel:\n  engine:\n    checkpoint:\n      storage:\n        type: hdfs\n        max-retained: many\n",
			`seatunnel.yaml:6: seatunnel.engine.checkpoint.storage.max-retained: "many" is not a whole number`},
	} {
		p := write(t, c.file, c.text)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %q", c.text, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%q: %v does not name the file", c.text, err)
		}
	}
}

// TestSeaTunnelConfigsUnchanged reads, as they are, the seatunnel.yaml files of SeaTunnel's
// distribution, engine and end-to-end tests kept in testdata.
func TestSeaTunnelConfigsUnchanged(t *testing.T) {
	local := func(interval, timeout int64) Checkpoint {
		return Checkpoint{Interval: interval, Timeout: timeout, MaxRetained: 3,
			Storage: Storage{Type: StorageLocalFile, Root: "/tmp/seatunnel/checkpoint_snapshot"}}
	}
	for file, want := range map[string]Checkpoint{
		"config-seatunnel.yaml":                               local(10000, 60000),
		"e2e-base-seatunnel.yaml":                             local(300000, 100000),
		"e2e-classloader-seatunnel_cache_mode.yaml":           local(300000, 100000),
		"e2e-connector-package-server1-seatunnel.yaml":        local(300000, 100000),
		"e2e-console-seatunnel_config_with_event_report.yaml": Default().Checkpoint,
		"e2e-seatunnel_fixed_slot_num.yaml":                   local(300000, 100000),
		"engine-client-test-seatunnel.yaml":                   local(6000, 7000),
		"engine-common-seatunnel.yaml":                        local(300000, 10000),
	} {
		cfg, err := Load(filepath.Join("testdata", file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if !reflect.DeepEqual(cfg.Checkpoint, want) {
			t.Errorf("%s:\n got  %+v\n want %+v", file, cfg.Checkpoint, want)
		}
		if len(cfg.Ignored) == 0 {
			t.Errorf("%s: the engine settings Strait does not use are not reported", file)
		}
	}
}
