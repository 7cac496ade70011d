// Package s3file is the S3File source and sink: the file core's source, sink, formats, save
// modes and exactly-once committer (connectors/file) on a bucket of S3 or of an
// S3-compatible store (MinIO, SeaweedFS, Ceph, R2), reached with aws-sdk-go-v2. Files are
// read with ranged GETs, written as multipart uploads while their rows come, staged under
// tmp_path in the bucket and published by a server-side copy when their checkpoint
// completes.
package s3file

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/strait-dev/strait/checkpointstore"
	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/file"
)

func init() {
	file.Register("S3File", sourceDoc, sinkDoc, newSource, newSink)
}

const (
	sourceDoc = "Reads text, csv, json, parquet, excel and xml files, and files as they are (binary), " +
		"from an object or a folder of an S3 bucket (or an S3-compatible store), with LocalFile's options " +
		"and formats and SeaTunnel's S3 options (bucket, fs.s3a.endpoint, credentials, hadoop_s3_properties)."
	sinkDoc = "Writes text, csv, json, parquet, excel and xml files, and files as a binary source read them, " +
		"into a folder of an S3 bucket with LocalFile's options and file layout: uploaded in parts while " +
		"written, staged under tmp_path in the bucket and copied into place when the checkpoint completes."
)

// S3Options are SeaTunnel's options of the bucket and how to reach it.
type S3Options struct {
	Bucket     string            `opt:"bucket" doc:"the bucket: s3a://name, s3n://name, s3://name or the name alone. Required (in each entry of tables_configs when that is set)"`
	Endpoint   string            `opt:"fs.s3a.endpoint" doc:"the S3 endpoint: a host name (https, or http when hadoop_s3_properties sets fs.s3a.connection.ssl.enabled = false) or a URL; an AWS host such as s3.cn-north-1.amazonaws.com.cn also names the region. Required; given empty it is AWS's endpoint of fs.s3a.endpoint.region (us-east-1 without one), S3A's default"`
	Provider   string            `opt:"fs.s3a.aws.credentials.provider" default:"com.amazonaws.auth.InstanceProfileCredentialsProvider" doc:"how requests are signed, by class name (package optional), several separated by commas tried in order: SimpleAWSCredentialsProvider or TemporaryAWSCredentialsProvider (access_key and secret_key), InstanceProfileCredentialsProvider (the EC2 instance role), EnvironmentVariableCredentialsProvider (AWS_ACCESS_KEY_ID...), DefaultAWSCredentialsProviderChain (the AWS SDK's chain)"`
	AccessKey  string            `opt:"access_key" doc:"the access key of SimpleAWSCredentialsProvider"`
	SecretKey  string            `opt:"secret_key,secret" doc:"the secret key of SimpleAWSCredentialsProvider"`
	Properties map[string]string `opt:"hadoop_s3_properties" doc:"Hadoop S3A properties. Read: fs.s3a.path.style.access (true addresses the bucket in the path; the default is true for an endpoint that is not AWS's), fs.s3a.endpoint.region, fs.s3a.connection.ssl.enabled, fs.s3a.access.key, fs.s3a.secret.key, fs.s3a.session.token, fs.s3a.multipart.size (the part size of uploads and of copies made in parts, at least 5M; default 8M), fs.s3a.multipart.threshold (objects larger are copied in parts when a commit renames them; default and at most 5G, the largest S3 copies at once) and fs.s3a.attempts.maximum; any other is logged and has no effect"`
}

// SourceTable is the options of one table an S3File source reads: LocalFile's and the
// bucket's.
type SourceTable struct {
	file.SourceTable
	S3Options
}

// SourceConfig is the S3File source's options: one table, or tables_configs, each entry
// with its own bucket options.
type SourceConfig struct {
	SourceTable
	Tables []SourceTable `opt:"tables_configs" doc:"several tables from one source: each entry is a complete S3File source config (bucket, fs.s3a.endpoint, credentials, path, file_format_type, a schema with its own table name...); the options beside it are not read"`
}

// SinkConfig is the S3File sink's options: LocalFile's and the bucket's.
type SinkConfig struct {
	file.SinkConfig
	S3Options
}

