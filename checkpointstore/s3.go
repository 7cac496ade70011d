package checkpointstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3 defaults: a request is tried up to six times, the pauses between attempts growing
// (with jitter) up to two seconds, so a server that is briefly away (a restart, a
// throttle) costs a checkpoint a few seconds, not the checkpoint; one attempt waits at
// most a minute, connecting at most five seconds.
const (
	DefaultS3Attempts       = 6
	DefaultS3MaxBackoff     = 2 * time.Second
	DefaultS3AttemptTimeout = time.Minute
	s3DialTimeout           = 5 * time.Second
	s3DefaultRegion         = "us-east-1"
	// checkAttempts bounds the tries of the start-up check, so a wrong endpoint or
	// credential is reported within seconds.
	checkAttempts = 2
	// deleteBatch is the most keys one DeleteObjects request takes.
	deleteBatch = 1000
)

// S3Config says where in S3 (or an S3-compatible store: MinIO, SeaweedFS, Ceph, R2)
// checkpoints live and how to reach them.
type S3Config struct {
	Bucket string
	// Prefix is the folder of the bucket that holds the checkpoints ("" for its root).
	Prefix string
	// Endpoint is the URL of an S3-compatible server; empty means AWS (the region's
	// endpoint). A value without a scheme is taken as https.
	Endpoint string
	// Region signs the requests; empty takes the environment's or profile's, else
	// us-east-1.
	Region string
	// PathStyle addresses the bucket in the path (http://host/bucket/key) rather than the
	// host name; S3-compatible servers usually want it.
	PathStyle   bool
	Credentials Credentials
	// Attempts, MaxBackoff and AttemptTimeout tune the retries of every request
	// (defaults DefaultS3Attempts, DefaultS3MaxBackoff, DefaultS3AttemptTimeout).
	Attempts       int
	MaxBackoff     time.Duration
	AttemptTimeout time.Duration
	Logger         *slog.Logger
}

// S3 is the store in an S3 bucket. Its keys are the file system store's, under the prefix:
// <prefix>/<job>/<pipeline>/<checkpoint>/<task>.state and .../manifest.json. A PUT is
// atomic in S3, so a reader sees a whole manifest or none, and a put that fails half way
// leaves nothing.
type S3 struct {
	client   *s3.Client
	bucket   string
	prefix   string // "" or ending in "/"
	endpoint string // for messages: the URL, or "AWS"
	creds    string // for messages: which credentials are used
	log      *slog.Logger
}

var (
	_ Store       = (*S3)(nil)
	_ keysDeleter = (*S3)(nil)
)

// NewS3 returns the store cfg describes. It does not reach the server: Check does.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if err := CheckBucket(cfg.Bucket); err != nil {
		return nil, fmt.Errorf("checkpoint store s3: %w", err)
	}
	prefix, err := cleanPrefix(cfg.Prefix)
	if err != nil {
		return nil, fmt.Errorf("checkpoint store s3://%s: %w", cfg.Bucket, err)
	}
	endpoint, err := NormalizeEndpoint(cfg.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("checkpoint store s3://%s: %w", cfg.Bucket, err)
	}
	awsCfg, err := loadAWSConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("checkpoint store s3://%s: %w", cfg.Bucket, err)
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
		o.UsePathStyle = cfg.PathStyle
	})
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	shown := endpoint
	if shown == "" {
		shown = "AWS (" + awsCfg.Region + ")"
	}
	return &S3{client: client, bucket: cfg.Bucket, prefix: prefix, endpoint: shown,
		creds: cfg.Credentials.describe(), log: log}, nil
}

// Client is the SDK client of the store: the bucket's endpoint, addressing, credentials and
// retries, for other readers and writers of S3 configured the same way (the S3File
// connector builds its client here).
func (s *S3) Client() *s3.Client { return s.client }

// loadAWSConfig builds the SDK configuration: region, credentials, retries with backoff,
// and an HTTP client whose attempts are bounded.
func loadAWSConfig(ctx context.Context, cfg S3Config) (aws.Config, error) {
	attempts := cfg.Attempts
	if attempts <= 0 {
		attempts = DefaultS3Attempts
	}
	backoff := cfg.MaxBackoff
	if backoff <= 0 {
		backoff = DefaultS3MaxBackoff
	}
	timeout := cfg.AttemptTimeout
	if timeout <= 0 {
		timeout = DefaultS3AttemptTimeout
	}
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = attempts
				o.MaxBackoff = backoff
				// every failed attempt is tried again up to the limit: no client-side quota
				// that would give up a checkpoint after a burst of errors
				o.RateLimiter = ratelimit.None
			})
		}),
		config.WithHTTPClient(awshttp.NewBuildableClient().
			WithTimeout(timeout).
			WithDialerOptions(func(d *net.Dialer) { d.Timeout = min(s3DialTimeout, timeout) })),
		// S3-compatible servers differ in the checksums they take; only what an operation
		// requires is sent
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	provider, err := cfg.Credentials.provider()
	if err != nil {
		return aws.Config{}, err
	}
	if provider != nil {
		opts = append(opts, config.WithCredentialsProvider(provider))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("load the AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = s3DefaultRegion
	}
	return awsCfg, nil
}

