package secret_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	_ "github.com/strait-dev/strait/connectors/all"
	"github.com/strait-dev/strait/contract"
	"github.com/strait-dev/strait/secret"
)

func mustKey(t *testing.T) *secret.Key {
	t.Helper()
	k, err := secret.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSealOpenRoundTrip(t *testing.T) {
	k := mustKey(t)
	for _, plain := range []string{"", "test", "p@ss \"quoted\" ünïcode", strings.Repeat("x", 10000)} {
		s, err := k.SealString(plain)
		if err != nil {
			t.Fatal(err)
		}
		if !secret.IsSealed(s) || (plain != "" && strings.Contains(s, plain)) {
			t.Fatalf("sealed %q = %q", plain, s)
		}
		got, err := k.OpenString(s)
		if err != nil || got != plain {
			t.Fatalf("open(seal(%q)) = %q, %v", plain, got, err)
		}
	}
	a, _ := k.SealString("same")
	b, _ := k.SealString("same")
	if a == b {
		t.Fatal("two seals of one value are equal: the nonce is not fresh")
	}
}

func TestOpenWithAnotherKeyNamesBoth(t *testing.T) {
	k1, k2 := mustKey(t), mustKey(t)
	s, err := k1.SealString("test")
	if err != nil {
		t.Fatal(err)
	}
	_, err = k2.OpenString(s)
	var wk *secret.WrongKeyError
	if !errors.As(err, &wk) {
		t.Fatalf("open under another key: %v", err)
	}
	if wk.SealedWith != k1.ID() || !strings.Contains(err.Error(), k1.ID()) || !strings.Contains(err.Error(), k2.ID()) || !strings.Contains(err.Error(), secret.KeyEnv) {
		t.Fatalf("the error names neither key nor the way out: %v", err)
	}
}

func TestOpenRefusesTamperedValue(t *testing.T) {
	k := mustKey(t)
	s, err := k.SealString("test")
	if err != nil {
		t.Fatal(err)
	}
	head := s[:strings.LastIndexByte(s, ':')+1]
	raw, err := base64.RawURLEncoding.DecodeString(s[len(head):])
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		bad := append([]byte(nil), raw...)
		bad[i] ^= 0x01
		if _, err := k.OpenString(head + base64.RawURLEncoding.EncodeToString(bad)); err == nil {
			t.Fatalf("a value changed at byte %d opened", i)
		}
	}
	if _, err := k.OpenString(head + "AAAA"); err == nil {
		t.Fatal("a truncated value opened")
	}
}

func TestParseKey(t *testing.T) {
	raw := make([]byte, 32)
	for i := range raw {
		raw[i] = byte(i)
	}
	for _, text := range []string{base64.StdEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw) + "\n"} {
		k, err := secret.ParseKey(text)
		if err != nil {
			t.Fatalf("ParseKey(%q): %v", text, err)
		}
		if k.ID() == "" || strings.Contains(text, k.ID()) {
			t.Fatalf("key id %q", k.ID())
		}
	}
	k1, _ := secret.ParseKey(base64.StdEncoding.EncodeToString(raw))
	k2, _ := secret.ParseKey(base64.RawStdEncoding.EncodeToString(raw))
	if k1.ID() != k2.ID() {
		t.Fatal("one key written two ways has two ids")
	}
	for _, bad := range []string{"", "not base64!", base64.StdEncoding.EncodeToString(raw[:16])} {
		if _, err := secret.ParseKey(bad); err == nil {
			t.Fatalf("ParseKey(%q) accepted", bad)
		}
	}
}

func TestCurrentReadsTheEnvironment(t *testing.T) {
	k := mustKey(t)
	s, _ := k.SealString("x")
	raw := make([]byte, 32)
	raw[0] = 7
	t.Setenv(secret.KeyEnv, base64.StdEncoding.EncodeToString(raw))
	env, err := secret.FromEnv()
	if err != nil || env == nil {
		t.Fatalf("FromEnv: %v, %v", env, err)
	}
	if _, err := env.OpenString(s); err == nil {
		t.Fatal("the environment's key opened another key's value")
	}
	t.Setenv(secret.KeyEnv, "short")
	if _, err := secret.FromEnv(); err == nil || !strings.Contains(err.Error(), secret.KeyEnv) {
		t.Fatalf("a bad %s: %v", secret.KeyEnv, err)
	}
}

