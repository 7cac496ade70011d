package secret_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/secret"
)

// nilStringer is a Stringer whose nil pointer panics when printed.
type nilStringer struct{ s string }

func (n *nilStringer) String() string { return n.s }

// openedSecret seals and opens a plan holding value as a password, as a runner does, so
// the process knows the value.
func openedSecret(t *testing.T, value string) {
	t.Helper()
	k := mustKey(t)
	opts, _ := json.Marshal(map[string]string{"plugin_name": "Jdbc", "url": "jdbc:postgresql://h/db", "password": value})
	plan := &contract.Plan{Vertices: []*contract.Vertex{{ID: 1, Kind: contract.SinkVertex, Plugin: "Jdbc", Where: "sink[0] Jdbc", Options: opts}}}
	if err := secret.SealPlan(k, plan); err != nil {
		t.Fatal(err)
	}
	if err := secret.OpenVertices(k, plan.Vertices); err != nil {
		t.Fatal(err)
	}
}

// Every line through the handler has its secrets masked, in the message and in attributes
// of every kind, and keeps everything else as it was.
func TestHandlerMasksSecrets(t *testing.T) {
	openedSecret(t, "opened-Secret-77")
	cases := []struct {
		name string
		log  func(l *slog.Logger)
		want []string // in the line
		not  []string // not in the line
	}{
		{"a value the process opened, in the message", func(l *slog.Logger) {
			l.Info("connect with opened-Secret-77 failed")
		}, []string{`"msg":"connect with ****** failed"`}, []string{"opened-Secret-77"}},
		{"a URL's user info in the message", func(l *slog.Logger) {
			l.Info("dial postgres://app:url-Pass-1@db:5432/x failed")
		}, []string{"postgres://app:******@db:5432/x"}, []string{"url-Pass-1"}},
		{"attributes named like secrets", func(l *slog.Logger) {
			l.Info("options", "password", "attr-Pass-1", "sasl.jaas.config", "jaas-Pass-1", "api_key", "k-123456", "pwd", "pwd-Pass-1", "user", "app")
		}, []string{`"password":"******"`, `"sasl.jaas.config":"******"`, `"api_key":"******"`, `"pwd":"******"`, `"user":"app"`},
			[]string{"attr-Pass-1", "jaas-Pass-1", "k-123456", "pwd-Pass-1"}},
		{"a DSN of name=value pairs", func(l *slog.Logger) {
			l.Info("connecting", "dsn", "host=db user=app password=dsn-Pass-1 sslmode=disable", "conn", `user=app password = 'quoted Pass-1'`)
		}, []string{`"dsn":"host=db user=app password=****** sslmode=disable"`, `"conn":"user=app password = '******'"`},
			[]string{"dsn-Pass-1", "quoted Pass-1"}},
		{"a JDBC url's parameters", func(l *slog.Logger) {
			l.Warn("url", "url", "jdbc:postgresql://db/x?user=app&password=jdbc-Pass-1&ssl=true")
		}, []string{"password=******&ssl=true"}, []string{"jdbc-Pass-1"}},
		{"JSON in the message", func(l *slog.Logger) {
			l.Info(`options {"user":"app","secret_key":"json-Pass-1"}`)
		}, []string{`\"secret_key\":\"******\"`, `\"user\":\"app\"`}, []string{"json-Pass-1"}},
		{"an error attribute", func(l *slog.Logger) {
			l.Error("task failed", "error", errors.New("insert failed: Failing row contains (1, opened-Secret-77)"))
		}, []string{`"error":"insert failed: Failing row contains (1, ******)"`}, []string{"opened-Secret-77"}},
		{"an error without a secret is left as it is", func(l *slog.Logger) {
			l.Error("task failed", "error", errors.New("connection reset"))
		}, []string{`"error":"connection reset"`}, nil},
		{"a map of options", func(l *slog.Logger) {
			l.Info("kafka", "config", map[string]string{"sasl.password": "map-Pass-1", "acks": "all"})
		}, []string{`"sasl.password":"******"`, `"acks":"all"`}, []string{"map-Pass-1"}},
		{"a map of any values", func(l *slog.Logger) {
			l.Info("env", "env", map[string]any{"token": "any-Pass-1", "parallelism": 2})
		}, []string{`"token":"******"`, `"parallelism":2`}, []string{"any-Pass-1"}},
		{"a list of strings", func(l *slog.Logger) {
			l.Info("urls", "urls", []string{"mysql://root:list-Pass-1@h/db", "http://h"})
		}, []string{`mysql://root:******@h/db`, `"http://h"`}, []string{"list-Pass-1"}},
		{"a struct that prints a secret", func(l *slog.Logger) {
			l.Info("config", "cfg", struct{ DSN string }{"postgres://u:struct-Pass-1@h/db"})
		}, []string{"postgres://u:******@h/db"}, []string{"struct-Pass-1"}},
		{"groups name the attributes inside", func(l *slog.Logger) {
			l.WithGroup("db").Info("opened", "password", "group-Pass-1", "host", "h")
			l.Info("opened", slog.Group("kafka", slog.String("ssl.key.password", "inner-Pass-1"), slog.Int("retries", 3)))
		}, []string{`"db":{"password":"******","host":"h"}`, `"kafka":{"ssl.key.password":"******","retries":3}`},
			[]string{"group-Pass-1", "inner-Pass-1"}},
		{"attributes given with With", func(l *slog.Logger) {
			l.With("token", "with-Pass-1", "runner", "r1").Info("started")
		}, []string{`"token":"******"`, `"runner":"r1"`}, []string{"with-Pass-1"}},
		{"values that are no secrets", func(l *slog.Logger) {
			l.Info("setting ignored", "key", "sasl.jaas.config", "password_file", "/etc/pw", "count", 3, "token_expired", true)
		}, []string{`"key":"sasl.jaas.config"`, `"password_file":"/etc/pw"`, `"count":3`, `"token_expired":true`}, nil},
		{"a nil Stringer", func(l *slog.Logger) {
			l.Info("nil", "v", (*nilStringer)(nil))
		}, []string{`"v":null`}, nil},
		{"a secret's name with an empty value", func(l *slog.Logger) {
			l.Info("dsn", "dsn", "user=app password= host=h")
		}, []string{`"dsn":"user=app password= host=h"`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			c.log(slog.New(secret.NewHandler(slog.NewJSONHandler(&buf, nil))))
			out := buf.String()
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("no %s in\n%s", w, out)
				}
			}
			for _, n := range c.not {
				if strings.Contains(out, n) {
					t.Errorf("%s shown in\n%s", n, out)
				}
			}
		})
	}
}

