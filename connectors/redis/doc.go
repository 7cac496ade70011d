// Package redis is SeaTunnel's Redis connector, on a single server or a Redis Cluster.
//
// The sink writes each row to a key (a literal, a field's name, or with support_custom_key a
// template of ${field} placeholders) as data_type says: key/string sets the key to the row's
// value, hash sets the row's fields (or one hash_key_field -> hash_value_field pair) in the
// hash, list pushes the value at the head (LPUSH, as SeaTunnel does), set adds it, zset adds it
// with score 1. The value is the row in SeaTunnel's json format (an object of the fields by
// name), its text format (the fields joined by field_delimiter), or one field's text
// (value_field). Writes go in pipelines of batch_size rows, and whatever is buffered is sent
// at every checkpoint; expire sets each written key's time to live.
//
// The source scans the keys matching keys (SCAN with a TYPE filter, batch_size keys per
// step) and emits a row per value: a key/string's value, each element of a list, set or
// sorted set, and a hash as one JSON object (or, with hash_key_parse_mode = kv, a row per
// hash field). Without a schema a row is the value as text in one column (content); with
// one, the value is read as json or text by the schema. read_key_enabled adds the Redis key
// to each row. In cluster mode every master is scanned, each a split of its own.
package redis
