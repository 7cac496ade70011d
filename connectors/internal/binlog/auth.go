package binlog

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// The authentication plugins a connection can answer.
const (
	nativePassword     = "mysql_native_password"
	cachingSHA2        = "caching_sha2_password"
	clearPassword      = "mysql_clear_password"
	sha256PasswordAuth = "sha256_password"
)

// scrambleNative is mysql_native_password's answer to the nonce:
// SHA1(password) XOR SHA1(nonce + SHA1(SHA1(password))).
func scrambleNative(nonce []byte, password string) []byte {
	if password == "" {
		return nil
	}
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	h := sha1.New()
	h.Write(nonce)
	h.Write(h2[:])
	out := h.Sum(nil)
	for i := range out {
		out[i] ^= h1[i]
	}
	return out
}

// scrambleSHA2 is caching_sha2_password's fast answer to the nonce:
// SHA256(password) XOR SHA256(SHA256(SHA256(password)) + nonce).
func scrambleSHA2(nonce []byte, password string) []byte {
	if password == "" {
		return nil
	}
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	h := sha256.New()
	h.Write(h2[:])
	h.Write(nonce)
	out := h.Sum(nil)
	for i := range out {
		out[i] ^= h1[i]
	}
	return out
}

// authAnswer is the first answer a plugin gives to the server's nonce.
func authAnswer(plugin string, nonce []byte, password string) ([]byte, error) {
	switch plugin {
	case nativePassword:
		return scrambleNative(nonce, password), nil
	case cachingSHA2:
		return scrambleSHA2(nonce, password), nil
	case sha256PasswordAuth:
		if password == "" {
			return []byte{0}, nil
		}
		return []byte{1}, nil // ask for the server's public key
	case clearPassword:
		return append([]byte(password), 0), nil
	}
	return nil, fmt.Errorf("the server asks for authentication plugin %s, which Strait does not speak (it speaks %s and %s)", plugin, nativePassword, cachingSHA2)
}

// encryptPassword encrypts the password (NUL-terminated, XORed with the nonce) with the
// server's RSA public key, as caching_sha2_password's full authentication does over a
// connection that is not encrypted.
func encryptPassword(pemKey []byte, nonce []byte, password string) ([]byte, error) {
	block, _ := pem.Decode(pemKey)
	if block == nil {
		return nil, errors.New("the server's public key is not PEM")
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the server's public key: %w", err)
	}
	pub, ok := key.(*rsa.PublicKey)
	if !ok {
		return nil, errors.New("the server's public key is not an RSA key")
	}
	plain := append([]byte(password), 0)
	for i := range plain {
		plain[i] ^= nonce[i%len(nonce)]
	}
	return rsa.EncryptOAEP(sha1.New(), rand.Reader, pub, plain, nil)
}