// TestMaskTextPerPlugin masks, in configs of real plugins, exactly the options their specs
// mark secret and the secrets of their free-form maps, and keeps every other byte.
func TestMaskTextPerPlugin(t *testing.T) {
	cases := []struct {
		name    string
		config  string
		secrets []string // values that must not be left
		kept    []string // values that must be left as written
	}{
		{"Jdbc password", `source { Jdbc { url = "jdbc:postgresql://127.0.0.1:5432/test", driver = "org.postgresql.Driver", user = "app", password = "pg-Secret1", query = "select 1" } }
sink { Console {} }`, []string{"pg-Secret1"}, []string{`user = "app"`, `query = "select 1"`, `url = "jdbc:postgresql://127.0.0.1:5432/test"`}},
		{"Jdbc driver properties", "source { Jdbc { url = \"jdbc:postgresql://h/db\"\n  query = \"select 1\"\n  properties { password = \"prop-pw\", sslmode = disable } } }", []string{"prop-pw"}, []string{"sslmode = disable"}},
		{"Jdbc sink unquoted password", "sink {\n  Jdbc {\n    url = \"jdbc:postgresql://h/db\"\n    password = unquotedSecret # the password\n    table = t\n  }\n}", []string{"unquotedSecret"}, []string{"# the password", "table = t"}},
		{"S3 secret key", `sink { S3File { bucket = "s3a://b", path = "/out", fs.s3a.endpoint = "http://127.0.0.1:8333", access_key = "AKIDPUBLIC", secret_key = "s3-Secret2", hadoop_s3_properties { "fs.s3a.session.token" = "sess-Token3", "fs.s3a.path.style.access" = "true" } } }`, []string{"s3-Secret2", "sess-Token3"}, []string{`access_key = "AKIDPUBLIC"`, `"fs.s3a.path.style.access" = "true"`}},
		{"Kafka sasl.jaas.config", `source { Kafka { bootstrap.servers = "k:9092", topic = "t", kafka.config = { security.protocol = SASL_PLAINTEXT, sasl.mechanism = PLAIN, sasl.jaas.config = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"kafka-Secret4\";" } } }`, []string{"kafka-Secret4"}, []string{"security.protocol = SASL_PLAINTEXT", "sasl.mechanism = PLAIN"}},
		{"MySQL-CDC password", "source {\n  MySQL-CDC {\n    base-url = \"jdbc:mysql://127.0.0.1:3306/db\"\n    username = \"root\"\n    password = \"\"\"my-Secret5\"\"\"\n    table-names = [\"db.t\"]\n  }\n}", []string{"my-Secret5"}, []string{`username = "root"`, `table-names = ["db.t"]`}},
		{"Postgres-CDC password", `source { Postgres-CDC { base-url = "jdbc:postgresql://h:5432/db", username = "u", password = "pgcdc-Secret6", database-names = ["db"], table-names = ["db.public.t"] } }`, []string{"pgcdc-Secret6"}, []string{`username = "u"`}},
		{"a plugin this binary lacks, by names", `sink { Elasticsearch { hosts = ["h:9200"], username = "elastic", password = "es-Secret7", index = "i" } }`, []string{"es-Secret7"}, []string{`index = "i"`}},
		{"env by names", `env { job.mode = BATCH, some.api_key = "env-Secret8" }
source { FakeSource {} }`, []string{"env-Secret8"}, []string{"job.mode = BATCH"}},
		{"JSON", `{"env": {"job.mode": "BATCH"}, "source": [{"plugin_name": "Jdbc", "url": "jdbc:postgresql://h/db", "password": "json-Secret9", "query": "select 1"}], "sink": [{"plugin_name": "Console"}]}`, []string{"json-Secret9"}, []string{`"query": "select 1"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := "job.conf"
			if strings.HasPrefix(c.config, "{") {
				file = "job.json"
			}
			masked, _, found, err := secret.MaskText(c.config, file, nil)
			if err != nil {
				t.Fatal(err)
			}
			if found == 0 || !strings.Contains(masked, secret.Mask) {
				t.Fatalf("no secret found in\n%s", masked)
			}
			for _, s := range c.secrets {
				if strings.Contains(masked, s) {
					t.Errorf("%q is left in\n%s", s, masked)
				}
			}
			for _, k := range c.kept {
				if !strings.Contains(masked, k) {
					t.Errorf("%q is not kept as written in\n%s", k, masked)
				}
			}
			if again, _, _, err := secret.MaskText(masked, file, nil); err != nil || again != masked {
				t.Errorf("the masked config does not parse as a config, or masks again differently: %v", err)
			}
		})
	}
}

func TestMaskTextLeavesAConfigWithoutSecrets(t *testing.T) {
	conf := "env { job.mode = BATCH }\nsource { FakeSource { row.num = 5, schema { fields { password = string } } } }\nsink { Console {} }\n"
	masked, _, found, err := secret.MaskText(conf, "job.conf", nil)
	if err != nil || found != 0 || masked != conf {
		t.Fatalf("MaskText = %q, %d, %v", masked, found, err)
	}
}

func TestMaskTextMasksVarsThatHoldSecrets(t *testing.T) {
	conf := `source { Jdbc { url = "jdbc:postgresql://h/db", password = ${pw}, query = "select ${n}" } }`
	conf += "\nsink { Jdbc { url = ${u}, query = \"insert\" } }"
	masked, vars, found, err := secret.MaskText(conf, "job.conf", map[string]string{"pw": "var-Secret", "n": "1", "db_password": "other",
		"u": "jdbc:postgresql://h/db?password=url-Var-Secret"})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 || !strings.Contains(masked, "password = ${pw}") {
		t.Fatalf("masked: %d\n%s", found, masked)
	}
	if vars["pw"] != secret.Mask || vars["db_password"] != secret.Mask || vars["n"] != "1" || vars["u"] != "jdbc:postgresql://h/db?password=******" {
		t.Fatalf("vars = %v", vars)
	}
}

func TestSealInputRoundTrip(t *testing.T) {
	k := mustKey(t)
	conf := "source { Jdbc { url = \"jdbc:postgresql://h/db\", password = \"in-Secret\", query = \"select 1\" } }\nsink { Console {} }"
	in := contract.JobInput{JobID: 7, Config: conf, File: "job.conf", Vars: map[string]string{"x": "1"}}
	if err := secret.SealInput(k, &in); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(in)
	if strings.Contains(string(b), "in-Secret") || in.Sealed == "" || !strings.Contains(in.Config, `password = "******"`) {
		t.Fatalf("the input shows the secret, or holds no sealed config: %s", b)
	}
	src, err := secret.OpenSource(k, contract.ConfigSource{File: in.File, Text: in.Config, Vars: in.Vars, Sealed: in.Sealed})
	if err != nil || src.Text != conf || src.Vars["x"] != "1" || src.Sealed != "" {
		t.Fatalf("OpenSource = %+v, %v", src, err)
	}
	if _, err := secret.OpenSource(mustKey(t), contract.ConfigSource{File: in.File, Text: in.Config, Sealed: in.Sealed}); err == nil {
		t.Fatal("another key opened the sealed config")
	}
	// the secrets fit only the masked copy they were sealed with
	changed := strings.Replace(in.Config, "select 1", "select 2", 1)
	if _, err := secret.OpenSource(k, contract.ConfigSource{File: in.File, Text: changed, Sealed: in.Sealed}); err == nil {
		t.Fatal("a changed masked config opened")
	}
	// what is sealed is the secrets, not the config again: a large config does not double
	large := contract.JobInput{Config: conf + strings.Repeat("\n# a comment line that makes the config large", 20000), File: "job.conf"}
	if err := secret.SealInput(k, &large); err != nil {
		t.Fatal(err)
	}
	if len(large.Sealed) > 1024 {
		t.Errorf("the sealed field is %d bytes for a config of %d", len(large.Sealed), len(large.Config))
	}
	// a config that does not parse is sealed whole
	bad := contract.JobInput{Config: `source { Jdbc { password = "bad-Secret" `, File: "job.conf"}
	if err := secret.SealInput(k, &bad); err != nil || strings.Contains(bad.Config, "bad-Secret") || bad.Sealed == "" {
		t.Fatalf("an unparsable config: %+v, %v", bad, err)
	}
	if src, err := secret.OpenSource(k, contract.ConfigSource{Text: bad.Config, Sealed: bad.Sealed}); err != nil || !strings.Contains(src.Text, "bad-Secret") {
		t.Fatalf("an unparsable config opened: %+v, %v", src, err)
	}
	// a plain input (a job started by hand, or before configs were sealed) plans as it is
	plain := contract.ConfigSource{File: "job.conf", Text: conf}
	if src, err := secret.OpenSource(k, plain); err != nil || src.Text != conf {
		t.Fatalf("plain source = %+v, %v", src, err)
	}
	// a config without secrets is not sealed
	free := contract.JobInput{Config: "source { FakeSource {} }\nsink { Console {} }"}
	if err := secret.SealInput(k, &free); err != nil || free.Sealed != "" {
		t.Fatalf("a config without secrets: %+v, %v", free, err)
	}
}

func TestSealPlanAndOpenVertices(t *testing.T) {
	k := mustKey(t)
	opts := `{"plugin_name":"Jdbc","url":"jdbc:postgresql://h/db","user":"app","password":"plan-Secret","query":"select 1","properties":{"password":"prop-Secret","sslmode":"disable"}}`
	plan := &contract.Plan{Vertices: []*contract.Vertex{
		{ID: 1, Kind: contract.SourceVertex, Plugin: "Jdbc", Where: "source[0] Jdbc", Options: json.RawMessage(opts)},
		{ID: 2, Kind: contract.SinkVertex, Plugin: "Console", Where: "sink[0] Console", Options: json.RawMessage(`{"plugin_name":"Console"}`)},
	}}
	if err := secret.SealPlan(k, plan); err != nil {
		t.Fatal(err)
	}
	sealed := string(plan.Vertices[0].Options)
	if strings.Contains(sealed, "plan-Secret") || strings.Contains(sealed, "prop-Secret") || !strings.Contains(sealed, `"user":"app"`) || !json.Valid(plan.Vertices[0].Options) {
		t.Fatalf("sealed options: %s", sealed)
	}
	masked, err := secret.MaskOptions("source", "Jdbc", plan.Vertices[0].Options)
	if err != nil || strings.Contains(masked, secret.Prefix) || !strings.Contains(masked, `"password":"******"`) {
		t.Fatalf("masked options: %s, %v", masked, err)
	}
	if err := secret.OpenVertices(mustKey(t), cloneVertices(plan.Vertices)); err == nil {
		t.Fatal("another key opened the plan's options")
	}
	if err := secret.OpenVertices(k, plan.Vertices); err != nil {
		t.Fatal(err)
	}
	if got := string(plan.Vertices[0].Options); got != opts {
		t.Fatalf("opened options:\n%s\nwant\n%s", got, opts)
	}
	if got := string(plan.Vertices[1].Options); got != `{"plugin_name":"Console"}` {
		t.Fatalf("options without secrets changed: %s", got)
	}
}

func cloneVertices(vs []*contract.Vertex) []*contract.Vertex {
	out := make([]*contract.Vertex, len(vs))
	for i, v := range vs {
		c := *v
		c.Options = append(json.RawMessage(nil), v.Options...)
		out[i] = &c
	}
	return out
}

func TestSensitive(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "sasl.jaas.config": true, "fs.s3a.secret.key": true, "fs.s3a.session.token": true,
		"ssl.keystore.password": true, "api_key": true, "fs.s3a.aws.credentials.provider": false, "user": false,
		"fs.s3a.access.key": false, "sasl.mechanism": false, "ssl.truststore.location": false, "query": false,
	} {
		if got := secret.Sensitive(name); got != want {
			t.Errorf("Sensitive(%q) = %v", name, got)
		}
	}
}

func TestMaskURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"jdbc:postgresql://h:5432/db?user=u&password=url-Secret&sslmode=disable", "jdbc:postgresql://h:5432/db?user=u&password=******&sslmode=disable"},
		{"jdbc:mysql://root:url-Secret@h:3306/db", "jdbc:mysql://root:******@h:3306/db"},
		{"jdbc:sqlserver://h:1433;databaseName=db;password=url-Secret;encrypt=false", "jdbc:sqlserver://h:1433;databaseName=db;password=******;encrypt=false"},
		{"postgres://u:url-Secret@h/db?sslmode=disable", "postgres://u:******@h/db?sslmode=disable"},
		{"jdbc:postgresql://h:5432/db?user=u", ""},
		{"http://127.0.0.1:8333", ""},
	} {
		got, ok := secret.MaskURL(c.in)
		if c.want == "" {
			if ok || got != c.in {
				t.Errorf("MaskURL(%q) = %q, %v: it holds no secret", c.in, got, ok)
			}
			continue
		}
		if !ok || got != c.want {
			t.Errorf("MaskURL(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

func TestMaskTextMasksPasswordsInURLs(t *testing.T) {
	conf := `source { Jdbc { url = "jdbc:postgresql://h/db?user=app&password=url-Secret", query = "select 1" } }
sink { Console {} }`
	masked, _, found, err := secret.MaskText(conf, "job.conf", nil)
	if err != nil || found == 0 || strings.Contains(masked, "url-Secret") || !strings.Contains(masked, `url = "jdbc:postgresql://h/db?user=app&password=******"`) {
		t.Fatalf("MaskText = %d, %v\n%s", found, err, masked)
	}
	k := mustKey(t)
	plan := &contract.Plan{Vertices: []*contract.Vertex{{ID: 1, Kind: contract.SourceVertex, Plugin: "Jdbc", Where: "source[0] Jdbc",
		Options: json.RawMessage(`{"url":"jdbc:postgresql://h/db?user=app&password=url-Secret","query":"select 1"}`)}}}
	if err := secret.SealPlan(k, plan); err != nil || strings.Contains(string(plan.Vertices[0].Options), "url-Secret") {
		t.Fatalf("sealed plan: %s, %v", plan.Vertices[0].Options, err)
	}
	// a sealed url shows as a whole masked value
	if shown, err := secret.MaskOptions("source", "Jdbc", plan.Vertices[0].Options); err != nil || !strings.Contains(shown, `"url":"******"`) {
		t.Fatalf("shown: %s, %v", shown, err)
	}
	if err := secret.OpenVertices(k, plan.Vertices); err != nil || !strings.Contains(string(plan.Vertices[0].Options), "password=url-Secret") {
		t.Fatalf("opened: %s, %v", plan.Vertices[0].Options, err)
	}
}

func TestScrub(t *testing.T) {
	conf := `source { Jdbc { url = "jdbc:postgresql://h/db?password=url-Secret", user = "app", password = "scrub-Secret", query = "select 1" } }`
	msg := `source[0] Jdbc: connect as app with scrub-Secret to jdbc:postgresql://h/db?password=url-Secret failed`
	got := secret.Scrub(msg, conf, "job.conf", nil)
	want := `source[0] Jdbc: connect as app with ****** to jdbc:postgresql://h/db?password=****** failed`
	if got != want {
		t.Fatalf("Scrub = %q, want %q", got, want)
	}
}

// A secret value a process opened for its plugins is masked in the messages it sends out;
// values too short to tell from words are left, and a message without any is unchanged.
func TestRedactOpenedValues(t *testing.T) {
	k := mustKey(t)
	opts := `{"plugin_name":"Jdbc","url":"jdbc:postgresql://h/db","password":"redact-Secret-42","properties":{"password":"abc"}}`
	plan := &contract.Plan{Vertices: []*contract.Vertex{{ID: 1, Kind: contract.SinkVertex, Plugin: "Jdbc", Where: "sink[0] Jdbc", Options: json.RawMessage(opts)}}}
	if err := secret.SealPlan(k, plan); err != nil {
		t.Fatal(err)
	}
	msg := `connect postgres://app:redact-Secret-42@h/db: password "abc" refused`
	if got := secret.Redact(msg); got != msg {
		t.Fatalf("redacted before the value was opened: %s", got)
	}
	if err := secret.OpenVertices(k, plan.Vertices); err != nil {
		t.Fatal(err)
	}
	want := `connect postgres://app:******@h/db: password "abc" refused`
	if got := secret.Redact(msg); got != want {
		t.Errorf("Redact = %s\nwant      %s", got, want)
	}
	if got := secret.Redact("no secret here"); got != "no secret here" {
		t.Errorf("Redact changed %q", got)
	}
}
