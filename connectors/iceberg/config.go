package iceberg

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ice "github.com/apache/iceberg-go"
	icecat "github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	// The catalogs and file systems Strait links: a Hadoop catalog on a local folder or an
	// object store, and a REST catalog.
	_ "github.com/apache/iceberg-go/catalog/hadoop"
	_ "github.com/apache/iceberg-go/catalog/rest"
	_ "github.com/apache/iceberg-go/io/gocloud/s3"

	"github.com/strait-dev/strait/config"
)

// CommonConfig is the options the source and the sink share, SeaTunnel's.
type CommonConfig struct {
	CatalogName    string            `opt:"catalog_name" default:"default" doc:"the catalog's name (a Hadoop catalog ignores it; a REST catalog sends it)"`
	Namespace      string            `opt:"namespace" default:"default" doc:"the table's namespace (database); dots separate the levels of a nested namespace"`
	Table          string            `opt:"table,required" doc:"the table's name in the namespace"`
	CatalogProps   map[string]string `opt:"iceberg.catalog.config,required" doc:"the catalog's properties: type (hadoop or rest), warehouse (file:///..., s3://bucket/... or s3a://...), uri (rest); s3.endpoint, s3.access-key-id, s3.secret-access-key, s3.region and s3.path-style-access for an object store, or the same as Hadoop's fs.s3a.* keys"`
	HadoopProps    map[string]string `opt:"hadoop.config" fallback:"hadoop_conf" doc:"Hadoop properties; Strait reads the object store's from them (fs.s3a.endpoint, fs.s3a.access.key, fs.s3a.secret.key, fs.s3a.session.token, fs.s3a.endpoint.region, fs.s3a.path.style.access) and ignores the rest"`
	HadoopConfPath string            `opt:"iceberg.hadoop-conf-path" doc:"a folder holding core-site.xml (and hdfs-site.xml, hive-site.xml), whose fs.s3a.* properties are read as hadoop.config's; hadoop.config wins"`
	CaseSensitive  bool              `opt:"case_sensitive" default:"false" doc:"whether column names match the table's with case: the sink's input columns, the source's schema fields"`
	At             *config.Options   `opt:"."`
}

// hadoopS3Keys maps Hadoop's S3A properties to the object store properties of Iceberg's
// FileIO, which iceberg-go reads.
var hadoopS3Keys = map[string]string{
	"fs.s3a.endpoint":          "s3.endpoint",
	"fs.s3a.access.key":        "s3.access-key-id",
	"fs.s3a.secret.key":        "s3.secret-access-key",
	"fs.s3a.session.token":     "s3.session-token",
	"fs.s3a.endpoint.region":   "s3.region",
	"fs.s3a.region":            "s3.region",
	"fs.s3a.path.style.access": "s3.path-style-access",
}

