//go:build !noembed

package admin

import (
	"context"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/strait-dev/strait/devserver/devservertest"
)

func retention(t *testing.T, c client.Client, ns string) time.Duration {
	t.Helper()
	d, err := c.WorkflowService().DescribeNamespace(context.Background(), &workflowservice.DescribeNamespaceRequest{Namespace: ns})
	if err != nil {
		t.Fatalf("describe namespace %s: %v", ns, err)
	}
	return d.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration()
}

func customAttributes(t *testing.T, c client.Client, ns string) map[string]enumspb.IndexedValueType {
	t.Helper()
	resp, err := c.OperatorService().ListSearchAttributes(context.Background(), &operatorservice.ListSearchAttributesRequest{Namespace: ns})
	if err != nil {
		t.Fatalf("list search attributes of %s: %v", ns, err)
	}
	return resp.GetCustomAttributes()
}

// TestSetupTwice runs the set-up of a new namespace on the embedded server twice: the first
// creates the namespace with its retention and registers the three attributes, the second
// changes nothing, and a third with another retention only updates the retention.
func TestSetupTwice(t *testing.T) {
	c := devservertest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := Options{Namespace: "strait-prod", Retention: 72 * time.Hour, Description: "Strait jobs"}

	first, err := Setup(ctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"StraitJobId", "StraitJobMode", "StraitJobName", "StraitJobState"}
	if !first.NamespaceCreated || first.RetentionUpdated != nil || strings.Join(first.AttributesAdded, ",") != strings.Join(want, ",") {
		t.Errorf("first set-up: %+v, want the namespace created and %v added", first, want)
	}
	if got := retention(t, c, opts.Namespace); got != opts.Retention {
		t.Errorf("retention %s, want %s", got, opts.Retention)
	}
	attrs := customAttributes(t, c, opts.Namespace)
	for _, name := range want {
		if attrs[name] != SearchAttributes[name] || attrs[name] == enumspb.INDEXED_VALUE_TYPE_UNSPECIFIED {
			t.Errorf("search attribute %s: %s, want %s (have %v)", name, attrs[name], SearchAttributes[name], attrs)
		}
	}

	second, err := Setup(ctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if second.Changed() {
		t.Errorf("second set-up changed %+v, want nothing", second)
	}

	opts.Retention = 96 * time.Hour
	third, err := Setup(ctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if third.NamespaceCreated || len(third.AttributesAdded) > 0 || third.RetentionUpdated == nil || *third.RetentionUpdated != 72*time.Hour {
		t.Errorf("set-up with a new retention: %+v, want only the retention updated from 72h", third)
	}
	if got := retention(t, c, opts.Namespace); got != opts.Retention {
		t.Errorf("retention %s, want %s", got, opts.Retention)
	}

	// attributes only (Temporal Cloud): the retention stays as it is
	only, err := Setup(ctx, c, Options{Namespace: opts.Namespace, Retention: 24 * time.Hour, AttributesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if only.Changed() {
		t.Errorf("attributes-only set-up changed %+v, want nothing", only)
	}
	if got := retention(t, c, opts.Namespace); got != 96*time.Hour {
		t.Errorf("retention %s after an attributes-only set-up, want 96h kept", got)
	}
}

// TestSetupAttributesOnly registers the attributes in a namespace made elsewhere (the
// embedded server's default one, as Temporal Cloud makes namespaces) without touching it,
// and refuses a namespace that does not exist.
func TestSetupAttributesOnly(t *testing.T) {
	c := devservertest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := c.WorkflowService().RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
		Namespace: "cloud", WorkflowExecutionRetentionPeriod: durationpb.New(30 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Setup(ctx, c, Options{Namespace: "cloud", AttributesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.NamespaceCreated || res.RetentionUpdated != nil || len(res.AttributesAdded) != len(SearchAttributes) {
		t.Errorf("attributes-only set-up: %+v, want the %d attributes added and nothing else", res, len(SearchAttributes))
	}
	if got := retention(t, c, "cloud"); got != 30*24*time.Hour {
		t.Errorf("retention %s, want the namespace's 720h kept", got)
	}
	// a short wait for a namespace nobody made: the error names it
	sctx, scancel := context.WithTimeout(ctx, 3*time.Second)
	defer scancel()
	if _, err := Setup(sctx, c, Options{Namespace: "nowhere", AttributesOnly: true}); err == nil || !strings.Contains(err.Error(), "namespace nowhere") {
		t.Errorf("attributes-only set-up of a missing namespace: %v, want an error naming it", err)
	}
}

// TestSetupWrongType refuses a namespace where one of Strait's attributes has another type,
// naming it, and registers nothing else there.
func TestSetupWrongType(t *testing.T) {
	c := devservertest.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "taken"
	if _, err := Setup(ctx, c, Options{Namespace: ns}); err != nil {
		t.Fatal(err)
	}
	if got := retention(t, c, ns); got != DefaultRetention {
		t.Errorf("retention %s, want the default %s", got, DefaultRetention)
	}
	_, err := c.OperatorService().RemoveSearchAttributes(ctx, &operatorservice.RemoveSearchAttributesRequest{Namespace: ns, SearchAttributes: []string{"StraitJobMode"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: ns,
		SearchAttributes: map[string]enumspb.IndexedValueType{"StraitJobMode": enumspb.INDEXED_VALUE_TYPE_INT}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Setup(ctx, c, Options{Namespace: ns})
	if err == nil || !strings.Contains(err.Error(), "StraitJobMode is Int, Strait needs Keyword") || !strings.Contains(err.Error(), "namespace taken") {
		t.Fatalf("set-up over an Int StraitJobMode: %v, want an error naming the attribute and the namespace", err)
	}
}

func TestSetupRefusesBadOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no namespace", Options{}, "no namespace given"},
		{"retention under a day", Options{Namespace: "x", Retention: time.Hour}, "retention 1h0m0s is below Temporal's minimum of one day"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// no server: the options are refused before any call
			_, err := Setup(context.Background(), nil, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMissingAttributes(t *testing.T) {
	kw, in := enumspb.INDEXED_VALUE_TYPE_KEYWORD, enumspb.INDEXED_VALUE_TYPE_INT
	want := map[string]enumspb.IndexedValueType{"A": kw, "B": kw}
	for _, tc := range []struct {
		name    string
		have    map[string]enumspb.IndexedValueType
		missing string
		err     string
	}{
		{"none there", map[string]enumspb.IndexedValueType{"WorkflowId": kw}, "A,B", ""},
		{"one there", map[string]enumspb.IndexedValueType{"B": kw}, "A", ""},
		{"all there", map[string]enumspb.IndexedValueType{"A": kw, "B": kw}, "", ""},
		{"wrong type", map[string]enumspb.IndexedValueType{"A": in}, "", "A is Int, Strait needs Keyword"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			missing, err := missingAttributes(tc.have, want)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(missing, ","); got != tc.missing {
				t.Errorf("missing %q, want %q", got, tc.missing)
			}
		})
	}
}