func newSource(ctx *connector.SourceContext, c *SourceConfig) (connector.Source, error) {
	lc := &file.SourceConfig{SourceTable: c.SourceTable.SourceTable}
	if c.Tables != nil {
		lc.Tables = make([]file.SourceTable, len(c.Tables))
		for i := range c.Tables {
			lc.Tables[i] = c.Tables[i].SourceTable
		}
	}
	return file.NewSourceOn(ctx, lc, func(i int) (file.FileSystem, error) {
		t := &c.SourceTable
		if i >= 0 {
			t = &c.Tables[i]
		}
		return t.S3Options.fileSystem(t.At)
	})
}

func newSink(ctx *connector.SinkContext, c *SinkConfig) (connector.Sink, error) {
	fsys, err := c.S3Options.fileSystem(ctx.Options)
	if err != nil {
		return nil, err
	}
	return file.NewSinkOn(ctx, &c.SinkConfig, fsys)
}

const (
	defaultPartSize = 8 << 20
	// dataAttemptTimeout bounds one request of the data path: a ranged GET streams up to
	// readAhead bytes and a part upload sends a part, both far below it
	dataAttemptTimeout = 10 * time.Minute
)

// fileSystem checks the bucket options (o names their place in errors) and opens the bucket.
func (s *S3Options) fileSystem(o *config.Options) (*FS, error) {
	bucket, err := bucketOf(o, s.Bucket)
	if err != nil {
		return nil, err
	}
	props := s.Properties
	endpoint := strings.TrimSpace(s.Endpoint)
	if endpoint == "" {
		if !o.Has("fs.s3a.endpoint") {
			return nil, o.Errorf("fs.s3a.endpoint", "option is required")
		}
		// present but empty, as SeaTunnel accepts it: S3A's default, AWS in the region
		// fs.s3a.endpoint.region names (us-east-1 without one)
		endpoint = awsEndpoint(props["fs.s3a.endpoint.region"])
	}
	if !strings.Contains(endpoint, "://") && props["fs.s3a.connection.ssl.enabled"] == "false" {
		endpoint = "http://" + endpoint
	}
	if endpoint, err = checkpointstore.NormalizeEndpoint(endpoint); err != nil {
		return nil, o.Errorf("fs.s3a.endpoint", "%v", err)
	}
	cfg := checkpointstore.S3Config{Bucket: bucket, Endpoint: endpoint, AttemptTimeout: dataAttemptTimeout,
		Region: props["fs.s3a.endpoint.region"], PathStyle: !isAWS(endpoint)}
	if cfg.Region == "" {
		cfg.Region = regionOf(endpoint)
	}
	if v, ok := props["fs.s3a.path.style.access"]; ok {
		if cfg.PathStyle, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
			return nil, o.Errorf("hadoop_s3_properties", "fs.s3a.path.style.access: %q is not true or false", v)
		}
	}
	if v, ok := props["fs.s3a.attempts.maximum"]; ok {
		if cfg.Attempts, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || cfg.Attempts < 1 {
			return nil, o.Errorf("hadoop_s3_properties", "fs.s3a.attempts.maximum: %q is not a positive number", v)
		}
	}
	if cfg.Credentials, err = s.credentials(o); err != nil {
		return nil, err
	}
	partSize := int64(defaultPartSize)
	if v, ok := props["fs.s3a.multipart.size"]; ok {
		if partSize, err = byteSize(v); err != nil || partSize < minPartSize {
			return nil, o.Errorf("hadoop_s3_properties", "fs.s3a.multipart.size: %q is not a size of at least 5M (S3's smallest part)", v)
		}
	}
	copyAtOnce, copyPart := int64(maxSingleCopy), max(partSize, copyPartSize)
	if v, ok := props["fs.s3a.multipart.threshold"]; ok {
		copyPart = partSize // as S3A copies: in parts of fs.s3a.multipart.size
		if copyAtOnce, err = byteSize(v); err != nil || copyAtOnce < minPartSize || copyAtOnce > maxSingleCopy {
			return nil, o.Errorf("hadoop_s3_properties", "fs.s3a.multipart.threshold: %q is not a size from 5M to 5G", v)
		}
	}
	for k := range props {
		if !readProperties[k] {
			slog.Info("S3File: a Hadoop S3A property without effect here", "plugin", o.Where(), "property", k)
		}
	}
	store, err := checkpointstore.NewS3(context.Background(), cfg)
	if err != nil {
		return nil, o.Errorf("bucket", "%v", err)
	}
	return &FS{client: store.Client(), bucket: bucket, partSize: partSize, copyAtOnce: copyAtOnce,
		copyPart: copyPart, ctx: context.Background()}, nil
}

