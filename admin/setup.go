// Package admin prepares a Temporal cluster for Strait: the namespace its jobs run in, with
// the retention of their histories, and the custom search attributes (StraitJobName,
// StraitJobState, StraitJobMode, StraitJobId) that job listing and the Web UI filter by. Setup is
// idempotent: what is already in place is left alone, so it can run on every deployment.
package admin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	namespacepb "go.temporal.io/api/namespace/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/strait-dev/strait/contract"
)

// SearchAttributes are the custom search attributes Strait's job workflows set, with their
// types (contract.SearchAttributes).
var SearchAttributes = contract.SearchAttributes

// DefaultRetention is how long Temporal keeps a closed job's history (and so its status,
// counters and errors) when no retention is given.
const DefaultRetention = 7 * 24 * time.Hour

// Options say what Setup makes.
type Options struct {
	Namespace string
	// Retention of closed workflows; DefaultRetention when zero.
	Retention time.Duration
	// Description of a namespace Setup creates.
	Description string
	// AttributesOnly leaves the namespace alone (it must exist) and only registers the search
	// attributes: Temporal Cloud makes namespaces and sets their retention itself.
	AttributesOnly bool
	Logger         *slog.Logger
}

// Result says what Setup changed; the zero Result means everything was in place.
type Result struct {
	NamespaceCreated bool
	// RetentionUpdated holds the retention the namespace had before, when Setup changed it.
	RetentionUpdated *time.Duration
	// AttributesAdded are the search attributes Setup registered, sorted.
	AttributesAdded []string
}

// Changed reports whether Setup did anything.
func (r Result) Changed() bool {
	return r.NamespaceCreated || r.RetentionUpdated != nil || len(r.AttributesAdded) > 0
}

// Setup creates the namespace with its retention (or sets the retention of one that
// exists) and registers Strait's search attributes in it through the operator API. A search
// attribute already registered with another type is an error naming it: Strait's workflows
// could not set it.
func Setup(ctx context.Context, c client.Client, opts Options) (Result, error) {
	if opts.Namespace == "" {
		return Result{}, errors.New("admin setup: no namespace given")
	}
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.Retention < 24*time.Hour {
		return Result{}, fmt.Errorf("admin setup: namespace %s: retention %s is below Temporal's minimum of one day", opts.Namespace, opts.Retention)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	var res Result
	var err error
	if !opts.AttributesOnly {
		if res.NamespaceCreated, res.RetentionUpdated, err = ensureNamespace(ctx, c.WorkflowService(), opts); err != nil {
			return res, err
		}
	}
	if res.AttributesAdded, err = ensureSearchAttributes(ctx, c.OperatorService(), opts); err != nil {
		return res, err
	}
	return res, nil
}

// ensureNamespace registers the namespace, or updates the retention of one that exists.
func ensureNamespace(ctx context.Context, ws workflowservice.WorkflowServiceClient, opts Options) (bool, *time.Duration, error) {
	desc, err := ws.DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: opts.Namespace})
	var nf *serviceerror.NamespaceNotFound
	switch {
	case errors.As(err, &nf):
		_, err := ws.RegisterNamespace(ctx, &workflowservice.RegisterNamespaceRequest{
			Namespace:                        opts.Namespace,
			Description:                      opts.Description,
			WorkflowExecutionRetentionPeriod: durationpb.New(opts.Retention),
		})
		var exists *serviceerror.NamespaceAlreadyExists
		if errors.As(err, &exists) {
			return false, nil, nil // registered at the same moment by another set-up
		}
		if err != nil {
			return false, nil, fmt.Errorf("admin setup: register namespace %s: %w", opts.Namespace, err)
		}
		opts.Logger.Info("namespace registered", "namespace", opts.Namespace, "retention", opts.Retention)
		return true, nil, nil
	case err != nil:
		return false, nil, fmt.Errorf("admin setup: describe namespace %s: %w", opts.Namespace, err)
	}
	had := desc.GetConfig().GetWorkflowExecutionRetentionTtl().AsDuration()
	if had == opts.Retention {
		return false, nil, nil
	}
	_, err = ws.UpdateNamespace(ctx, &workflowservice.UpdateNamespaceRequest{
		Namespace: opts.Namespace,
		Config:    &namespacepb.NamespaceConfig{WorkflowExecutionRetentionTtl: durationpb.New(opts.Retention)},
	})
	if err != nil {
		return false, nil, fmt.Errorf("admin setup: namespace %s: set retention %s: %w", opts.Namespace, opts.Retention, err)
	}
	opts.Logger.Info("namespace retention updated", "namespace", opts.Namespace, "from", had, "to", opts.Retention)
	return false, &had, nil
}

// namespaceWait bounds how long a namespace registered a moment ago may stay unknown to the
// frontend that adds the search attributes (its namespace cache refreshes every few
// seconds).
const namespaceWait = time.Minute

// ensureSearchAttributes registers the attributes the namespace lacks.
func ensureSearchAttributes(ctx context.Context, ops operatorservice.OperatorServiceClient, opts Options) ([]string, error) {
	have, err := listSearchAttributes(ctx, ops, opts.Namespace)
	if err != nil {
		return nil, err
	}
	missing, err := missingAttributes(have, SearchAttributes)
	if err != nil {
		return nil, fmt.Errorf("admin setup: namespace %s: %w", opts.Namespace, err)
	}
	if len(missing) == 0 {
		return nil, nil
	}
	add := make(map[string]enumspb.IndexedValueType, len(missing))
	for _, name := range missing {
		add[name] = SearchAttributes[name]
	}
	_, err = ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: opts.Namespace, SearchAttributes: add})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return nil, fmt.Errorf("admin setup: namespace %s: add search attributes %v: %w", opts.Namespace, missing, err)
	}
	opts.Logger.Info("search attributes registered", "namespace", opts.Namespace, "attributes", missing)
	return missing, nil
}

// listSearchAttributes reads the namespace's custom and system search attributes, waiting
// out a namespace the frontend does not know yet.
func listSearchAttributes(ctx context.Context, ops operatorservice.OperatorServiceClient, ns string) (map[string]enumspb.IndexedValueType, error) {
	deadline := time.Now().Add(namespaceWait)
	backoff := 100 * time.Millisecond
	for {
		resp, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ns})
		if err == nil {
			have := make(map[string]enumspb.IndexedValueType, len(resp.GetCustomAttributes())+len(resp.GetSystemAttributes()))
			for k, v := range resp.GetSystemAttributes() {
				have[k] = v
			}
			for k, v := range resp.GetCustomAttributes() {
				have[k] = v
			}
			return have, nil
		}
		var nf *serviceerror.NamespaceNotFound
		if !errors.As(err, &nf) || time.Now().After(deadline) {
			return nil, fmt.Errorf("admin setup: namespace %s: list search attributes: %w", ns, err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("admin setup: namespace %s: list search attributes: %w", ns, ctx.Err())
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// missingAttributes lists, sorted, the wanted attributes not in have; one in have with
// another type is an error.
func missingAttributes(have, want map[string]enumspb.IndexedValueType) ([]string, error) {
	var missing, wrong []string
	for name, typ := range want {
		got, ok := have[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case got != typ:
			wrong = append(wrong, fmt.Sprintf("%s is %s, Strait needs %s", name, got, typ))
		}
	}
	sort.Strings(missing)
	sort.Strings(wrong)
	if len(wrong) > 0 {
		return nil, fmt.Errorf("search attributes of the wrong type (delete them or use another namespace): %v", wrong)
	}
	return missing, nil
}
