package secret

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"
)

// Prefix starts every sealed value: strait-sealed:v1:<key id>:<nonce and ciphertext in
// base64url>. The key id and the version are authenticated with the ciphertext.
const Prefix = "strait-sealed:v1:"

// Mask is how a secret is shown.
const Mask = "******"

// WrongKeyError is a sealed value that another key sealed.
type WrongKeyError struct {
	SealedWith string // the id of the key that sealed it
	Have       *Key
}

func (e *WrongKeyError) Error() string {
	return fmt.Sprintf("sealed under secret key %s, and this process has %s: give every Strait process of the cluster the same key (%s or --secret-key-file)",
		e.SealedWith, e.Have.describe(), KeyEnv)
}

// IsSealed says whether s is a sealed value.
func IsSealed(s string) bool { return strings.HasPrefix(s, Prefix) }

// Seal encrypts plain under the key.
func (k *Key) Seal(plain []byte) (string, error) {
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plain)+k.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal: random nonce: %w", err)
	}
	out := k.aead.Seal(nonce, nonce, plain, k.header())
	return string(k.header()) + base64.RawURLEncoding.EncodeToString(out), nil
}

// SealString is Seal of a string.
func (k *Key) SealString(plain string) (string, error) { return k.Seal([]byte(plain)) }

// Open decrypts a sealed value; one sealed under another key, or changed after sealing, is
// refused.
func (k *Key) Open(sealed string) ([]byte, error) {
	rest, ok := strings.CutPrefix(sealed, Prefix)
	if !ok {
		return nil, errNotSealed
	}
	id, body, ok := strings.Cut(rest, ":")
	if !ok {
		return nil, fmt.Errorf("open a sealed value: no key id")
	}
	if id != k.id {
		return nil, &WrongKeyError{SealedWith: id, Have: k}
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("open a sealed value: not base64: %w", err)
	}
	n := k.aead.NonceSize()
	if len(raw) < n+k.aead.Overhead() {
		return nil, fmt.Errorf("open a sealed value: %d bytes, too short", len(raw))
	}
	plain, err := k.aead.Open(nil, raw[:n], raw[n:], k.header())
	if err != nil {
		return nil, fmt.Errorf("open a sealed value under %s: it was changed after sealing or is damaged: %w", k.describe(), err)
	}
	return plain, nil
}

// OpenString is Open to a string.
func (k *Key) OpenString(sealed string) (string, error) {
	b, err := k.Open(sealed)
	return string(b), err
}

// header is what precedes the ciphertext, bound to it as additional data.
func (k *Key) header() []byte { return []byte(Prefix + k.id + ":") }