var readProperties = map[string]bool{
	"fs.s3a.path.style.access": true, "fs.s3a.endpoint.region": true, "fs.s3a.connection.ssl.enabled": true,
	"fs.s3a.access.key": true, "fs.s3a.secret.key": true, "fs.s3a.session.token": true,
	"fs.s3a.multipart.size": true, "fs.s3a.multipart.threshold": true, "fs.s3a.attempts.maximum": true,
}

// bucketOf reads bucket, with or without its s3a://, s3n:// or s3:// scheme.
func bucketOf(o *config.Options, s string) (string, error) {
	b := strings.TrimSpace(s)
	for _, scheme := range []string{"s3a://", "s3n://", "s3://"} {
		b = strings.TrimPrefix(b, scheme)
	}
	b = strings.TrimSuffix(b, "/")
	if b == "" {
		return "", o.Errorf("bucket", "option is required")
	}
	if err := checkpointstore.CheckBucket(b); err != nil {
		return "", o.Errorf("bucket", "%v", err)
	}
	return b, nil
}

// credentials maps the Hadoop providers onto the S3 client's.
func (s *S3Options) credentials(o *config.Options) (checkpointstore.Credentials, error) {
	props := s.Properties
	c := checkpointstore.Credentials{AccessKey: s.AccessKey, SecretKey: s.SecretKey, SessionToken: props["fs.s3a.session.token"]}
	if c.AccessKey == "" {
		c.AccessKey = props["fs.s3a.access.key"]
	}
	if c.SecretKey == "" {
		c.SecretKey = props["fs.s3a.secret.key"]
	}
	for _, class := range strings.Split(s.Provider, ",") {
		class = strings.TrimSpace(class)
		if class == "" {
			continue
		}
		p, ok := checkpointstore.HadoopProvider(class)
		if !ok {
			return c, o.Errorf("fs.s3a.aws.credentials.provider", "%q is not served (SimpleAWSCredentialsProvider, TemporaryAWSCredentialsProvider, "+
				"EnvironmentVariableCredentialsProvider, InstanceProfileCredentialsProvider, IAMInstanceCredentialsProvider, DefaultAWSCredentialsProviderChain)", class)
		}
		if p == checkpointstore.ProviderStatic && (c.AccessKey == "" || c.SecretKey == "") {
			return c, o.Errorf("fs.s3a.aws.credentials.provider", "%s signs with access_key and secret_key: set both", class)
		}
		c.Providers = append(c.Providers, p)
	}
	return c, nil
}

var awsHost = regexp.MustCompile(`^(?:[a-z0-9.-]+\.)?s3[.-]([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$`)

func hostOf(endpoint string) string {
	h := endpoint[strings.Index(endpoint, "://")+3:]
	if i := strings.IndexAny(h, ":/"); i >= 0 {
		h = h[:i]
	}
	return strings.ToLower(h)
}

// isAWS reports whether the endpoint is one of AWS's, which address buckets by host name.
func isAWS(endpoint string) bool {
	h := hostOf(endpoint)
	return strings.HasSuffix(h, ".amazonaws.com") || strings.HasSuffix(h, ".amazonaws.com.cn")
}

// awsEndpoint is AWS S3's endpoint of a region (us-east-1 when none is given).
func awsEndpoint(region string) string {
	region = strings.TrimSpace(region)
	if region == "" {
		region = "us-east-1"
	}
	if strings.HasPrefix(region, "cn-") {
		return "https://s3." + region + ".amazonaws.com.cn"
	}
	return "https://s3." + region + ".amazonaws.com"
}

// regionOf is the region an AWS endpoint names (s3.<region>.amazonaws.com), else "".
func regionOf(endpoint string) string {
	m := awsHost.FindStringSubmatch(hostOf(endpoint))
	if m == nil || m[1] == "dualstack" {
		return ""
	}
	return m[1]
}

// byteSize reads a Hadoop size: a number of bytes, or with K, M, G or T (binary multiples).
func byteSize(s string) (int64, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v * mult, nil
}