// catalogProps is the properties iceberg-go's catalog is loaded with: the catalog config,
// with the object store's settings also taken from Hadoop's keys (in core-site.xml, then
// hadoop.config, then the catalog config itself), Iceberg's own s3.* keys winning.
func (c *CommonConfig) catalogProps() (ice.Properties, error) {
	props := ice.Properties{}
	hadoop := map[string]string{}
	if c.HadoopConfPath != "" {
		for _, f := range []string{"core-site.xml", "hdfs-site.xml", "hive-site.xml"} {
			kv, err := readHadoopXML(filepath.Join(c.HadoopConfPath, f))
			if err != nil {
				return nil, c.At.Errorf("iceberg.hadoop-conf-path", "%v", err)
			}
			for k, v := range kv {
				hadoop[k] = v
			}
		}
	}
	for k, v := range c.HadoopProps {
		hadoop[k] = v
	}
	for k, v := range c.CatalogProps {
		if strings.HasPrefix(k, "fs.") {
			hadoop[k] = v
		}
	}
	for k, v := range hadoop {
		if to, ok := hadoopS3Keys[k]; ok && v != "" {
			props[to] = v
		}
	}
	for k, v := range c.CatalogProps {
		if !strings.HasPrefix(k, "fs.") {
			props[k] = v
		}
	}
	typ := strings.ToLower(props.Get("type", ""))
	if typ == "" && props.Get("uri", "") == "" {
		typ = "hadoop"
	}
	switch typ {
	case "hadoop":
		wh := props.Get("warehouse", "")
		if wh == "" {
			return nil, c.At.Errorf("iceberg.catalog.config", "a hadoop catalog needs a warehouse (file:///path, s3://bucket/path or s3a://bucket/path)")
		}
		u, err := url.Parse(wh)
		if err != nil {
			return nil, c.At.Errorf("iceberg.catalog.config", "warehouse %q: %v", wh, err)
		}
		switch u.Scheme {
		case "", "file":
		case "s3", "s3a", "s3n":
			// The Hadoop catalog commits on an object store by writing the next metadata
			// version, which is not atomic against another engine committing at the same
			// time (SeaTunnel's Java Hadoop catalog is no safer there). Strait's own commits
			// to a table are one at a time per job.
			if _, ok := props["allow-unsafe-commits"]; !ok {
				props["allow-unsafe-commits"] = "true"
			}
			if props.Get("s3.endpoint", "") != "" && props.Get("s3.region", "") == "" {
				props["s3.region"] = "us-east-1"
			}
			// iceberg-go addresses a custom endpoint by path unless told otherwise
			if _, ok := props["s3.force-virtual-addressing"]; !ok && strings.EqualFold(props.Get("s3.path-style-access", ""), "false") {
				props["s3.force-virtual-addressing"] = "true"
			}
		default:
			return nil, c.At.Errorf("iceberg.catalog.config", "warehouse %q: Strait's Hadoop catalog reads local folders (file://) and S3 (s3://, s3a://), not %s://", wh, u.Scheme)
		}
		props["type"] = "hadoop"
	case "rest":
		props["type"] = "rest"
	case "hive", "glue", "jdbc", "sql":
		return nil, c.At.Errorf("iceberg.catalog.config", "catalog type %q is not linked into Strait: use hadoop or rest", typ)
	default:
		return nil, c.At.Errorf("iceberg.catalog.config", "unknown catalog type %q: use hadoop or rest", typ)
	}
	return props, nil
}

// readHadoopXML reads the properties of a Hadoop configuration file; a missing file has none.
func readHadoopXML(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Props []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]string{}
	for _, p := range doc.Props {
		out[strings.TrimSpace(p.Name)] = strings.TrimSpace(p.Value)
	}
	return out, nil
}

// ident is the table's identifier: the namespace's levels and the table's name.
func (c *CommonConfig) ident() table.Identifier {
	var id table.Identifier
	for _, p := range strings.Split(c.Namespace, ".") {
		if p != "" {
			id = append(id, p)
		}
	}
	return append(id, c.Table)
}

func (c *CommonConfig) check() error {
	if strings.TrimSpace(c.Table) == "" {
		return c.At.Errorf("table", "must not be empty")
	}
	if strings.TrimSpace(c.Namespace) == "" {
		return c.At.Errorf("namespace", "must not be empty")
	}
	if len(c.CatalogProps) == 0 {
		return c.At.Errorf("iceberg.catalog.config", "must name the catalog (type and warehouse)")
	}
	_, err := c.catalogProps()
	return err
}

// catalogs holds the catalogs loaded in this process, by their properties: a writer, a
// committer and the setup of one sink share one.
var catalogs sync.Map // string -> *loadedCatalog

type loadedCatalog struct {
	once sync.Once
	cat  icecat.Catalog
	err  error
}

// loadCatalog returns the catalog of the options.
func (c *CommonConfig) loadCatalog(ctx context.Context) (icecat.Catalog, error) {
	props, err := c.catalogProps()
	if err != nil {
		return nil, err
	}
	key := c.CatalogName + "\x00" + propsKey(props)
	v, _ := catalogs.LoadOrStore(key, &loadedCatalog{})
	lc := v.(*loadedCatalog)
	lc.once.Do(func() {
		lc.cat, lc.err = icecat.Load(ctx, c.CatalogName, props)
		if lc.err == nil {
			slog.Debug("Iceberg: catalog loaded", "catalog", c.CatalogName, "type", props["type"], "warehouse", props["warehouse"])
		}
	})
	if lc.err != nil {
		catalogs.CompareAndDelete(key, lc) // a later call tries again
		return nil, fmt.Errorf("load catalog %s (%s): %w", c.CatalogName, props["type"], lc.err)
	}
	return lc.cat, nil
}

func propsKey(p ice.Properties) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sortStrings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(p[k])
		b.WriteByte(0)
	}
	return b.String()
}

// tableName is the table as messages name it: namespace.table.
func (c *CommonConfig) tableName() string { return c.Namespace + "." + c.Table }
