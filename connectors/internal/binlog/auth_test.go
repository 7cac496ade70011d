package binlog

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"net"
	"testing"
	"time"
)

// fakeServer accepts one login the way a MySQL 8 server does: it greets with plugin, then
// checks the client's answers as a server checks them (from the stored hash of the
// password, not the password), and says whether it let the client in.
type fakeServer struct {
	plugin   string // announced in the greeting
	switchTo string // if set, asks the client to switch to this plugin
	fullAuth bool   // caching_sha2_password: the cache is cold, so full authentication
	password string
	key      *rsa.PrivateKey
	nonce    []byte
}

func (s *fakeServer) serve(t *testing.T, nc net.Conn) (ok bool, err error) {
	defer nc.Close()
	p := newPackets(nc)
	s.nonce = bytes.Repeat([]byte{'n'}, 20)
	g := append([]byte{10}, "8.0.36\x00"...)
	g = binary.LittleEndian.AppendUint32(g, 1)
	g = append(g, s.nonce[:8]...)
	g = append(g, 0)
	caps := uint32(capProtocol41 | capSecureConnection | capPluginAuth | capPluginAuthLenenc | capConnectWithDB)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps))
	g = append(g, charsetUTF8MB4, 2, 0)
	g = binary.LittleEndian.AppendUint16(g, uint16(caps>>16))
	g = append(g, 21)
	g = append(g, make([]byte, 10)...)
	g = append(append(g, s.nonce[8:]...), 0)
	g = append(append(g, s.plugin...), 0)
	if err := p.write(g); err != nil {
		return false, err
	}
	resp, err := p.read()
	if err != nil {
		return false, err
	}
	r := &reader{b: resp}
	r.skip(32)
	r.cstring() // user
	answer := append([]byte(nil), r.lenencBytes()...)
	plugin := s.plugin
	if s.switchTo != "" {
		plugin = s.switchTo
		s.nonce = bytes.Repeat([]byte{'s'}, 20)
		if err := p.write(append(append(append([]byte{0xFE}, plugin...), 0), append(s.nonce, 0)...)); err != nil {
			return false, err
		}
		if answer, err = p.read(); err != nil {
			return false, err
		}
		answer = append([]byte(nil), answer...)
	}
	switch plugin {
	case nativePassword:
		ok = s.checkNative(answer)
	case cachingSHA2:
		if ok, err = s.checkSHA2(p, answer); err != nil {
			return false, err
		}
	}
	if ok {
		return true, p.write([]byte{0, 0, 0, 2, 0, 0, 0})
	}
	return false, p.write(append([]byte{0xFF, 0x15, 0x04}, "#28000Access denied"...))
}

// checkNative checks SHA1(answer XOR SHA1(nonce + stored)) == stored, stored being
// SHA1(SHA1(password)).
func (s *fakeServer) checkNative(answer []byte) bool {
	h1 := sha1.Sum([]byte(s.password))
	stored := sha1.Sum(h1[:])
	h := sha1.New()
	h.Write(s.nonce)
	h.Write(stored[:])
	x := h.Sum(nil)
	if len(answer) != len(x) {
		return false
	}
	for i := range x {
		x[i] ^= answer[i]
	}
	got := sha1.Sum(x)
	return got == stored
}

func (s *fakeServer) checkSHA2(p *packets, answer []byte) (bool, error) {
	if !s.fullAuth {
		h1 := sha256.Sum256([]byte(s.password))
		stored := sha256.Sum256(h1[:])
		h := sha256.New()
		h.Write(stored[:])
		h.Write(s.nonce)
		x := h.Sum(nil)
		if len(answer) != len(x) {
			return false, nil
		}
		for i := range x {
			x[i] ^= answer[i]
		}
		if sha256.Sum256(x) != stored {
			return false, nil
		}
		return true, p.write([]byte{1, 3})
	}
	if err := p.write([]byte{1, 4}); err != nil {
		return false, err
	}
	req, err := p.read()
	if err != nil || !bytes.Equal(req, []byte{2}) {
		return false, err
	}
	der, _ := x509.MarshalPKIXPublicKey(&s.key.PublicKey)
	if err := p.write(append([]byte{1}, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})...)); err != nil {
		return false, err
	}
	enc, err := p.read()
	if err != nil {
		return false, err
	}
	plain, err := rsa.DecryptOAEP(sha1.New(), nil, s.key, enc, nil)
	if err != nil {
		return false, nil
	}
	for i := range plain {
		plain[i] ^= s.nonce[i%len(s.nonce)]
	}
	return string(plain) == s.password+"\x00", nil
}

func TestAuthentication(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		server fakeServer
		pass   string
		ok     bool
	}{
		{"mysql_native_password", fakeServer{plugin: nativePassword}, "secret", true},
		{"mysql_native_password, wrong password", fakeServer{plugin: nativePassword}, "wrong", false},
		{"caching_sha2_password, cached", fakeServer{plugin: cachingSHA2}, "secret", true},
		{"caching_sha2_password, wrong password", fakeServer{plugin: cachingSHA2}, "wrong", false},
		{"caching_sha2_password, full authentication with the server's key", fakeServer{plugin: cachingSHA2, fullAuth: true}, "secret", true},
		{"caching_sha2_password, full authentication, wrong password", fakeServer{plugin: cachingSHA2, fullAuth: true}, "wrong", false},
		{"switched from native to caching_sha2_password", fakeServer{plugin: nativePassword, switchTo: cachingSHA2}, "secret", true},
		{"switched to mysql_native_password", fakeServer{plugin: cachingSHA2, switchTo: nativePassword}, "secret", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			srv := tt.server
			srv.password, srv.key = "secret", key
			type result struct {
				ok  bool
				err error
			}
			done := make(chan result, 1)
			go func() {
				nc, err := ln.Accept()
				if err != nil {
					done <- result{err: err}
					return
				}
				ok, err := srv.serve(t, nc)
				done <- result{ok, err}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := Dial(ctx, Config{Addr: ln.Addr().String(), User: "u", Password: tt.pass, Database: "db"})
			res := <-done
			if res.err != nil {
				t.Fatalf("server: %v", res.err)
			}
			if res.ok != tt.ok || (err == nil) != tt.ok {
				t.Fatalf("server let in: %v, client: %v; want %v", res.ok, err, tt.ok)
			}
			if err != nil {
				if !IsCode(err, ErrAccessDenied) {
					t.Fatalf("error %v is not access denied", err)
				}
				return
			}
			c.p.conn.Close()
		})
	}
}