// NormalizeEndpoint checks an S3 endpoint and gives it a scheme (https when it has none, as
// Hadoop's fs.s3a.endpoint takes host names).
func NormalizeEndpoint(endpoint string) (string, error) {
	if endpoint == "" {
		return "", nil
	}
	if !strings.Contains(endpoint, "://") {
		endpoint = "https://" + endpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("endpoint %q: the scheme must be http or https", endpoint)
	}
	if u.Host == "" {
		return "", fmt.Errorf("endpoint %q: no host", endpoint)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// CheckBucket refuses what cannot be a bucket name (S3's own rules are checked by the
// server).
func CheckBucket(b string) error {
	switch {
	case b == "":
		return errors.New("no bucket")
	case strings.ContainsAny(b, "/ "):
		return fmt.Errorf("bucket %q: a bucket name has no slashes or spaces", b)
	}
	return nil
}

// cleanPrefix makes a prefix "" or "a/b/", refusing one that climbs out.
func cleanPrefix(p string) (string, error) {
	p = strings.Trim(p, "/")
	if p == "" {
		return "", nil
	}
	c := path.Clean(p)
	if c == ".." || strings.HasPrefix(c, "../") || strings.Contains(p, "//") {
		return "", fmt.Errorf("prefix %q is not a plain folder path", p)
	}
	if c == "." {
		return "", nil
	}
	return c + "/", nil
}

// cleanKey is a store key relative to the store, "" for the store itself; a key that
// leaves the store is refused, as the file system store refuses it.
func cleanKey(key string) (string, error) {
	if strings.HasPrefix(key, "/") {
		return "", fmt.Errorf("checkpoint store: key %q leaves the store", key)
	}
	c := path.Clean(key)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("checkpoint store: key %q leaves the store", key)
	}
	if c == "." {
		return "", nil
	}
	return c, nil
}

func (s *S3) where(key string) string { return "s3://" + s.bucket + "/" + s.prefix + key }

// object is the object key of a store key; a key naming the store itself is refused.
func (s *S3) object(key string) (string, error) {
	k, err := cleanKey(key)
	if err != nil {
		return "", err
	}
	if k == "" {
		return "", fmt.Errorf("checkpoint store: key %q names the store, not a blob", key)
	}
	return s.prefix + k, nil
}

// Put uploads a blob in one request (retried with backoff on transient errors).
func (s *S3) Put(ctx context.Context, key string, data []byte) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &obj,
		Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data)))})
	if err != nil {
		return fmt.Errorf("checkpoint store %s: put: %w", s.where(key), err)
	}
	return nil
}

// Get downloads a blob; a missing one is ErrNotFound.
func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &obj})
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
		}
		return nil, fmt.Errorf("checkpoint store %s: get: %w", s.where(key), err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, fmt.Errorf("checkpoint store %s: read: %w", s.where(key), err)
	}
	return b, nil
}

// List lists the keys in the folder prefix names (and below), sorted.
func (s *S3) List(ctx context.Context, prefix string) ([]string, error) {
	p, err := cleanKey(prefix)
	if err != nil {
		return nil, err
	}
	objs, err := s.listObjects(ctx, s.folder(p))
	if err != nil {
		return nil, fmt.Errorf("checkpoint store %s: list: %w", s.where(p), err)
	}
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = strings.TrimPrefix(o, s.prefix)
	}
	sort.Strings(out)
	return out, nil
}

// folder is the object prefix of the store folder p ("" for the store's root).
func (s *S3) folder(p string) string {
	if p == "" {
		return s.prefix
	}
	return s.prefix + p + "/"
}

func (s *S3) listObjects(ctx context.Context, objPrefix string) ([]string, error) {
	in := &s3.ListObjectsV2Input{Bucket: &s.bucket}
	if objPrefix != "" {
		in.Prefix = &objPrefix
	}
	var out []string
	pages := s3.NewListObjectsV2Paginator(s.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
	}
	return out, nil
}

