package checkpointstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds"
)

// Credential providers of the S3 store, tried in the order given.
const (
	// ProviderStatic signs with the configured access key and secret (and session token):
	// Hadoop's SimpleAWSCredentialsProvider and TemporaryAWSCredentialsProvider.
	ProviderStatic = "static"
	// ProviderEnv reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (or
	// AWS_ACCESS_KEY and AWS_SECRET_KEY): EnvironmentVariableCredentialsProvider.
	ProviderEnv = "env"
	// ProviderInstanceProfile asks the EC2 instance metadata service for the instance
	// role's credentials: InstanceProfileCredentialsProvider.
	ProviderInstanceProfile = "instance-profile"
	// ProviderDefault is the AWS SDK's default chain: the environment, the shared config
	// and credentials files (AWS_PROFILE), web identity, the container and the instance
	// role.
	ProviderDefault = "default"
)

// Providers lists the credential providers the S3 store knows.
var Providers = []string{ProviderStatic, ProviderEnv, ProviderInstanceProfile, ProviderDefault}

// Credentials says how the S3 store signs its requests.
type Credentials struct {
	// Providers are tried in order until one gives credentials. Empty means static when
	// an access key is given, else the default chain.
	Providers                          []string
	AccessKey, SecretKey, SessionToken string
}

func (c Credentials) providers() []string {
	if len(c.Providers) > 0 {
		return c.Providers
	}
	if c.AccessKey != "" {
		return []string{ProviderStatic}
	}
	return []string{ProviderDefault}
}

// describe names the providers for messages (never the secrets).
func (c Credentials) describe() string {
	ps := c.providers()
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p
		if p == ProviderStatic && c.AccessKey != "" {
			out[i] = fmt.Sprintf("static (access key %s)", c.AccessKey)
		}
	}
	return strings.Join(out, ", then ")
}

// provider is the SDK credentials provider; nil leaves the SDK's default chain.
func (c Credentials) provider() (aws.CredentialsProvider, error) {
	ps := c.providers()
	if len(ps) == 1 && ps[0] == ProviderDefault {
		return nil, nil
	}
	chain := make(chain, 0, len(ps))
	for _, p := range ps {
		one, err := c.one(p)
		if err != nil {
			return nil, err
		}
		chain = append(chain, named{name: p, p: one})
	}
	if len(chain) == 1 {
		return aws.NewCredentialsCache(chain[0].p), nil
	}
	return aws.NewCredentialsCache(chain), nil
}

func (c Credentials) one(p string) (aws.CredentialsProvider, error) {
	switch p {
	case ProviderStatic:
		if c.AccessKey == "" || c.SecretKey == "" {
			return nil, errors.New("credentials: the static provider needs an access key and a secret key")
		}
		return credentials.NewStaticCredentialsProvider(c.AccessKey, c.SecretKey, c.SessionToken), nil
	case ProviderEnv:
		return aws.CredentialsProviderFunc(fromEnv), nil
	case ProviderInstanceProfile:
		return ec2rolecreds.New(), nil
	case ProviderDefault:
		return defaultChain{}, nil
	}
	return nil, fmt.Errorf("credentials: unknown provider %q (known: %s)", p, strings.Join(Providers, ", "))
}

// fromEnv reads the credentials of the environment at each refresh, as the SDKs'
// environment providers do.
func fromEnv(context.Context) (aws.Credentials, error) {
	id := firstEnv("AWS_ACCESS_KEY_ID", "AWS_ACCESS_KEY")
	secret := firstEnv("AWS_SECRET_ACCESS_KEY", "AWS_SECRET_KEY")
	if id == "" || secret == "" {
		return aws.Credentials{}, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set")
	}
	return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: os.Getenv("AWS_SESSION_TOKEN"),
		Source: "environment"}, nil
}

func firstEnv(keys ...string) string {
	for _, k := range keys {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return ""
}

// defaultChain is the SDK's default chain as one link of a chain of Strait's.
type defaultChain struct{}

func (defaultChain) Retrieve(ctx context.Context) (aws.Credentials, error) {
	cfg, err := loadDefaultCredentials(ctx)
	if err != nil {
		return aws.Credentials{}, err
	}
	return cfg.Retrieve(ctx)
}

func loadDefaultCredentials(ctx context.Context) (aws.CredentialsProvider, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("the default chain: %w", err)
	}
	if cfg.Credentials == nil {
		return nil, errors.New("the default chain found no credentials")
	}
	return cfg.Credentials, nil
}

type named struct {
	name string
	p    aws.CredentialsProvider
}

// chain tries its providers in order; the first that gives credentials wins.
type chain []named

func (c chain) Retrieve(ctx context.Context) (aws.Credentials, error) {
	var errs []error
	for _, n := range c {
		cr, err := n.p.Retrieve(ctx)
		if err == nil {
			return cr, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", n.name, err))
	}
	return aws.Credentials{}, fmt.Errorf("no provider gave credentials: %w", errors.Join(errs...))
}

// HadoopProvider maps a Hadoop or AWS SDK credentials provider class, by its class name
// whatever its package (org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider,
// com.amazonaws.auth.InstanceProfileCredentialsProvider, ...), onto a provider of the S3
// client: what SeaTunnel's fs.s3a.aws.credentials.provider names.
func HadoopProvider(class string) (string, bool) {
	switch class[strings.LastIndex(class, ".")+1:] {
	case "SimpleAWSCredentialsProvider", "TemporaryAWSCredentialsProvider", "StaticCredentialsProvider":
		return ProviderStatic, true
	case "EnvironmentVariableCredentialsProvider":
		return ProviderEnv, true
	case "InstanceProfileCredentialsProvider", "IAMInstanceCredentialsProvider":
		return ProviderInstanceProfile, true
	case "DefaultAWSCredentialsProviderChain", "DefaultCredentialsProvider":
		return ProviderDefault, true
	}
	return "", false
}
