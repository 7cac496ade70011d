// Package elasticsearch is SeaTunnel's Elasticsearch connector: a sink that writes rows as
// documents with the bulk API (an index per row from ${field} placeholders, ids from
// primary_keys so CDC rows upsert and delete, SeaTunnel's save modes) and a batch source
// that reads a query's hits page by page into rows typed by a schema or by the index's
// mapping. It speaks the REST API of Elasticsearch 7 and 8 and OpenSearch over plain HTTP;
// the tests run against ZincSearch, which serves the same bulk, document, search, mapping
// and delete-by-query API under /es/ (no scroll: the source pages by from and size there).
package elasticsearch