// Delete removes the blob prefix names and every key in the folder it names.
func (s *S3) Delete(ctx context.Context, prefix string) error {
	p, err := cleanKey(prefix)
	if err != nil {
		return err
	}
	if p == "" {
		return fmt.Errorf("checkpoint store: refusing to delete the whole store")
	}
	objs, err := s.listObjects(ctx, s.folder(p))
	if err != nil {
		return fmt.Errorf("checkpoint store %s: delete: list: %w", s.where(p), err)
	}
	objs = append(objs, s.prefix+p) // the blob of that name, as the file system store removes it
	for len(objs) > 0 {
		n := min(len(objs), deleteBatch)
		if err := s.deleteObjects(ctx, objs[:n]); err != nil {
			return fmt.Errorf("checkpoint store %s: delete: %w", s.where(p), err)
		}
		objs = objs[n:]
	}
	return nil
}

// deleteKeys removes the blobs of the store keys given, a thousand a request; a key naming a
// folder removes the folder's entry on a server that keeps one.
func (s *S3) deleteKeys(ctx context.Context, keys []string) error {
	objs := make([]string, len(keys))
	for i, k := range keys {
		obj, err := s.object(k)
		if err != nil {
			return err
		}
		objs[i] = obj
	}
	for len(objs) > 0 {
		n := min(len(objs), deleteBatch)
		if err := s.deleteObjects(ctx, objs[:n]); err != nil {
			return fmt.Errorf("checkpoint store %s: delete %d keys: %w", s.where(""), len(keys), err)
		}
		objs = objs[n:]
	}
	return nil
}

func (s *S3) deleteObjects(ctx context.Context, keys []string) error {
	ids := make([]types.ObjectIdentifier, len(keys))
	for i := range keys {
		ids[i] = types.ObjectIdentifier{Key: &keys[i]}
	}
	out, err := s.client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: &s.bucket,
		Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)}})
	if err != nil {
		return err
	}
	if len(out.Errors) > 0 {
		e := out.Errors[0]
		return fmt.Errorf("%d of %d keys not deleted, the first %s: %s %s", len(out.Errors), len(keys),
			aws.ToString(e.Key), aws.ToString(e.Code), aws.ToString(e.Message))
	}
	return nil
}

// Check reaches the bucket and writes, reads and deletes a probe object under _check/, so
// a wrong endpoint, credential or bucket, or a key without write permission, fails a
// process at its start, naming what failed. Each request is tried at most twice.
func (s *S3) Check(ctx context.Context) error {
	few := func(o *s3.Options) { o.Retryer = retry.AddWithMaxAttempts(o.Retryer, checkAttempts) }
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}, few); err != nil {
		return s.checkError("reach the bucket", err)
	}
	host, _ := os.Hostname()
	probe := s.prefix + "_check/" + host + "-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if _, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &probe,
		Body: strings.NewReader("strait"), ContentLength: aws.Int64(6)}, few); err != nil {
		return s.checkError("write a probe object", err)
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &probe}, few); err != nil {
		return s.checkError("delete a probe object", err)
	}
	s.log.Info("checkpoint store answers", "store", s.where(""), "endpoint", s.endpoint, "credentials", s.creds)
	return nil
}

// checkError names what the start-up check could not do and why, in an operator's terms.
func (s *S3) checkError(what string, err error) error {
	var reason string
	status := httpStatus(err)
	code := apiCode(err)
	switch {
	case errors.Is(err, context.DeadlineExceeded) || isNetError(err):
		reason = fmt.Sprintf("the endpoint %s does not answer", s.endpoint)
	case strings.Contains(err.Error(), "failed to retrieve credentials") || strings.Contains(err.Error(), "get credentials"):
		reason = fmt.Sprintf("no credentials from %s", s.creds)
	case status == http.StatusForbidden || code == "InvalidAccessKeyId" || code == "SignatureDoesNotMatch" || code == "AccessDenied":
		reason = fmt.Sprintf("access denied to the credentials from %s (%s)", s.creds, orStatus(code, status))
	case status == http.StatusNotFound || code == "NoSuchBucket":
		reason = fmt.Sprintf("bucket %q does not exist at %s", s.bucket, s.endpoint)
	case status != 0:
		reason = fmt.Sprintf("%s answered %s", s.endpoint, orStatus(code, status))
	default:
		reason = "failed"
	}
	return fmt.Errorf("checkpoint store %s: %s: %s: %w", s.where(""), what, reason, err)
}

func orStatus(code string, status int) string {
	if code != "" && code != strconv.Itoa(status) {
		return fmt.Sprintf("%s, HTTP %d", code, status)
	}
	return fmt.Sprintf("HTTP %d", status)
}

func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &oe) || (errors.As(err, &ne) && ne.Timeout())
}

func isNotFound(err error) bool {
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return true
	}
	code := apiCode(err)
	return code == "NoSuchKey" || code == "NotFound"
}
