package conntest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// The S3 server of the tests: `make s3` starts SeaweedFS (scripts/s3.sh start) and
// `make test` sets these.
const (
	envS3       = "STRAIT_TEST_S3"
	envS3Key    = "STRAIT_TEST_S3_ACCESS_KEY"
	envS3Secret = "STRAIT_TEST_S3_SECRET_KEY"
)

// S3Bucket is the bucket of the tests. SeaweedFS grows a volume for each bucket: the tests
// of every connector share this one, each under a prefix of its own.
const S3Bucket = "strait-s3file-test"

// S3Server is the S3 server of the tests and a client of it.
type S3Server struct {
	Endpoint, Key, Secret string
	Client                *s3.Client
}

var (
	s3Once sync.Once
	s3Srv  S3Server
	s3Err  error
)

// S3 is the S3 server of the tests, with S3Bucket created; a server that is not configured
// or does not answer fails the test.
func S3(t testing.TB) *S3Server {
	t.Helper()
	s3Once.Do(func() {
		s3Srv = S3Server{Endpoint: os.Getenv(envS3), Key: os.Getenv(envS3Key), Secret: os.Getenv(envS3Secret)}
		if s3Srv.Endpoint == "" || s3Srv.Key == "" || s3Srv.Secret == "" {
			s3Err = fmt.Errorf("%s, %s and %s must be set: `make s3` starts SeaweedFS (scripts/s3.sh start) and `make test` sets them", envS3, envS3Key, envS3Secret)
			return
		}
		s3Srv.Client = s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(s3Srv.Endpoint), UsePathStyle: true,
			Credentials: credentials.NewStaticCredentialsProvider(s3Srv.Key, s3Srv.Secret, "")})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := s3Srv.Client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(S3Bucket)})
		var owned *s3types.BucketAlreadyOwnedByYou
		var exists *s3types.BucketAlreadyExists
		if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
			s3Err = fmt.Errorf("create bucket %s on %s: %w (make s3 starts the server)", S3Bucket, s3Srv.Endpoint, err)
		}
	})
	if s3Err != nil {
		t.Fatal(s3Err)
	}
	return &s3Srv
}

// Keys lists the objects of S3Bucket under prefix, sorted.
func (s *S3Server) Keys(t testing.TB, prefix string) []string {
	t.Helper()
	var out []string
	pages := s3.NewListObjectsV2Paginator(s.Client, &s3.ListObjectsV2Input{Bucket: aws.String(S3Bucket), Prefix: aws.String(prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list %s: %v", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
	}
	sort.Strings(out)
	return out
}

// Clean deletes the objects of S3Bucket under prefix, as far as it can.
func (s *S3Server) Clean(t testing.TB, prefix string) {
	t.Helper()
	for _, k := range s.Keys(t, prefix) {
		s.Client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(S3Bucket), Key: aws.String(k)})
	}
}
