package s3file

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/config"
	"github.com/strait-dev/strait/connector"
	"github.com/strait-dev/strait/connectors/file"
	_ "github.com/strait-dev/strait/connectors/file"
)

// s3Options are SeaTunnel's S3File options beside LocalFile's (S3ConfigOptions).
var s3Options = []string{"bucket", "fs.s3a.endpoint", "fs.s3a.aws.credentials.provider", "access_key", "secret_key", "hadoop_s3_properties"}

func field(s *config.Spec, name string) (config.Field, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return config.Field{}, false
}

// TestSpecsAreLocalFilesAndS3s: S3File's source and sink read every option of the file
// core (LocalFile's), with the same defaults, and SeaTunnel's S3 options, secret_key masked.
func TestSpecsAreLocalFilesAndS3s(t *testing.T) {
	core := map[string]*config.Spec{"source": config.SpecOf[file.SourceConfig](), "sink": config.SpecOf[file.SinkConfig]()}
	for _, kind := range []string{"source", "sink"} {
		s3p, ok := connector.LookupPlugin(kind, "S3File")
		if !ok || s3p.Spec == nil || s3p.Doc == "" {
			t.Fatalf("the S3File %s is not registered with a spec and a doc", kind)
		}
		for _, lf := range core[kind].Fields {
			f, ok := field(s3p.Spec, lf.Name)
			if !ok {
				t.Errorf("%s: LocalFile's option %s is missing", kind, lf.Name)
				continue
			}
			if f.Default != lf.Default || f.Type != lf.Type {
				t.Errorf("%s: %s is %s default %q, LocalFile's %s default %q", kind, lf.Name, f.Type, f.Default, lf.Type, lf.Default)
			}
		}
		for _, n := range s3Options {
			if _, ok := field(s3p.Spec, n); !ok {
				t.Errorf("%s: SeaTunnel's option %s is missing", kind, n)
			}
		}
		if f, _ := field(s3p.Spec, "secret_key"); !f.Secret {
			t.Errorf("%s: secret_key is not secret", kind)
		}
		if f, _ := field(s3p.Spec, "fs.s3a.aws.credentials.provider"); f.Default != "com.amazonaws.auth.InstanceProfileCredentialsProvider" {
			t.Errorf("%s: the provider's default is %q, SeaTunnel's is the instance profile", kind, f.Default)
		}
	}
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]int64{"5M": 5 << 20, "64m": 64 << 20, "1G": 1 << 30, "8388608": 8 << 20, " 16K ": 16 << 10} {
		if got, err := byteSize(in); err != nil || got != want {
			t.Errorf("byteSize(%q) = %d, %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "-1", "5X", "1.5M"} {
		if _, err := byteSize(in); err == nil {
			t.Errorf("byteSize(%q) accepted", in)
		}
	}
}

func TestAbs(t *testing.T) {
	f := &FS{bucket: "b"}
	for in, want := range map[string]string{"/a/b": "/a/b", "a/b/": "/a/b", "s3a://b/a/b": "/a/b", "s3a://b": "/", "/a/../c": "/c", "": "/"} {
		if got := f.Abs(in); got != want {
			t.Errorf("Abs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAWSEndpoint(t *testing.T) {
	for region, want := range map[string]string{
		"":           "https://s3.us-east-1.amazonaws.com",
		" eu-west-1": "https://s3.eu-west-1.amazonaws.com",
		"cn-north-1": "https://s3.cn-north-1.amazonaws.com.cn",
	} {
		if got := awsEndpoint(region); got != want {
			t.Errorf("awsEndpoint(%q) = %s, want %s", region, got, want)
		}
		if got := regionOf(awsEndpoint(region)); region != "" && got != strings.TrimSpace(region) {
			t.Errorf("regionOf(awsEndpoint(%q)) = %s", region, got)
		}
	}
}
