// Package secret keeps the secrets of job configs (passwords, keys, tokens) out of
// everything people see: the workflow input the Temporal Web UI shows, the plan in the
// workflow history, `strait plan`, the REST API and the logs.
//
// Secret values are sealed with AES-256-GCM under a key every Strait process of a cluster
// shares, and shown masked (******). Which values are secrets comes from the plugins' option
// specs (the secret flag of config.Spec) and, inside free-form maps such as kafka.config,
// from the option's name (password, secret, token, sasl.jaas.config...).
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
)

// KeySize is the size of a key: AES-256.
const KeySize = 32

// The environment variables a process reads its key from when no flag names one.
const (
	KeyEnv     = "STRAIT_SECRET_KEY"      // the key itself, 32 bytes in base64
	KeyFileEnv = "STRAIT_SECRET_KEY_FILE" // a file holding it
)

// Key seals and opens secrets. Its ID, a fingerprint, names it in errors without showing it.
type Key struct {
	aead    cipher.AEAD
	id      string
	builtin bool
}

// ParseKey reads a key written in base64 (standard or URL alphabet, padded or not).
func ParseKey(text string) (*Key, error) {
	s := strings.TrimSpace(text)
	var raw []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err = enc.DecodeString(s); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("secret key: not base64: %w", err)
	}
	if len(raw) != KeySize {
		return nil, fmt.Errorf("secret key: %d bytes, want %d (make one with: head -c 32 /dev/urandom | base64)", len(raw), KeySize)
	}
	return newKey(raw, false)
}

// NewKey makes a random key, for a process that is a cluster of its own (strait run).
func NewKey() (*Key, error) {
	raw := make([]byte, KeySize)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("secret key: random bytes: %w", err)
	}
	return newKey(raw, false)
}

// ReadKeyFile reads a key from a file.
func ReadKeyFile(path string) (*Key, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("secret key file: %w", err)
	}
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

func newKey(raw []byte, builtin bool) (*Key, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	sum := sha256.Sum256(append([]byte("strait secret key id\x00"), raw...))
	return &Key{aead: aead, id: hex.EncodeToString(sum[:4]), builtin: builtin}, nil
}

// ID is the key's fingerprint: eight hex digits, the same in every process with the key.
func (k *Key) ID() string { return k.id }

// Builtin says the key is the one every Strait binary has, used when none is configured.
func (k *Key) Builtin() bool { return k.builtin }

// describe names the key in messages.
func (k *Key) describe() string {
	if k.builtin {
		return fmt.Sprintf("the built-in key %s (no %s or --secret-key-file given)", k.id, KeyEnv)
	}
	return "key " + k.id
}

// builtinKey is derived from a fixed text: it keeps secrets out of sight where no key was
// configured, and protects them from nobody who has a Strait binary.
var builtinKey = sync.OnceValue(func() *Key {
	sum := sha256.Sum256([]byte("strait built-in secret key, v1: configure STRAIT_SECRET_KEY"))
	k, err := newKey(sum[:], true)
	if err != nil {
		panic("secret: the built-in key: " + err.Error()) // AES-256 takes any 32 bytes
	}
	return k
})

var (
	mu      sync.Mutex
	current *Key
)

// Use makes k the process's key, the one Current returns.
func Use(k *Key) {
	mu.Lock()
	defer mu.Unlock()
	current = k
}

// Current is the process's key: the one given to Use, else the one the environment names
// (STRAIT_SECRET_KEY, or the file STRAIT_SECRET_KEY_FILE), else the built-in key.
func Current() (*Key, error) {
	mu.Lock()
	defer mu.Unlock()
	if current != nil {
		return current, nil
	}
	k, err := FromEnv()
	if err != nil {
		return nil, err
	}
	if k == nil {
		k = builtinKey()
	}
	current = k
	return k, nil
}

// FromEnv is the key the environment names, nil when it names none.
func FromEnv() (*Key, error) {
	if v := os.Getenv(KeyEnv); v != "" {
		k, err := ParseKey(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", KeyEnv, err)
		}
		return k, nil
	}
	if p := os.Getenv(KeyFileEnv); p != "" {
		return ReadKeyFile(p)
	}
	return nil, nil
}

// Load is the key a process is started with: the file a flag names, else the environment's,
// else nil.
func Load(file string) (*Key, error) {
	if file != "" {
		return ReadKeyFile(file)
	}
	return FromEnv()
}

// errNotSealed is a text that is not a sealed value.
var errNotSealed = errors.New("not a sealed value")
