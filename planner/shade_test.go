package planner

import (
	"strings"
	"testing"

	"github.com/strait-dev/strait/contract"
)

func TestShade(t *testing.T) {
	const job = `env { shade.identifier = %s }
source { FakeSource { username = "%s", password = "%s", schema = { fields { id = int } } } }
sink { Console { token = "%s" } }`
	for _, tc := range []struct {
		name, env, user, pass, token string
		wantUser, wantPass, wantTok  string
		err                          string
	}{
		{name: "base64", env: "base64", user: "c2VhdHVubmVs", pass: "c2VhdHVubmVsX3Bhc3N3b3Jk", token: "dG9rZW4=",
			wantUser: "seatunnel", wantPass: "seatunnel_password", wantTok: "token"},
		{name: "default leaves them", env: "default", user: "c2VhdHVubmVs", pass: "x", token: "y",
			wantUser: "c2VhdHVubmVs", wantPass: "x", wantTok: "y"},
		{name: "not base64", env: "base64", user: "not base64!", pass: "eA==", token: "eA==",
			err: "source[0] FakeSource: option username is not base64 as env.shade.identifier = base64 wants (at job.conf:2:"},
		{name: "unknown shade", env: "aes", err: `shade.identifier: unknown config shade "aes"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(job, "%s", tc.env, 1)
			for _, v := range []string{tc.user, tc.pass, tc.token} {
				text = strings.Replace(text, "%s", v, 1)
			}
			jc, err := Parse(contract.ConfigSource{File: "job.conf", Text: text})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			src, sink := jc.Sources[0].Options, jc.Sinks[0].Options
			if got := src.Get("username").Str; got != tc.wantUser {
				t.Errorf("username %q, want %q", got, tc.wantUser)
			}
			if got := src.Get("password").Str; got != tc.wantPass {
				t.Errorf("password %q, want %q", got, tc.wantPass)
			}
			if got := sink.Get("token").Str; got != tc.wantTok {
				t.Errorf("token %q, want %q", got, tc.wantTok)
			}
		})
	}
}