// The handler passes levels through, and wrapping a wrapped handler adds nothing.
func TestHandlerWrapsOnce(t *testing.T) {
	inner := slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelWarn})
	h := secret.NewHandler(inner)
	if secret.NewHandler(h) != h {
		t.Fatal("a wrapped handler was wrapped again")
	}
	if h.Enabled(context.Background(), slog.LevelInfo) || !h.Enabled(context.Background(), slog.LevelWarn) {
		t.Fatal("levels not passed through")
	}
}

// The secrets of a config the process opened to plan it, a URL's password among them, are
// known to RedactText.
func TestOpenSourceRemembersTheConfigsSecrets(t *testing.T) {
	k := mustKey(t)
	in := &contract.JobInput{JobID: 1, File: "job.conf", Config: `source { Jdbc {
  url = "jdbc:postgresql://h/db?user=app&password=plan-Url-Pass-9"
  password = "plan-Opt-Pass-9"
  query = "select 1"
} }
sink { Console {} }`}
	if err := secret.SealInput(k, in); err != nil {
		t.Fatal(err)
	}
	msg := "driver: auth plan-Url-Pass-9 and plan-Opt-Pass-9 refused"
	if got := secret.RedactText(msg); got != msg {
		t.Fatalf("masked before the config was opened: %s", got)
	}
	if _, err := secret.OpenSource(k, contract.ConfigSource{File: in.File, Text: in.Config, Sealed: in.Sealed}); err != nil {
		t.Fatal(err)
	}
	if got, want := secret.RedactText(msg), "driver: auth ****** and ****** refused"; got != want {
		t.Fatalf("RedactText = %q, want %q", got, want)
	}
}
