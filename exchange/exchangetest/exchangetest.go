// Package exchangetest holds what the tests of the exchange's transport share: a client's
// attempt to open a stream, to see whether a server's TLS lets it in.
package exchangetest

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	exchangev1 "github.com/strait-dev/strait/proto/exchange/v1"
)

// Transfer opens an exchange stream to addr with creds and returns why it failed (nil when
// the server took it).
func Transfer(t testing.TB, addr string, creds credentials.TransportCredentials) error {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	stream, err := exchangev1.NewExchangeClient(cc).Transfer(ctx)
	if err != nil {
		return err
	}
	// TLS 1.3 ends a client's handshake before the server checked its certificate: the
	// refusal arrives on the stream
	_, err = stream.Recv()
	return err
}
